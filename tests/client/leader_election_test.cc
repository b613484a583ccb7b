// Leader election as client-go's: who takes a Lease, when, and what the
// record says. Each candidate has a FakeClock of its own, as two machines
// would: a candidate whose clock the test does not move is a paused process.
// The Lease lives in a real in-process API server, so every write meets kube's
// optimistic concurrency.

#include "client/leader_election.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <regex>

#include "cluster/in_process_transport.h"
#include "store/memory/memory_store.h"

namespace berth::client {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Moves `clock` by `by`, firing each alarm at its own deadline (FakeClock::Step
// moves the whole way first), so tries happen exactly when they are due.
void Advance(api::FakeClock& clock, std::chrono::nanoseconds by) {
  const auto target = clock.Now() + by;
  for (;;) {
    auto next = clock.NextAlarm();
    if (!next || *next > target) break;
    clock.Step(
        std::max<std::chrono::nanoseconds>(std::chrono::nanoseconds(0), *next - clock.Now()));
  }
  clock.Step(target - clock.Now());
}

// What a candidate saw happen to it.
struct Observed {
  int started = 0;
  int stopped = 0;
  std::vector<std::string> leaders;
};

// A candidate: its clock, its connection (which the test may cut or
// intercept) and its elector.
struct Candidate {
  explicit Candidate(std::string id) : identity(std::move(id)) {}
  std::string identity;
  api::FakeClock clock{api::Clock::time_point(std::chrono::hours(1)),
                       std::chrono::system_clock::now()};
  bool partitioned = false;
  std::function<void(const std::string& method)> before_request;
  Observed seen;
  metrics::Registry registry;
  std::unique_ptr<LeaderElector> elector;
};

class LeaderElectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::MemoryStore::Open({}).value();
    // No serviceaccount controller runs: without ServiceAccount admission, as
    // kube's integration tests run kube-apiserver.
    api_ = std::make_unique<apiserver::ApiServer>(*store_, apiserver::ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
    ASSERT_TRUE(api_->Bootstrap().ok());
    rest_ = std::make_unique<RestClient>(cluster::InProcessTransport(*api_));
  }

  LeaderElectionConfig Config(const std::string& identity) {
    LeaderElectionConfig config;
    config.lock_name = "kube-scheduler";
    config.identity = identity;
    return config;  // kube's defaults: 15 s, 10 s, 2 s
  }

  Candidate& Add(const std::string& identity,
                 std::optional<LeaderElectionConfig> config = std::nullopt) {
    candidates_.push_back(std::make_unique<Candidate>(identity));
    Candidate* c = candidates_.back().get();
    Transport inner = cluster::InProcessTransport(*api_, identity);
    Transport transport = [c, inner](const std::string& method, const std::string& target,
                                     const std::string& body,
                                     const std::string& content_type) -> Result<RestResponse> {
      if (c->partitioned) return Status::Unavailable("connection refused");
      if (c->before_request) c->before_request(method);
      return inner(method, target, body, content_type);
    };
    LeaderCallbacks callbacks{[c] { ++c->seen.started; }, [c] { ++c->seen.stopped; },
                              [c](const std::string& id) { c->seen.leaders.push_back(id); }};
    auto elector = LeaderElector::Create(config.value_or(Config(identity)), std::move(transport),
                                         std::move(callbacks),
                                         {.clock = &c->clock, .registry = &c->registry, .seed = 7});
    EXPECT_TRUE(elector.ok()) << elector.status().message();
    c->elector = std::move(elector).value();
    return *c;
  }

  json::object Lease() {
    auto lease = rest_->Get(api::Kind::kLease, "kube-system", "kube-scheduler");
    EXPECT_TRUE(lease.ok()) << lease.status().message();
    return lease.ok() ? lease.value()->json() : json::object{};
  }
  static std::string Holder(const json::object& lease) {
    return json::value_to<std::string>(lease.at("spec").at("holderIdentity"));
  }

  void TearDown() override {
    for (auto& c : candidates_) c->elector->Stop();
  }

  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
  std::unique_ptr<RestClient> rest_;
  std::vector<std::unique_ptr<Candidate>> candidates_;
};

TEST_F(LeaderElectionTest, FirstCandidateCreatesTheLeaseInKubesForm) {
  Candidate& a = Add("host-a_1b4e28ba-2fa1-41d2-883f-0016d3cca427");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));

  EXPECT_TRUE(a.elector->HoldsLease());
  EXPECT_EQ(a.seen.started, 1);
  json::object lease = Lease();
  const json::object& spec = lease.at("spec").as_object();
  EXPECT_EQ(Holder(lease), a.identity);
  EXPECT_EQ(spec.at("leaseDurationSeconds").as_int64(), 15);
  EXPECT_EQ(spec.at("leaseTransitions").as_int64(), 0);
  EXPECT_EQ(spec.at("acquireTime"), spec.at("renewTime"));
  std::string renew = json::value_to<std::string>(spec.at("renewTime"));
  EXPECT_TRUE(std::regex_match(renew, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")))
      << renew;
  EXPECT_EQ(a.seen.leaders, std::vector<std::string>{a.identity});
  EXPECT_NE(a.registry.Render().find("leader_election_master_status{name=\"kube-scheduler\"} 1"),
            std::string::npos)
      << a.registry.Render();
}

TEST_F(LeaderElectionTest, LeaderRenewsEveryRetryPeriodKeepingItsAcquireTime) {
  Candidate& a = Add("a");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  json::object first = Lease();
  Advance(a.clock, milliseconds(1998));
  json::object before_retry = Lease();
  EXPECT_EQ(before_retry.at("metadata").at("resourceVersion"),
            first.at("metadata").at("resourceVersion"));
  Advance(a.clock, milliseconds(1));
  json::object renewed = Lease();
  EXPECT_NE(renewed.at("metadata").at("resourceVersion"),
            first.at("metadata").at("resourceVersion"));
  EXPECT_NE(renewed.at("spec").at("renewTime"), first.at("spec").at("renewTime"));
  EXPECT_EQ(renewed.at("spec").at("acquireTime"), first.at("spec").at("acquireTime"));
  EXPECT_EQ(renewed.at("spec").at("leaseTransitions").as_int64(), 0);
  EXPECT_TRUE(a.elector->HoldsLease());
}

TEST_F(LeaderElectionTest, FollowerTakesOverExactlyOneLeaseDurationAfterTheRecordLastChanged) {
  Candidate& a = Add("a");
  Candidate& b = Add("b");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  b.elector->Start();
  Advance(b.clock, milliseconds(1));  // b sees a's record now: its expiry counts from here
  EXPECT_FALSE(b.elector->HoldsLease());
  EXPECT_EQ(b.elector->GetLeader(), "a");
  EXPECT_EQ(b.seen.leaders, std::vector<std::string>{"a"});

  // a is paused (its clock stands still): the record stops changing.
  Advance(b.clock, milliseconds(15000 - 2));
  EXPECT_EQ(Holder(Lease()), "a");
  EXPECT_EQ(b.seen.started, 0);
  Advance(b.clock, milliseconds(1));
  EXPECT_EQ(Holder(Lease()), "b");
  EXPECT_TRUE(b.elector->HoldsLease());
  EXPECT_EQ(b.seen.started, 1);
  EXPECT_EQ(Lease().at("spec").at("leaseTransitions").as_int64(), 1);
}

api::ObjectPtr LeaseObject(RestClient& rest) {
  return rest.Get(api::Kind::kLease, "kube-system", "kube-scheduler").value();
}

TEST_F(LeaderElectionTest, WatchingFollowerCountsTheExpiryFromTheRenewalItself) {
  Candidate& a = Add("a");
  Candidate& b = Add("b");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  b.elector->Start();
  Advance(b.clock, milliseconds(1));         // b's first try reads a's record
  Advance(a.clock, milliseconds(1999));      // a renews ...
  b.elector->Observe(*LeaseObject(*rest_));  // ... and b's watch tells it at once
  // a is paused from now on. Polling alone, b would see the renewal at its
  // next try (2 to 4.4 s from its first) and take over 15 s after that.
  Advance(b.clock, milliseconds(14999));
  EXPECT_EQ(Holder(Lease()), "a");
  Advance(b.clock, milliseconds(1));
  EXPECT_EQ(Holder(Lease()), "b");
  EXPECT_TRUE(b.elector->HoldsLease());
}

TEST_F(LeaderElectionTest, ALateWatchEventDoesNotRollTheRecordBack) {
  Candidate& a = Add("a");
  Candidate& b = Add("b");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  api::ObjectPtr old_version = LeaseObject(*rest_);
  Advance(a.clock, milliseconds(1999));  // a renews; then a is paused
  b.elector->Start();
  Advance(b.clock, milliseconds(1));  // b reads the renewed record
  Advance(b.clock, milliseconds(10000));
  b.elector->Observe(*old_version);  // older: must not count as a change
  EXPECT_EQ(b.elector->GetLeader(), "a");
  Advance(b.clock, milliseconds(4998));
  EXPECT_EQ(Holder(Lease()), "a");
  Advance(b.clock, milliseconds(1));  // 15 s after b read the record, not after the late event
  EXPECT_EQ(Holder(Lease()), "b");
}

TEST_F(LeaderElectionTest, FollowerDoesNotTakeALeaseThatKeepsBeingRenewed) {
  Candidate& a = Add("a");
  Candidate& b = Add("b");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  b.elector->Start();
  // Both machines' time moves together for a minute.
  for (int i = 0; i < 600; ++i) {
    Advance(a.clock, milliseconds(100));
    Advance(b.clock, milliseconds(100));
  }
  EXPECT_EQ(Holder(Lease()), "a");
  EXPECT_TRUE(a.elector->HoldsLease());
  EXPECT_EQ(b.seen.started, 0);
  EXPECT_EQ(Lease().at("spec").at("leaseTransitions").as_int64(), 0);
}

TEST_F(LeaderElectionTest, ResumedLeaderHasStoppedBeforeItWritesAnything) {
  Candidate& a = Add("a");
  Candidate& b = Add("b");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  b.elector->Start();
  Advance(b.clock, milliseconds(1));
  Advance(b.clock, seconds(15));  // a paused; b takes over
  ASSERT_EQ(Holder(Lease()), "b");
  std::string b_version = json::value_to<std::string>(Lease().at("metadata").at("resourceVersion"));

  // a resumes 20 s later. Its guarded writes are refused, and its election
  // step gives up leadership without writing the Lease.
  int writes = 0;
  a.before_request = [&writes](const std::string& method) { writes += method != "GET"; };
  Transport guarded = LeaderOnlyTransport(
      [](const std::string&, const std::string&, const std::string&,
         const std::string&) -> Result<RestResponse> {
        return RestResponse{201, "{}"};
      },
      *a.elector);
  a.clock.Step(seconds(20));  // the whole pause at once, then a's timers run
  EXPECT_EQ(a.seen.stopped, 1);
  EXPECT_FALSE(a.elector->HoldsLease());
  auto refused =
      guarded("POST", "/api/v1/namespaces/default/pods/p/binding", "{}", "application/json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(writes, 0);
  EXPECT_EQ(json::value_to<std::string>(Lease().at("metadata").at("resourceVersion")), b_version);
  EXPECT_NE(a.registry.Render().find("leader_election_master_status{name=\"kube-scheduler\"} 0"),
            std::string::npos);

  // From then on a is a follower: b keeps renewing and a never takes it back.
  for (int i = 0; i < 300; ++i) {
    Advance(a.clock, milliseconds(100));
    Advance(b.clock, milliseconds(100));
  }
  EXPECT_EQ(Holder(Lease()), "b");
  EXPECT_EQ(a.elector->GetLeader(), "b");
  EXPECT_EQ(a.seen.started, 1);
  EXPECT_EQ(writes, 0);
}

// A clock that can jump ahead without firing its alarms: a process thawed
// after a pause reads the new time before any of its timers has run.
class ThawingClock final : public api::Clock {
 public:
  explicit ThawingClock(api::FakeClock& inner) : inner_(inner) {}
  time_point Now() const override { return inner_.Now() + jump_; }
  std::chrono::system_clock::time_point WallNow() const override {
    return inner_.WallNow() +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(jump_);
  }
  std::unique_ptr<Alarm> NewAlarm(std::function<void()> fire) override {
    struct Shifted final : Alarm {
      Shifted(std::unique_ptr<Alarm> a, const ThawingClock& c) : inner(std::move(a)), clock(c) {}
      void Set(time_point deadline) override { inner->Set(deadline - clock.jump_); }
      std::unique_ptr<Alarm> inner;
      const ThawingClock& clock;
    };
    return std::make_unique<Shifted>(inner_.NewAlarm(std::move(fire)), *this);
  }
  void Jump(std::chrono::nanoseconds by) { jump_ += by; }

 private:
  api::FakeClock& inner_;
  std::chrono::nanoseconds jump_{0};
};

TEST_F(LeaderElectionTest, HoldsLeaseEndsWithTheClockBeforeTheElectionRuns) {
  api::FakeClock base(api::Clock::time_point(std::chrono::hours(1)),
                      std::chrono::system_clock::now());
  ThawingClock clock(base);
  int started = 0;
  auto elector = LeaderElector::Create(Config("a"), cluster::InProcessTransport(*api_),
                                       {[&started] { ++started; }}, {.clock = &clock, .seed = 1});
  ASSERT_TRUE(elector.ok()) << elector.status().message();
  elector.value()->Start();
  Advance(base, milliseconds(1));
  ASSERT_EQ(started, 1);
  clock.Jump(milliseconds(9998));
  EXPECT_TRUE(elector.value()->HoldsLease());
  clock.Jump(milliseconds(1));  // the renew deadline after the last renewal's start
  EXPECT_FALSE(elector.value()->HoldsLease());
  EXPECT_EQ(Holder(Lease()), "a");  // nothing ran: the record still names it
  elector.value()->Stop();
}

TEST_F(LeaderElectionTest, LeaderThatCannotRenewStepsDownAtTheRenewDeadline) {
  Candidate& a = Add("a");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  Advance(a.clock, milliseconds(1999));  // the first renewal, at 2 s, succeeds
  a.partitioned = true;                  // ... and none after it: the deadline is 12 s
  Advance(a.clock, milliseconds(9999));
  EXPECT_TRUE(a.elector->HoldsLease());
  EXPECT_EQ(a.seen.stopped, 0);
  Advance(a.clock, milliseconds(1));
  EXPECT_FALSE(a.elector->HoldsLease());
  EXPECT_EQ(a.seen.stopped, 1);
  // Connected again, it competes as any follower: the record is still its own,
  // so it takes it back at once, keeping the transitions count.
  a.partitioned = false;
  Advance(a.clock, milliseconds(4400));
  EXPECT_TRUE(a.elector->HoldsLease());
  EXPECT_EQ(a.seen.started, 2);
  EXPECT_EQ(Lease().at("spec").at("leaseTransitions").as_int64(), 0);
}

TEST_F(LeaderElectionTest, ReleaseOnStopLetsAFollowerTakeOverAtItsNextTry) {
  Candidate& a = Add("a");
  Candidate& b = Add("b");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  b.elector->Start();
  Advance(b.clock, milliseconds(1));
  a.elector->Stop();
  EXPECT_EQ(a.seen.stopped, 1);
  json::object released = Lease();
  EXPECT_EQ(Holder(released), "");
  EXPECT_EQ(released.at("spec").at("leaseDurationSeconds").as_int64(), 1);
  // client-go's jittered retry: at most retry period * (1 + 1.2).
  Advance(b.clock, milliseconds(4400));
  EXPECT_EQ(Holder(Lease()), "b");
  EXPECT_EQ(Lease().at("spec").at("leaseTransitions").as_int64(), 1);
  EXPECT_EQ(b.seen.leaders, (std::vector<std::string>{"a", "b"}));
}

TEST_F(LeaderElectionTest, OfTwoCandidatesTakingAnExpiredLeaseOnlyOneWins) {
  Candidate& a = Add("a");
  Candidate& b = Add("b");
  Candidate& c = Add("c");
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  b.elector->Start();
  c.elector->Start();
  Advance(b.clock, milliseconds(1));
  Advance(c.clock, milliseconds(1));
  // a is paused. Both followers find the lease expired at the same moment;
  // c's write lands between b's read and b's write.
  bool raced = false;
  b.before_request = [&](const std::string& method) {
    if (method != "PUT" || raced) return;
    raced = true;
    Advance(c.clock, milliseconds(15000));
  };
  Advance(b.clock, milliseconds(15000));
  ASSERT_TRUE(raced);
  EXPECT_EQ(Holder(Lease()), "c");
  EXPECT_TRUE(c.elector->HoldsLease());
  EXPECT_FALSE(b.elector->HoldsLease());
  EXPECT_EQ(b.seen.started, 0);
  EXPECT_EQ(Lease().at("spec").at("leaseTransitions").as_int64(), 1);
}

TEST_F(LeaderElectionTest, LeaderOnlyTransportPassesReadsAlwaysAndWritesWhileLeading) {
  Candidate& a = Add("a");
  int forwarded = 0;
  Transport guarded = LeaderOnlyTransport(
      [&forwarded](const std::string&, const std::string&, const std::string&,
                   const std::string&) -> Result<RestResponse> {
        ++forwarded;
        return RestResponse{200, "{}"};
      },
      *a.elector);
  EXPECT_TRUE(guarded("GET", "/api/v1/pods", "", "").ok());
  auto refused = guarded("POST", "/api/v1/namespaces/default/pods", "{}", "application/json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("not the leader of kube-system/kube-scheduler"),
            std::string::npos);
  EXPECT_EQ(forwarded, 1);
  a.elector->Start();
  Advance(a.clock, milliseconds(1));
  EXPECT_TRUE(guarded("POST", "/api/v1/namespaces/default/pods", "{}", "application/json").ok());
  EXPECT_EQ(forwarded, 2);
}

TEST(LeaderElectionConfigTest, RefusesWhatKubeRefuses) {
  struct Case {
    const char* name;
    int64_t lease_ms, renew_ms, retry_ms;
    std::string lock_name;
    StatusCode code;
    std::string message;
  };
  const Case cases[] = {
      {"defaults", 15000, 10000, 2000, "kube-scheduler", StatusCode::kOk, ""},
      {"short", 1000, 800, 200, "kube-scheduler", StatusCode::kOk, ""},
      {"renew deadline not below lease duration", 10000, 10000, 2000, "kube-scheduler",
       StatusCode::kInvalid,
       "leaderElection.leaseDuration: Invalid value: \"10s\": must be greater than "
       "`RenewDeadline`"},
      {"zero retry period", 15000, 10000, 0, "kube-scheduler", StatusCode::kInvalid,
       "leaderElection.retryPeriod: Invalid value: \"0s\": must be greater than zero"},
      {"no lock name", 15000, 10000, 2000, "", StatusCode::kInvalid,
       "leaderElection.resourceName: Required value"},
      {"retry period too long for the deadline", 15000, 10000, 9000, "kube-scheduler",
       StatusCode::kBadRequest, "renewDeadline must be greater than retryPeriod*JitterFactor"},
  };
  for (const Case& c : cases) {
    LeaderElectionConfig config;
    config.lock_name = c.lock_name;
    config.identity = "a";
    config.lease_duration = milliseconds(c.lease_ms);
    config.renew_deadline = milliseconds(c.renew_ms);
    config.retry_period = milliseconds(c.retry_ms);
    Status s = ValidateLeaderElectionConfig(config, "leaderElection");
    EXPECT_EQ(s.code(), c.code) << c.name << ": " << s.message();
    if (!c.message.empty()) {
      EXPECT_NE(s.message().find(c.message), std::string::npos) << c.name << ": " << s.message();
    }
  }
}

TEST(LeaderElectionConfigTest, IdentityIsHostnameUnderscoreUuid) {
  std::string a = NewLeaderIdentity();
  EXPECT_TRUE(std::regex_match(
      a, std::regex(R"(.*_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})")))
      << a;
  EXPECT_NE(a, NewLeaderIdentity());
}

}  // namespace
}  // namespace berth::client
