// The Job controller against a real API server in process, one reconcile at
// a time, with a fake clock: the tests play the kubelet by writing pod status.

#include "controllers/job/job_controller.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "controllers/owner_references.h"
#include "job_test_env.h"

namespace berth::controllers {

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

class JobControllerTest : public JobEnv {
 protected:
  JobController& Start() {
    controller_ = std::make_unique<JobController>(Context());
    EXPECT_TRUE(informers_->Start().ok());
    return *controller_;
  }
  // Reconciles until the Job's status stops changing (at most `rounds` times).
  void Converge(const std::string& name, int rounds = 6) {
    for (int i = 0; i < rounds; ++i) {
      auto before = GetJob(name);
      Reconcile(*controller_, "default/" + name);
      if (HasFatalFailure()) return;
      auto after = GetJob(name);
      if (before && after && before->resource_version() == after->resource_version() &&
          Pods().size() == pods_seen_) {
        return;
      }
      pods_seen_ = Pods().size();
    }
  }
  void TearDown() override {
    JobEnv::TearDown();
    controller_.reset();
  }

  std::unique_ptr<JobController> controller_;
  size_t pods_seen_ = 0;
};

TEST_F(JobControllerTest, RunsCompletionsWithAtMostParallelismActive) {
  Start();
  auto job = CreateJob(JobJson("work", R"("completions":5,"parallelism":2)"));
  Converge("work");
  auto pods = ActivePods();
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& p : pods) {
    EXPECT_TRUE(p->name().starts_with("work-")) << p->name();
    EXPECT_EQ(ControllerUid(*p, "Job"), job->uid());
    EXPECT_TRUE(HasFinalizer(*p));
    for (const char* label : {"batch.kubernetes.io/controller-uid", "controller-uid"}) {
      EXPECT_EQ(p->labels().Get(label).value_or(""), job->uid()) << label;
    }
    for (const char* label : {"batch.kubernetes.io/job-name", "job-name"}) {
      EXPECT_EQ(p->labels().Get(label).value_or(""), "work") << label;
    }
    EXPECT_EQ(p->labels().Get("app").value_or(""), "x");
    const auto& ref = api::ArrayAt(api::Metadata(*p), "ownerReferences")->at(0).as_object();
    EXPECT_TRUE(api::BoolAt(&ref, "blockOwnerDeletion"));
    EXPECT_EQ(api::StringAt(ref, "kind"), "Job");
  }
  EXPECT_EQ(api::IntAt(&JobStatus("work"), "active"), 2);
  EXPECT_FALSE(JobStatus("work").at("startTime").as_string().empty());

  // Each round both finish; the last round needs only one more pod.
  const int64_t want_active[] = {2, 1, 0};
  const int64_t want_succeeded[] = {2, 4, 5};
  for (int round = 0; round < 3; ++round) {
    for (const auto& p : ActivePods()) FinishPod(p, "Succeeded");
    Converge("work");
    const auto& status = JobStatus("work");
    EXPECT_EQ(api::IntAt(&status, "succeeded"), want_succeeded[round]) << round;
    EXPECT_EQ(static_cast<int64_t>(ActivePods().size()), want_active[round]) << round;
    EXPECT_EQ(api::IntAt(&status, "active"), want_active[round]) << round;
  }
  const auto& status = JobStatus("work");
  EXPECT_EQ(ConditionOf(status, "SuccessCriteriaMet"),
            "True CompletionsReached: Reached expected number of succeeded pods");
  EXPECT_EQ(ConditionOf(status, "Complete"),
            "True CompletionsReached: Reached expected number of succeeded pods");
  EXPECT_TRUE(status.contains("completionTime"));
  EXPECT_TRUE(api::ObjectAt(status, "uncountedTerminatedPods")->empty());
  EXPECT_EQ(Pods().size(), 5u);
  for (const auto& p : Pods()) EXPECT_FALSE(HasFinalizer(*p)) << p->name();  // counted, released
  auto events = EventsAbout("work");
  EXPECT_EQ(std::count_if(events.begin(), events.end(),
                          [](const std::string& e) {
                            return e.starts_with("Normal SuccessfulCreate: Created pod: work-");
                          }),
            5);
  EXPECT_EQ(std::count(events.begin(), events.end(), "Normal Completed: Job completed"), 1);
}

TEST_F(JobControllerTest, WorkQueueJobStartsNothingAfterTheFirstSuccessAndCompletesWhenAllStop) {
  Start();
  CreateJob(JobJson("queue", R"("parallelism":3)"));  // completions stays unset
  Converge("queue");
  auto pods = ActivePods();
  ASSERT_EQ(pods.size(), 3u);
  FinishPod(pods[0], "Succeeded");
  Converge("queue");
  EXPECT_EQ(ActivePods().size(), 2u);  // not replaced
  EXPECT_EQ(ConditionOf(JobStatus("queue"), "Complete"), "");
  FinishPod(pods[1], "Succeeded");
  FinishPod(pods[2], "Succeeded");
  Converge("queue");
  EXPECT_EQ(api::IntAt(&JobStatus("queue"), "succeeded"), 3);
  EXPECT_EQ(ConditionOf(JobStatus("queue"), "Complete"),
            "True CompletionsReached: Reached expected number of succeeded pods");
}

TEST_F(JobControllerTest, ReplacesFailedPodsAfterDoublingBackoffThenFailsPastBackoffLimit) {
  Start();
  CreateJob(JobJson("flaky", R"("completions":1,"parallelism":1,"backoffLimit":2)"));
  Converge("flaky");
  ASSERT_EQ(ActivePods().size(), 1u);
  // First failure: 10 s; second: 20 s.
  for (auto wait : {10s, 20s}) {
    FinishPod(ActivePods().at(0), "Failed", 1);
    Converge("flaky");
    EXPECT_TRUE(ActivePods().empty());
    clock_.Step(wait - 1s);
    Converge("flaky");
    EXPECT_TRUE(ActivePods().empty()) << "replaced before " << wait.count() << "s";
    clock_.Step(1s);
    Converge("flaky");
    EXPECT_EQ(ActivePods().size(), 1u) << "not replaced after " << wait.count() << "s";
  }
  EXPECT_EQ(api::IntAt(&JobStatus("flaky"), "failed"), 2);
  EXPECT_EQ(ConditionOf(JobStatus("flaky"), "Failed"), "");
  FinishPod(ActivePods().at(0), "Failed", 1);  // the third: past backoffLimit 2
  Converge("flaky");
  const auto& status = JobStatus("flaky");
  EXPECT_EQ(api::IntAt(&status, "failed"), 3);
  EXPECT_EQ(ConditionOf(status, "FailureTarget"),
            "True BackoffLimitExceeded: Job has reached the specified backoff limit");
  EXPECT_EQ(ConditionOf(status, "Failed"),
            "True BackoffLimitExceeded: Job has reached the specified backoff limit");
  EXPECT_FALSE(status.contains("completionTime"));
  auto events = EventsAbout("flaky");
  EXPECT_EQ(std::count(events.begin(), events.end(),
                       "Warning BackoffLimitExceeded: Job has reached the specified backoff limit"),
            1);
}

TEST_F(JobControllerTest, DeadlineFailsTheJobAndDeletesItsActivePods) {
  Start();
  CreateJob(JobJson("slow", R"("completions":4,"parallelism":2,"activeDeadlineSeconds":30)"));
  Converge("slow");
  ASSERT_EQ(ActivePods().size(), 2u);
  clock_.Step(29s);
  Converge("slow");
  EXPECT_EQ(ActivePods().size(), 2u);
  EXPECT_EQ(ConditionOf(JobStatus("slow"), "Failed"), "");
  clock_.Step(1s);
  Converge("slow");
  const auto& status = JobStatus("slow");
  EXPECT_EQ(ConditionOf(status, "Failed"),
            "True DeadlineExceeded: Job was active longer than specified deadline");
  EXPECT_EQ(ConditionOf(status, "FailureTarget"),
            "True DeadlineExceeded: Job was active longer than specified deadline");
  EXPECT_EQ(api::IntAt(&status, "failed"), 2);  // the deleted pods count as failed
  EXPECT_EQ(api::IntAt(&status, "active"), 0);
  EXPECT_TRUE(Pods().empty());
  auto events = EventsAbout("slow");
  EXPECT_EQ(std::count(events.begin(), events.end(),
                       "Warning DeadlineExceeded: Job was active longer than specified deadline"),
            1);
}

TEST_F(JobControllerTest, IndexedJobGivesEachPodItsIndexAndReportsCompletedIndexes) {
  Start();
  CreateJob(JobJson("ix", R"("completions":6,"parallelism":3,"completionMode":"Indexed")"));
  Converge("ix");
  auto by_index = [&] {
    std::map<std::string, api::ObjectPtr> out;
    for (const auto& p : ActivePods()) {
      out[std::string(api::Annotation(*p, "batch.kubernetes.io/job-completion-index"))] = p;
    }
    return out;
  };
  auto pods = by_index();
  ASSERT_EQ(pods.size(), 3u);
  for (const char* ix : {"0", "1", "2"}) {
    ASSERT_TRUE(pods.count(ix)) << ix;
    const auto& p = pods[ix];
    EXPECT_EQ(p->labels().Get("batch.kubernetes.io/job-completion-index").value_or(""), ix);
    EXPECT_EQ(api::StringAt(api::Spec(*p), "hostname"), std::string("ix-") + ix);
    EXPECT_TRUE(p->name().starts_with(std::string("ix-") + ix + "-")) << p->name();
    const auto& env =
        api::ArrayAt(api::ArrayAt(*api::Spec(*p), "containers")->at(0).as_object(), "env")->at(0);
    EXPECT_EQ(api::StringAt(env.as_object(), "name"), "JOB_COMPLETION_INDEX");
  }
  FinishPod(pods["1"], "Succeeded");
  Converge("ix");
  EXPECT_EQ(api::StringAt(JobStatus("ix"), "completedIndexes"), "1");
  pods = by_index();
  EXPECT_EQ(pods.size(), 3u);
  EXPECT_TRUE(pods.count("3"));  // the lowest index neither done nor running
  FinishPod(pods["3"], "Succeeded");
  Converge("ix");
  EXPECT_EQ(api::StringAt(JobStatus("ix"), "completedIndexes"), "1,3");
  pods = by_index();
  FinishPod(pods["0"], "Succeeded");
  FinishPod(pods["4"], "Succeeded");
  Converge("ix");
  EXPECT_EQ(api::StringAt(JobStatus("ix"), "completedIndexes"), "0,1,3,4");
  EXPECT_EQ(api::IntAt(&JobStatus("ix"), "succeeded"), 4);
  for (const auto& [ix, p] : by_index()) FinishPod(p, "Succeeded");
  Converge("ix");
  EXPECT_EQ(api::StringAt(JobStatus("ix"), "completedIndexes"), "0-5");
  EXPECT_EQ(ConditionOf(JobStatus("ix"), "Complete"),
            "True CompletionsReached: Reached expected number of succeeded pods");
}

TEST_F(JobControllerTest, SuspendDeletesActivePodsAndResumeRestartsTheClock) {
  Start();
  CreateJob(JobJson("sus", R"("completions":3,"parallelism":2,"suspend":true)"));
  Converge("sus");
  EXPECT_TRUE(Pods().empty());
  EXPECT_EQ(ConditionOf(JobStatus("sus"), "Suspended"), "True JobSuspended: Job suspended");
  EXPECT_FALSE(JobStatus("sus").contains("startTime"));  // a suspended Job has not started

  SetSpec("sus", "suspend", false);
  Converge("sus");
  EXPECT_EQ(ActivePods().size(), 2u);
  EXPECT_EQ(ConditionOf(JobStatus("sus"), "Suspended"), "False JobResumed: Job resumed");
  const std::string first_start(JobStatus("sus").at("startTime").as_string());

  SetSpec("sus", "suspend", true);
  Converge("sus");
  EXPECT_TRUE(ActivePods().empty());
  EXPECT_EQ(ConditionOf(JobStatus("sus"), "Suspended"), "True JobSuspended: Job suspended");
  EXPECT_EQ(api::IntAt(&JobStatus("sus"), "active"), 0);

  clock_.Step(100s);
  SetSpec("sus", "suspend", false);
  Converge("sus");
  EXPECT_EQ(ActivePods().size(), 2u);
  const std::string second_start(JobStatus("sus").at("startTime").as_string());
  EXPECT_EQ(api::ParseRfc3339(second_start).value() - api::ParseRfc3339(first_start).value(), 100s);
  auto events = EventsAbout("sus");
  EXPECT_EQ(std::count(events.begin(), events.end(), "Normal Suspended: Job suspended"), 2);
  EXPECT_EQ(std::count(events.begin(), events.end(), "Normal Resumed: Job resumed"), 2);
  EXPECT_EQ(std::count_if(events.begin(), events.end(),
                          [](const std::string& e) {
                            return e.starts_with("Normal SuccessfulDelete: Deleted pod: sus-");
                          }),
            2);
}

constexpr char kPolicy[] =
    R"("completions":2,"parallelism":1,"backoffLimit":0,"podFailurePolicy":{"rules":[
    {"action":"FailJob","onExitCodes":{"containerName":"c","operator":"In","values":[42]}},
    {"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]},
    {"action":"Count","onExitCodes":{"operator":"NotIn","values":[0]}}]})";

TEST_F(JobControllerTest, PodFailurePolicyFailJobFailsAtOnceWithKubesMessage) {
  Start();
  CreateJob(
      JobJson("pfp", std::string(kPolicy).replace(std::string(kPolicy).find("\"backoffLimit\":0"),
                                                  16, "\"backoffLimit\":6")));
  Converge("pfp");
  auto pod = ActivePods().at(0);
  FinishPod(pod, "Failed", 42);
  Converge("pfp");
  const std::string message = "Container c for pod default/" + pod->name() +
                              " failed with exit code 42 matching FailJob rule at index 0";
  const auto& status = JobStatus("pfp");
  EXPECT_EQ(ConditionOf(status, "FailureTarget"), "True PodFailurePolicy: " + message);
  EXPECT_EQ(ConditionOf(status, "Failed"), "True PodFailurePolicy: " + message);
  EXPECT_EQ(api::IntAt(&status, "failed"), 1);
}

TEST_F(JobControllerTest, PodFailurePolicyIgnoreDoesNotCountTheFailure) {
  Start();
  CreateJob(JobJson("ign", kPolicy));
  Converge("ign");
  json::array disrupted{json::object{
      {"type", "DisruptionTarget"}, {"status", "True"}, {"reason", "EvictionByEvictionAPI"}}};
  FinishPod(ActivePods().at(0), "Failed", 137, disrupted);
  Converge("ign");
  EXPECT_EQ(api::IntAt(&JobStatus("ign"), "failed"), 0);  // backoffLimit 0, yet not failed
  EXPECT_EQ(ConditionOf(JobStatus("ign"), "Failed"), "");
  clock_.Step(10s);  // the replacement still waits out the failure backoff
  Converge("ign");
  EXPECT_EQ(ActivePods().size(), 1u);
}

TEST_F(JobControllerTest, PodFailurePolicyCountCountsTowardsBackoffLimit) {
  Start();
  CreateJob(JobJson("cnt", kPolicy));
  Converge("cnt");
  FinishPod(ActivePods().at(0), "Failed", 3);
  Converge("cnt");
  EXPECT_EQ(api::IntAt(&JobStatus("cnt"), "failed"), 1);
  EXPECT_EQ(ConditionOf(JobStatus("cnt"), "Failed"),
            "True BackoffLimitExceeded: Job has reached the specified backoff limit");
}

TEST_F(JobControllerTest, CountsEachFinishedPodOnceAcrossRepeatedSyncs) {
  auto& c = Start();
  CreateJob(JobJson("once", R"("completions":3,"parallelism":3)"));
  Converge("once");
  ASSERT_EQ(ActivePods().size(), 3u);
  FinishPod(ActivePods().at(0), "Succeeded");
  for (int i = 0; i < 4; ++i) Reconcile(c, "default/once");
  EXPECT_EQ(api::IntAt(&JobStatus("once"), "succeeded"), 1);
  EXPECT_EQ(Pods().size(), 3u);  // not replaced: two still run for the remaining two completions
}

std::map<std::string, api::ObjectPtr> ActiveByIndex(const std::vector<api::ObjectPtr>& active) {
  std::map<std::string, api::ObjectPtr> out;
  for (const auto& p : active)
    out[std::string(api::Annotation(*p, "batch.kubernetes.io/job-completion-index"))] = p;
  return out;
}

TEST_F(JobControllerTest, BackoffLimitPerIndexCarriesTheCountToReplacementsAndFailsTheIndex) {
  Start();
  CreateJob(JobJson(
      "pi",
      R"("completions":3,"parallelism":3,"completionMode":"Indexed","backoffLimitPerIndex":1)"));
  Converge("pi");
  auto pods = ActiveByIndex(ActivePods());
  ASSERT_EQ(pods.size(), 3u);
  for (const auto& [ix, p] : pods) {
    EXPECT_EQ(api::Annotation(*p, "batch.kubernetes.io/job-index-failure-count"), "0") << ix;
  }
  const std::string first_failed = pods["0"]->name();
  FinishPod(pods["0"], "Failed", 1);
  Converge("pi");
  EXPECT_EQ(api::IntAt(&JobStatus("pi"), "failed"), 0);  // counted when its finalizer comes off
  EXPECT_EQ(api::StringAt(JobStatus("pi"), "failedIndexes"), "");
  EXPECT_FALSE(ActiveByIndex(ActivePods()).count("0"));  // the index's own backoff: 10 s
  // The failed pod keeps its finalizer until its replacement exists.
  auto held = client_->Get(api::Kind::kPod, "default", first_failed);
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(HasFinalizer(*held.value()));

  clock_.Step(10s);
  Converge("pi");
  pods = ActiveByIndex(ActivePods());
  ASSERT_TRUE(pods.count("0"));
  EXPECT_EQ(api::Annotation(*pods["0"], "batch.kubernetes.io/job-index-failure-count"), "1");
  Converge("pi");
  held = client_->Get(api::Kind::kPod, "default", first_failed);
  EXPECT_TRUE(!held.ok() || !HasFinalizer(*held.value()));  // released once replaced
  EXPECT_EQ(api::IntAt(&JobStatus("pi"), "failed"), 1);

  FinishPod(pods["0"], "Failed", 1);  // at the limit: index 0 fails
  Converge("pi");
  EXPECT_EQ(api::StringAt(JobStatus("pi"), "failedIndexes"), "0");
  clock_.Step(1h);
  Converge("pi");
  EXPECT_FALSE(ActiveByIndex(ActivePods()).count("0"));   // never run again
  EXPECT_EQ(ConditionOf(JobStatus("pi"), "Failed"), "");  // the other indexes still run
  FinishPod(pods["1"], "Succeeded");
  FinishPod(pods["2"], "Succeeded");
  Converge("pi");
  const auto& status = JobStatus("pi");
  EXPECT_EQ(api::StringAt(status, "completedIndexes"), "1,2");
  EXPECT_EQ(api::IntAt(&status, "failed"), 2);
  EXPECT_EQ(ConditionOf(status, "Failed"), "True FailedIndexes: Job has failed indexes");
}

TEST_F(JobControllerTest, FailIndexRulePastMaxFailedIndexesFailsTheJob) {
  Start();
  CreateJob(JobJson(
      "fi", R"("completions":2,"parallelism":2,"completionMode":"Indexed","backoffLimitPerIndex":3,
      "maxFailedIndexes":0,"podFailurePolicy":{"rules":[
        {"action":"FailIndex","onExitCodes":{"operator":"In","values":[42]}}]})"));
  Converge("fi");
  auto pods = ActiveByIndex(ActivePods());
  ASSERT_EQ(pods.size(), 2u);
  FinishPod(pods["1"], "Failed", 42);
  Converge("fi");
  const auto& status = JobStatus("fi");
  EXPECT_EQ(api::StringAt(status, "failedIndexes"), "1");
  EXPECT_EQ(ConditionOf(status, "Failed"),
            "True MaxFailedIndexesExceeded: Job has exceeded the specified maximal number of "
            "failed indexes");
  EXPECT_TRUE(ActivePods().empty());  // index 0's pod was deleted
}

}  // namespace
}  // namespace berth::controllers
