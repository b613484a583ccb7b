#include "scheduler/scheduler.h"

namespace berth::scheduler {

Result<Explanation> Scheduler::Explain(std::string_view ns, std::string_view name) const {
  const std::string key = std::string(ns) + "/" + std::string(name);
  PodInfoPtr pod;
  std::string bound;
  if (std::string node = cache_.NodeOf(key); !node.empty()) {
    if (NodeInfoPtr info = cache_.GetNode(node)) {
      if (const PodInfoPtr* found = info->FindPod(key)) {
        pod = *found;
        bound = node;
      }
    }
  }
  if (!pod) {
    if (std::optional<QueuedPodInfo> queued = queue_->Find(key)) pod = queued->pod;
  }
  if (!pod) return Status::NotFound("pods \"" + std::string(name) + "\" not found");

  // A placed pod of another scheduler is explained with the first profile.
  const Framework* fw = Profile(pod->view->scheduler_name);
  const bool own_profile = fw != nullptr;
  if (!fw) fw = profiles_.front().get();

  Snapshot snapshot;
  cache_.UpdateSnapshot(snapshot);
  if (!bound.empty()) {
    // The cluster as it is now with the pod taken off its node: a copy of
    // the snapshot's nodes with that one replaced. The replaced node's
    // generation is cleared, so that no plugin answers from what it
    // remembered of the node with the pod on it.
    std::vector<NodeInfoPtr> nodes = snapshot.nodes();
    for (auto& n : nodes) {
      if (n->name() != bound) continue;
      auto without = std::make_shared<NodeInfo>(*n);
      without->RemovePod(key);
      without->set_generation(0);
      n = std::move(without);
    }
    snapshot = Snapshot::FromNodes(nodes);
  }
  if (!bound.empty() && !pod->view->node_name.empty()) {
    // spec.nodeName is the outcome being explained, not a constraint on it:
    // the pod is explained as it was before it was bound.
    auto unbound = pod->object->Edit([](boost::json::object& o) {
      if (auto* spec = o.if_contains("spec"); spec && spec->is_object()) spec->as_object().erase("nodeName");
    });
    if (!unbound.ok()) return unbound.status();
    pod = MakePodInfo(std::move(unbound).value());
  }
  ExplainOptions options;
  options.bound_node = bound;
  Result<Explanation> explained = scheduler::Explain(*fw, snapshot, *pod, *this, options);
  if (!explained.ok()) return explained;
  if (!bound.empty()) {
    if (std::optional<Decision> d = LastDecision(key); d && d->node == bound) {
      explained->decision =
          RecordedDecision{d->node,
                           d->runner_up,
                           d->score,
                           d->margin,
                           d->feasible,
                           d->tied,
                           d->weighted_random,
                           std::chrono::duration<double>(clock_.Now() - d->at).count()};
    }
  }
  if (!own_profile) {
    explained->notes.push_back("no profile of this scheduler is named " +
                               pod->view->scheduler_name + ": explained with profile " +
                               fw->scheduler_name());
  }
  if (!extenders_->empty()) {
    explained->notes.emplace_back(
        "the scheduler extenders were not consulted: their filters and scores are not shown");
  }
  return explained;
}

}  // namespace berth::scheduler
