#include "client/leader_election.h"

#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>

#include "api/json_fields.h"
#include "api/time/duration.h"
#include "api/time/rfc3339.h"

namespace berth::client {

namespace json = boost::json;

namespace {

// client-go's wait.JitterUntil factor for the followers' tries.
constexpr double kJitterFactor = 1.2;

std::string Quoted(std::chrono::milliseconds d) { return "\"" + api::FormatGoDuration(d) + "\""; }

void Log(const std::string& line) {
  std::fprintf(stderr, "leader election: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config,
                                    const std::string& field_path) {
  std::vector<StatusCause> causes;
  auto invalid = [&](const char* field, std::chrono::milliseconds value, const char* message) {
    std::string path = field_path + "." + field;
    std::string body = "Invalid value: " + Quoted(value) + ": " + message;
    causes.push_back({"FieldValueInvalid", body, path});
  };
  auto required = [&](const char* field) {
    causes.push_back({"FieldValueRequired", "Required value", field_path + "." + field});
  };
  if (config.lease_duration.count() <= 0)
    invalid("leaseDuration", config.lease_duration, "must be greater than zero");
  if (config.renew_deadline.count() <= 0)
    invalid("renewDeadline", config.renew_deadline, "must be greater than zero");
  if (config.retry_period.count() <= 0)
    invalid("retryPeriod", config.retry_period, "must be greater than zero");
  // kube prints the renew deadline here, under the lease duration's path.
  if (config.lease_duration <= config.renew_deadline) {
    invalid("leaseDuration", config.renew_deadline, "must be greater than `RenewDeadline`");
  }
  if (config.lock_namespace.empty()) required("resourceNamespace");
  if (config.lock_name.empty()) required("resourceName");
  if (!causes.empty()) {
    std::string message;
    for (const auto& c : causes)
      message += (message.empty() ? "" : ", ") + c.field + ": " + c.message;
    if (causes.size() > 1) message = "[" + message + "]";
    return Status::Invalid(std::move(message), std::move(causes));
  }
  // client-go's NewLeaderElector.
  if (config.renew_deadline.count() <=
      kJitterFactor * static_cast<double>(config.retry_period.count())) {
    return Status::BadRequest("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (config.identity.empty()) return Status::BadRequest("Lock identity is empty");
  return Status::Ok();
}

std::string NewLeaderIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device device;
  std::mt19937_64 rng((static_cast<uint64_t>(device()) << 32) ^ device());
  uint64_t hi = (rng() & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  uint64_t lo = (rng() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char uuid[40];
  std::snprintf(uuid, sizeof uuid, "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff),
                static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return std::string(host) + "_" + uuid;
}

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(LeaderElectionConfig config,
                                                             Transport transport,
                                                             LeaderCallbacks callbacks,
                                                             Options options) {
  if (Status s = ValidateLeaderElectionConfig(config, "leaderElection"); !s.ok()) return s;
  if (config.name.empty()) config.name = config.lock_name;
  return std::unique_ptr<LeaderElector>(
      new LeaderElector(std::move(config), std::move(transport), std::move(callbacks), options));
}

LeaderElector::LeaderElector(LeaderElectionConfig config, Transport transport,
                             LeaderCallbacks callbacks, Options options)
    : config_(std::move(config)),
      client_(std::move(transport)),
      callbacks_(std::move(callbacks)),
      clock_(options.clock ? *options.clock : api::RealClock::Instance()),
      options_(options),
      rng_(options.seed ? options.seed : std::random_device{}()) {
  if (options_.registry) {
    master_status_ =
        &options_.registry
             ->AddGauge(
                 "leader_election_master_status",
                 "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
                 "backup, 1 indicates master. 'name' is the string used to identify the lease. "
                 "Please make sure to group by name.",
                 {"name"})
             .WithLabels({config_.name});
    master_status_->Set(0);
  }
}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Start() {
  Log("attempting to acquire leader lease " + Describe() + "...");
  std::lock_guard lock(alarm_mu_);
  if (stopped_ || alarm_) return;
  alarm_ = clock_.NewAlarm([this] { Fire(); });
  alarm_->Set(clock_.Now());
}

void LeaderElector::Fire() {
  std::chrono::nanoseconds next = Step();
  std::lock_guard lock(alarm_mu_);
  if (alarm_) alarm_->Set(clock_.Now() + next);
}

std::chrono::nanoseconds LeaderElector::Step() {
  const api::Clock::time_point start = clock_.Now();
  bool leading;
  api::Clock::time_point deadline;
  {
    std::lock_guard lock(mu_);
    leading = leading_;
    deadline = renewed_at_ + config_.renew_deadline;
  }
  if (leading && start >= deadline) {
    StopLeading("failed to renew lease " + Describe() + ": timed out waiting for the condition");
    return NextTryAsFollower();
  }
  bool ok = TryAcquireOrRenew();
  MaybeReportTransition();
  if (!leading) {
    if (!ok) return NextTryAsFollower();
    StartLeading(start);
    return config_.retry_period;
  }
  if (ok && clock_.Now() < deadline) {
    std::lock_guard lock(mu_);
    renewed_at_ = start;
    return config_.retry_period;
  }
  if (ok) {
    StopLeading("renewed lease " + Describe() + " only after the renew deadline");
    return NextTryAsFollower();
  }
  if (!IsLeader()) {
    StopLeading("lease " + Describe() + " is held by " + GetLeader());
    return NextTryAsFollower();
  }
  // Try again within the deadline; the next step stops leading once it passed.
  return std::max<std::chrono::nanoseconds>(
      std::chrono::nanoseconds(0),
      std::min<std::chrono::nanoseconds>(config_.retry_period, deadline - clock_.Now()));
}

std::chrono::nanoseconds LeaderElector::NextTryAsFollower() {
  std::uniform_real_distribution<double> jitter(0.0, kJitterFactor);
  auto next = std::chrono::duration_cast<std::chrono::nanoseconds>(config_.retry_period *
                                                                   (1.0 + jitter(rng_)));
  std::lock_guard lock(mu_);
  if (!observed_.holder.empty() && !IsLeaderLocked()) {
    // The moment the observed lease expires, if that comes first.
    auto expires = observed_at_ + std::chrono::seconds(observed_.lease_duration_seconds);
    auto now = clock_.Now();
    if (expires > now) next = std::min<std::chrono::nanoseconds>(next, expires - now);
  }
  return next;
}

void LeaderElector::StartLeading(api::Clock::time_point renewed_at) {
  {
    std::lock_guard lock(mu_);
    leading_ = true;
    renewed_at_ = renewed_at;
  }
  if (master_status_) master_status_->Set(1);
  if (options_.recorder && lease_) {
    options_.recorder->Event(*lease_, "Normal", "LeaderElection",
                             config_.identity + " became leader");
  }
  Log("successfully acquired lease " + Describe());
  if (callbacks_.on_started_leading) callbacks_.on_started_leading();
}

void LeaderElector::StopLeading(const std::string& why) {
  {
    std::lock_guard lock(mu_);
    if (!leading_) return;
    leading_ = false;
  }
  if (master_status_) master_status_->Set(0);
  if (options_.recorder && lease_) {
    options_.recorder->Event(*lease_, "Normal", "LeaderElection",
                             config_.identity + " stopped leading");
  }
  Log("stopped leading: " + why);
  if (callbacks_.on_stopped_leading) callbacks_.on_stopped_leading();
}

void LeaderElector::Stop() {
  std::unique_ptr<api::Clock::Alarm> alarm;
  {
    std::lock_guard lock(alarm_mu_);
    if (stopped_) return;
    stopped_ = true;
    alarm = std::move(alarm_);
  }
  alarm.reset();  // waits for a try under way
  StopLeading("the election was stopped");
  if (config_.release_on_cancel && lease_) Release();
}

bool LeaderElector::HoldsLease() const {
  std::lock_guard lock(mu_);
  return leading_ && IsLeaderLocked() && clock_.Now() < renewed_at_ + config_.renew_deadline;
}

bool LeaderElector::IsLeader() const {
  std::lock_guard lock(mu_);
  return IsLeaderLocked();
}

std::string LeaderElector::GetLeader() const {
  std::lock_guard lock(mu_);
  return observed_.holder;
}

bool LeaderElector::LeaseValidLocked(api::Clock::time_point now) const {
  return observed_at_ + std::chrono::seconds(observed_.lease_duration_seconds) > now;
}

void LeaderElector::SetObserved(Record record, int64_t version) {
  std::lock_guard lock(mu_);
  observed_ = std::move(record);
  observed_version_ = version;
  observed_at_ = clock_.Now();
}

void LeaderElector::Observe(const api::Object& lease) {
  if (lease.kind() != api::Kind::kLease || lease.name() != config_.lock_name ||
      lease.namespace_name() != config_.lock_namespace) {
    return;
  }
  Record record = RecordOf(lease);
  std::lock_guard lock(mu_);
  if (lease.resource_version() <= observed_version_ || record == observed_) return;
  observed_ = std::move(record);
  observed_version_ = lease.resource_version();
  observed_at_ = clock_.Now();
}

LeaderElector::Record LeaderElector::RecordOf(const api::Object& lease) {
  const json::object* spec = api::Spec(lease);
  Record r;
  r.holder = std::string(api::StringAt(spec, "holderIdentity"));
  r.lease_duration_seconds = api::IntAt(spec, "leaseDurationSeconds");
  r.acquire_time = std::string(api::StringAt(spec, "acquireTime"));
  r.renew_time = std::string(api::StringAt(spec, "renewTime"));
  r.transitions = api::IntAt(spec, "leaseTransitions");
  return r;
}

json::object LeaderElector::LeaseWith(const Record& record) const {
  json::object lease =
      lease_ ? lease_->json()
             : json::object{{"metadata", json::object{{"name", config_.lock_name},
                                                      {"namespace", config_.lock_namespace}}}};
  // The whole spec, as client-go's LeaseLock writes it.
  lease["spec"] = json::object{{"holderIdentity", record.holder},
                               {"leaseDurationSeconds", record.lease_duration_seconds},
                               {"acquireTime", record.acquire_time},
                               {"renewTime", record.renew_time},
                               {"leaseTransitions", record.transitions}};
  return lease;
}

bool LeaderElector::TryAcquireOrRenew() {
  const api::Clock::time_point now = clock_.Now();
  const std::string wall = api::FormatMicroTime(clock_.WallNow());
  Record desired;
  desired.holder = config_.identity;
  desired.lease_duration_seconds =
      std::chrono::ceil<std::chrono::seconds>(config_.lease_duration).count();
  desired.acquire_time = desired.renew_time = wall;

  // 1. The leader's fast path: the record it wrote last is presumably still current.
  Record observed;
  bool fast;
  {
    std::lock_guard lock(mu_);
    observed = observed_;
    fast = IsLeaderLocked() && LeaseValidLocked(now) && lease_;
  }
  if (fast) {
    desired.acquire_time = observed.acquire_time;
    desired.transitions = observed.transitions;
    auto updated = client_.Update(api::Kind::kLease, LeaseWith(desired));
    if (updated.ok()) {
      lease_ = std::move(updated).value();
      SetObserved(desired, lease_->resource_version());
      return true;
    }
    Log("Failed to update lock optimistically: " + updated.status().message() +
        ", falling back to slow path");
  }

  // 2. Read the record, or create it.
  auto got = client_.Get(api::Kind::kLease, config_.lock_namespace, config_.lock_name);
  if (!got.ok()) {
    if (got.status().code() != StatusCode::kNotFound) {
      Log("error retrieving resource lock " + Describe() + ": " + got.status().message());
      return false;
    }
    lease_ = nullptr;
    auto created = client_.Create(api::Kind::kLease, config_.lock_namespace, LeaseWith(desired));
    if (!created.ok()) {
      Log("error initially creating leader election record: " + created.status().message());
      return false;
    }
    lease_ = std::move(created).value();
    SetObserved(desired, lease_->resource_version());
    return true;
  }
  lease_ = std::move(got).value();
  Record current = RecordOf(*lease_);

  // 3. The record changed since last seen: its expiry counts from now.
  bool held_elsewhere;
  bool leader;
  {
    std::lock_guard lock(mu_);
    if (lease_->resource_version() >= observed_version_ && !(current == observed_)) {
      observed_ = current;
      observed_at_ = clock_.Now();
    }
    observed_version_ = std::max(observed_version_, lease_->resource_version());
    leader = IsLeaderLocked();
    held_elsewhere = !current.holder.empty() && LeaseValidLocked(now) && !leader;
  }
  if (held_elsewhere) return false;

  // 4. Take or renew it.
  if (leader) {
    desired.acquire_time = current.acquire_time;
    desired.transitions = current.transitions;
  } else {
    desired.transitions = current.transitions + 1;
  }
  auto updated = client_.Update(api::Kind::kLease, LeaseWith(desired));
  if (!updated.ok()) {
    Log("Failed to update lock: " + updated.status().message());
    return false;
  }
  lease_ = std::move(updated).value();
  SetObserved(desired, lease_->resource_version());
  return true;
}

bool LeaderElector::Release() {
  if (!IsLeader()) return true;
  const std::string wall = api::FormatMicroTime(clock_.WallNow());
  Record released;
  released.lease_duration_seconds = 1;
  released.acquire_time = released.renew_time = wall;
  {
    std::lock_guard lock(mu_);
    released.transitions = observed_.transitions;
  }
  auto updated = client_.Update(api::Kind::kLease, LeaseWith(released));
  if (!updated.ok()) {
    Log("Failed to release lock: " + updated.status().message());
    return false;
  }
  lease_ = std::move(updated).value();
  SetObserved(released, lease_->resource_version());
  return true;
}

void LeaderElector::MaybeReportTransition() {
  std::string holder = GetLeader();
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  if (callbacks_.on_new_leader) callbacks_.on_new_leader(holder);
}

Transport LeaderOnlyTransport(Transport inner, const LeaderElector& elector) {
  return [inner = std::move(inner), &elector](
             const std::string& method, const std::string& target, const std::string& body,
             const std::string& content_type) -> Result<RestResponse> {
    if (method != "GET" && !elector.HoldsLease()) {
      return Status::Unavailable("not the leader of " + elector.Describe() + ": " + method + " " +
                                 target + " refused");
    }
    return inner(method, target, body, content_type);
  };
}

}  // namespace berth::client
