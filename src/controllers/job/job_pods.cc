// The Job controller's pod writes: creating pods from the template (slow
// start), deleting them (surplus, suspension, a failing Job) and removing
// the tracking finalizer.

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <thread>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "controllers/job/job_sync.h"
#include "controllers/owner_references.h"
#include "controllers/parallel.h"
#include "controllers/replicaset/replicaset_controller.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

// Pod creates and deletes in flight at once (kube's slow-start batches go
// out in parallel too).
constexpr int64_t kWriteParallelism = 16;

// The pod every creation starts from: the template with the Job's labels,
// controller reference and tracking finalizer.
json::object PodFromTemplate(const api::Object& job, bool indexed) {
  const json::object* tmpl = api::ObjectAt(api::Spec(job), "template");
  json::object meta =
      api::ObjectAt(tmpl, "metadata") ? *api::ObjectAt(tmpl, "metadata") : json::object();
  meta.erase("name");
  meta.erase("namespace");
  meta["generateName"] = job.name() + "-";
  // kube's API server puts these labels on the template when the Job is
  // created; berth's does not, so every pod gets them here.
  json::object& labels = api::MutableObject(meta, "labels");
  labels[job::kControllerUidLabel] = job.uid();
  labels[job::kJobNameLabel] = job.name();
  labels[job::kLegacyControllerUidLabel] = job.uid();
  labels[job::kLegacyJobNameLabel] = job.name();
  json::array& finalizers = api::MutableArray(meta, "finalizers");
  if (std::find(finalizers.begin(), finalizers.end(), json::value(job::kTrackingFinalizer)) ==
      finalizers.end()) {
    finalizers.emplace_back(job::kTrackingFinalizer);
  }
  meta["ownerReferences"] = json::array{ControllerRef(job)};
  json::object pod;
  pod["metadata"] = std::move(meta);
  pod["spec"] = api::ObjectAt(tmpl, "spec") ? *api::ObjectAt(tmpl, "spec") : json::object();
  if (indexed) {
    // JOB_COMPLETION_INDEX in every container that does not set it, from the
    // pod's index label (kube's PodIndexLabel, on by default since 1.28).
    json::object& spec = pod["spec"].as_object();
    for (const char* list : {"containers", "initContainers"}) {
      auto it = spec.find(list);
      if (it == spec.end() || !it->value().is_array()) continue;
      for (auto& c : it->value().get_array()) {
        if (!c.is_object()) continue;
        json::array& env = api::MutableArray(c.get_object(), "env");
        bool present = false;
        for (const auto& e : env)
          present = present || (e.is_object() &&
                                api::StringAt(e.get_object(), "name") == "JOB_COMPLETION_INDEX");
        if (present) continue;
        env.push_back(json::object{
            {"name", "JOB_COMPLETION_INDEX"},
            {"valueFrom",
             json::object{
                 {"fieldRef",
                  json::object{{"apiVersion", "v1"},
                               {"fieldPath", std::string("metadata.labels['") +
                                                 job::kCompletionIndexAnnotation + "']"}}}}}});
      }
    }
  }
  return pod;
}

void SetIndex(json::object& pod, const std::string& job_name, int64_t index) {
  const std::string ix = std::to_string(index);
  json::object& meta = pod["metadata"].as_object();
  api::MutableObject(meta, "annotations")[job::kCompletionIndexAnnotation] = ix;
  api::MutableObject(meta, "labels")[job::kCompletionIndexAnnotation] = ix;
  meta["generateName"] = job_name + "-" + ix + "-";
  pod["spec"].as_object()["hostname"] = job_name + "-" + ix;
}

// kube's activePodsForRemoval: for Indexed Jobs pods without a valid index
// and all but one pod per index first, then the cheapest pods.
std::vector<api::ObjectPtr> ActivePodsForRemoval(const JobController::Sync& s, int64_t at_least);

}  // namespace

namespace job {

bool HasTrackingFinalizer(const api::Object& pod) {
  const json::array* finalizers = api::ArrayAt(api::Metadata(pod), "finalizers");
  if (!finalizers) return false;
  for (const auto& f : *finalizers) {
    if (f.is_string() && f.get_string() == kTrackingFinalizer) return true;
  }
  return false;
}


bool IsPodFailed(const api::Object& pod, bool only_replace_failed) {
  const std::string_view phase = api::StringAt(api::StatusOf(pod), "phase");
  if (phase == "Failed") return true;
  if (only_replace_failed) return false;
  return api::BeingDeleted(pod) && phase != "Succeeded";
}

}  // namespace job

namespace {

std::vector<api::ObjectPtr> ActivePodsForRemoval(const JobController::Sync& s, int64_t at_least) {
  std::vector<api::ObjectPtr> remove, left;
  if (s.indexed) {
    std::map<int64_t, std::vector<api::ObjectPtr>> by_index;
    for (const auto& pod : s.active) {
      auto ix = job::CompletionIndex(*pod);
      if (!ix || *ix >= s.completions.value_or(0)) {
        remove.push_back(pod);
      } else {
        by_index[*ix].push_back(pod);
      }
    }
    for (auto& [ix, pods] : by_index) {
      // Keep the pod that would be deleted last.
      auto ranked = ReplicaSetController::RankForDeletion(pods);
      remove.insert(remove.end(), ranked.begin(), ranked.end() - 1);
      left.push_back(ranked.back());
    }
  } else {
    left = s.active;
  }
  if (static_cast<int64_t>(remove.size()) < at_least) {
    auto ranked = ReplicaSetController::RankForDeletion(left);
    const size_t more = std::min(ranked.size(), static_cast<size_t>(at_least) - remove.size());
    remove.insert(remove.end(), ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(more));
  }
  return remove;
}

}  // namespace

Status JobController::RemoveFinalizer(const api::Object& pod) {
  const json::array* finalizers = api::ArrayAt(api::Metadata(pod), "finalizers");
  if (!finalizers) return Status::Ok();
  for (size_t i = 0; i < finalizers->size(); ++i) {
    if (!(*finalizers)[i].is_string() || (*finalizers)[i].get_string() != job::kTrackingFinalizer)
      continue;
    // test guards the position against a concurrent change of the list.
    const std::string path = "/metadata/finalizers/" + std::to_string(i);
    json::array patch{
        json::object{{"op", "test"}, {"path", path}, {"value", job::kTrackingFinalizer}},
        json::object{{"op", "remove"}, {"path", path}}};
    auto patched = client_.Patch(api::Kind::kPod, pod.namespace_name(), pod.name(),
                                 json::serialize(patch), "application/json-patch+json");
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) return patched.status();
    return Status::Ok();
  }
  return Status::Ok();
}

int64_t JobController::DeletePods(Sync& s, const std::vector<api::ObjectPtr>& pods,
                                  bool remove_finalizer, Status& error) {
  std::atomic<int64_t> ready{0};
  auto [failed, first] = ParallelFor(static_cast<int64_t>(pods.size()), kWriteParallelism, [&](int64_t i) {
    const api::Object& pod = *pods[static_cast<size_t>(i)];
    Status st = remove_finalizer ? RemoveFinalizer(pod) : Status::Ok();
    if (st.ok()) {
      st = client_.Delete(api::Kind::kPod, pod.namespace_name(), pod.name(),
                          {.uid_precondition = pod.uid()});
    }
    if (st.ok() || st.code() == StatusCode::kNotFound) {
      if (st.ok())
        events_.Event(*s.job, "Normal", "SuccessfulDelete", "Deleted pod: " + pod.name());
      if (api::IsPodReady(pod)) ++ready;
      return Status::Ok();
    }
    if (remove_finalizer)
      expectations_.DeletionObserved(s.key, client::ObjectKey(pod));  // never observed
    events_.Event(*s.job, "Warning", "FailedDelete", "Error deleting: " + st.message());
    return st;
  });
  if (failed > 0) error = first;
  s.ready -= ready.load();
  return static_cast<int64_t>(pods.size()) - failed;
}

Status JobController::CreatePods(Sync& s, int64_t count) {
  std::vector<int64_t> indexes;
  if (s.indexed) {
    // Indexes with a running pod, or (when only failed pods are replaced) a terminating one.
    job::IndexSet active_indexes;
    for (const auto& pod : s.pods) {
      const std::string_view phase = api::StringAt(api::StatusOf(*pod), "phase");
      const bool terminating = api::BeingDeleted(*pod) && phase != "Succeeded" && phase != "Failed";
      if (!api::IsPodActive(*pod) && !(s.only_replace_failed && terminating)) continue;
      if (auto ix = job::CompletionIndex(*pod)) active_indexes.Add(*ix);
    }
    indexes = job::FirstPendingIndexes(*s.completions, count,
                                       {&s.succeeded_indexes, &active_indexes, &s.failed_indexes});
    if (s.per_index) {
      // Each index waits out its own backoff; when none may start, come back for the nearest.
      std::vector<int64_t> ready;
      std::optional<std::chrono::nanoseconds> soonest;
      for (int64_t ix : indexes) {
        auto wait = job::IndexBackoff(s, ix, s.wall_now);
        if (wait.count() == 0) {
          ready.push_back(ix);
        } else if (!soonest || wait < *soonest) {
          soonest = wait;
        }
      }
      if (ready.empty() && soonest) {
        EnqueueAfter(s.key,
                     std::max<std::chrono::milliseconds>(
                         std::chrono::ceil<std::chrono::milliseconds>(*soonest), kSyncBatchPeriod));
      }
      indexes = std::move(ready);
    }
    count = static_cast<int64_t>(indexes.size());
  }
  if (count <= 0) return Status::Ok();
  expectations_.ExpectCreations(s.key, static_cast<int>(count));
  const json::object base = PodFromTemplate(*s.job, s.indexed);
  // Slow start: batches of 1, 2, 4, ...; a batch with a failure ends the sync.
  int64_t done = 0;
  Status first;
  for (int64_t batch = 1; done < count; batch *= 2) {
    const int64_t n = std::min(batch, count - done);
    auto [failed, error] = ParallelFor(n, kWriteParallelism, [&](int64_t i) {
      json::object pod = base;
      if (s.indexed) {
        const int64_t ix = indexes[static_cast<size_t>(done + i)];
        SetIndex(pod, s.job->name(), ix);
        if (s.per_index)
          job::AddIndexFailureCounts(
              s, ix, api::MutableObject(pod["metadata"].as_object(), "annotations"));
      }
      auto created = client_.Create(api::Kind::kPod, s.job->namespace_name(), std::move(pod));
      if (!created.ok()) {
        expectations_.CreationObserved(s.key);  // it will never be observed
        events_.Event(*s.job, "Warning", "FailedCreate",
                      "Error creating: " + created.status().message());
        return created.status();
      }
      events_.Event(*s.job, "Normal", "SuccessfulCreate",
                    "Created pod: " + created.value()->name());
      return Status::Ok();
    });
    done += n;
    s.active_count += n - failed;
    if (failed > 0) {
      first = error;
      break;
    }
  }
  for (int64_t i = done; i < count; ++i) expectations_.CreationObserved(s.key);  // never attempted
  return first;
}

Status JobController::ManagePods(Sync& s) {
  Status error;
  if (s.suspended) {
    std::unordered_set<std::string> keys;
    for (const auto& pod : s.active) keys.insert(client::ObjectKey(*pod));
    expectations_.ExpectDeletions(s.key, keys);
    const int64_t removed = DeletePods(s, s.active, /*remove_finalizer=*/true, error);
    s.active_count -= removed;
    s.terminating += removed;
    return error;
  }
  int64_t want;
  if (!s.completions) {
    // Work queue: once one pod succeeded, the rest finish on their own.
    want = s.succeeded > 0 ? s.active_count : s.parallelism;
  } else {
    want = std::clamp<int64_t>(*s.completions - s.succeeded, 0, s.parallelism);
  }
  auto remove = ActivePodsForRemoval(s, std::max<int64_t>(0, s.active_count - want));
  if (remove.size() > static_cast<size_t>(kMaxPodCreateDeletePerSync))
    remove.resize(kMaxPodCreateDeletePerSync);
  if (!remove.empty()) {
    // Deleting and creating in one sync is never needed together: deletions first.
    std::unordered_set<std::string> keys;
    for (const auto& pod : remove) keys.insert(client::ObjectKey(*pod));
    expectations_.ExpectDeletions(s.key, keys);
    const int64_t removed = DeletePods(s, remove, /*remove_finalizer=*/true, error);
    s.active_count -= removed;
    s.terminating += removed;
    return error;
  }
  const int64_t diff = want - (s.only_replace_failed ? s.terminating : 0) - s.active_count;
  if (diff <= 0) return Status::Ok();
  // With backoffLimitPerIndex each index has its own backoff (CreatePods) instead.
  if (auto wait =
          s.per_index ? std::chrono::nanoseconds(0) : job::RemainingBackoff(s.backoff, s.wall_now);
      wait.count() > 0) {
    EnqueueAfter(s.key, std::max<std::chrono::milliseconds>(
                            std::chrono::ceil<std::chrono::milliseconds>(wait), kSyncBatchPeriod));
    return Status::Ok();
  }
  const int64_t count = std::min<int64_t>(diff, kMaxPodCreateDeletePerSync);
  Status created = CreatePods(s, count);
  // More to create than one sync may: come back at once rather than after the batch period.
  if (created.ok() && diff > count) Enqueue(s.key);
  return created;
}

}  // namespace berth::controllers
