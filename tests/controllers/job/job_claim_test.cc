// Which pods a Job counts and which keep its tracking finalizer, as kube's
// job controller decides: matching orphans are adopted, pods whose labels
// stop matching are released (kube's "should adopt matching orphans and
// release non-matching pods"), and a deleted Job's pods lose the finalizer,
// so a namespace being deleted is not held by them.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <thread>

#include "controllers/job/job_controller.h"
#include "controllers/owner_references.h"
#include "job_test_env.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

class JobClaimTest : public JobEnv {
 protected:
  JobController& Start() {
    controller_ = std::make_unique<JobController>(Context());
    EXPECT_TRUE(informers_->Start().ok());
    return *controller_;
  }
  // The workers stop while the controller is whole (they call its Reconcile).
  void TearDown() override {
    JobEnv::TearDown();
    if (controller_) controller_->Stop();
    controller_.reset();
  }
  // Reconciles the Job `rounds` times (enough for its pods to be created).
  void Converge(const std::string& name, int rounds = 4) {
    for (int i = 0; i < rounds && !HasFatalFailure(); ++i)
      Reconcile(*controller_, "default/" + name);
  }
  api::ObjectPtr GetPod(const std::string& name) {
    auto pod = client_->Get(api::Kind::kPod, "default", name);
    return pod.ok() ? pod.value() : nullptr;
  }
  // Writes the pod with `edit` applied to its metadata, as a user's update would.
  void EditPod(const std::string& name, const std::function<void(json::object&)>& edit) {
    api::ObjectPtr pod = GetPod(name);
    ASSERT_TRUE(pod);
    json::object o = pod->json();
    json::object& meta = api::MutableObject(o, "metadata");
    meta["resourceVersion"] = std::to_string(pod->resource_version());
    edit(meta);
    auto written = client_->Update(api::Kind::kPod, o);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
  // The pods `job` controls that are still running.
  std::vector<api::ObjectPtr> ActivePodsOf(const api::Object& job) {
    std::vector<api::ObjectPtr> out;
    for (const auto& p : ActivePods()) {
      if (ControllerUid(*p, "Job") == job.uid()) out.push_back(p);
    }
    return out;
  }

  std::unique_ptr<JobController> controller_;
};

TEST_F(JobClaimTest, AdoptsAMatchingOrphanAndReleasesAPodWhoseLabelsStopMatching) {
  Start();
  auto job = CreateJob(JobJson("adopt", R"("completions":4,"parallelism":2)"));
  Converge("adopt");
  ASSERT_EQ(ActivePodsOf(*job).size(), 2u);
  const std::string name = ActivePodsOf(*job).at(0)->name();

  // Orphaned by hand (no ownerReferences), and without the finalizer the
  // orphan-pod cleanup would have taken off meanwhile.
  EditPod(name, [](json::object& meta) {
    meta["ownerReferences"] = json::array();
    meta.erase("finalizers");
  });
  Reconcile(*controller_, "default/adopt");
  api::ObjectPtr pod = GetPod(name);
  ASSERT_TRUE(pod);
  EXPECT_EQ(ControllerUid(*pod, "Job"), job->uid()) << "the matching orphan is adopted";
  EXPECT_TRUE(HasFinalizer(*pod)) << "adopted with the tracking finalizer, so it is counted";
  EXPECT_EQ(Pods().size(), 2u) << "the adopted pod counts as active: no replacement";

  // Its labels gone, the Job's selector no longer matches it.
  EditPod(name, [](json::object& meta) { meta["labels"] = json::object(); });
  Reconcile(*controller_, "default/adopt");
  pod = GetPod(name);
  ASSERT_TRUE(pod);
  EXPECT_FALSE(HasControllerRef(*pod)) << "released";
  EXPECT_FALSE(HasFinalizer(*pod)) << "released with the tracking finalizer";
  Reconcile(*controller_, "default/adopt");
  EXPECT_EQ(ActivePodsOf(*job).size(), 2u) << "the released pod is replaced";
  EXPECT_EQ(Pods().size(), 3u);
}

TEST_F(JobClaimTest, ASelectorOfItsOwnAdoptsPodsItDidNotCreate) {
  Start();
  auto job = CreateJob(JobJson("manual", R"("completions":1,"parallelism":1,"manualSelector":true,
    "selector":{"matchLabels":{"app":"x"}})"));
  ASSERT_TRUE(job);
  auto orphan = client_->Create(api::Kind::kPod, "default",
                                json::parse(R"({"metadata":{"name":"stray",
    "labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}})")
                                    .as_object());
  ASSERT_TRUE(orphan.ok()) << orphan.status().message();
  Converge("manual");
  api::ObjectPtr pod = GetPod("stray");
  ASSERT_TRUE(pod);
  EXPECT_EQ(ControllerUid(*pod, "Job"), job->uid());
  EXPECT_TRUE(HasFinalizer(*pod));
  EXPECT_EQ(Pods().size(), 1u) << "parallelism 1, met by the adopted pod";
}

TEST_F(JobClaimTest, ADeletedJobsPodsLoseTheirTrackingFinalizer) {
  Start();
  CreateJob(JobJson("gone", R"("completions":2,"parallelism":2)"));
  Converge("gone");
  ASSERT_EQ(ActivePods().size(), 2u);
  for (const auto& p : Pods()) ASSERT_TRUE(HasFinalizer(*p)) << p->name();
  // The handlers alone must bring the deletion in: no reconcile of the Job
  // is called from here on.
  controller_->Run();
  ASSERT_TRUE(
      client_->Delete(api::Kind::kJob, "default", "gone", {.propagation_policy = "Background"})
          .ok());
  auto finalizers_left = [&] {
    size_t left = 0;
    for (const auto& p : Pods()) left += HasFinalizer(*p) ? 1 : 0;
    return left;
  };
  for (int i = 0; i < 5000 && finalizers_left() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(finalizers_left(), 0u) << "a deleted Job's pods would hold their namespace";
  EXPECT_EQ(Pods().size(), 2u) << "the pods themselves are the garbage collector's";
}

}  // namespace
}  // namespace berth::controllers
