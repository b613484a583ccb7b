// berth explain inside the scheduler: the decision ring each cycle thread
// keeps (RecordDecision, LastDecision) and Explain, which reads it.

#include "scheduler/scheduler.h"

#include "scheduler/scheduler_internal.h"

namespace berth::scheduler {

void Scheduler::RecordDecision(Worker& w, const Framework& fw, const PodInfoPtr& pod, const NodeInfo& selected,
                               api::Clock::time_point at) {
  // With one feasible node no score was computed (w.totals is stale).
  const size_t n = w.feasible.size() > 1 && w.totals.size() == w.feasible.size() ? w.feasible.size() : 0;
  size_t chosen = 0, runner_up = n;
  uint32_t tied = 1;
  if (n > 0) {
    while (chosen < n && w.feasible[chosen] != &selected) ++chosen;
    int64_t top = w.totals[0];
    tied = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t t = w.totals[i];
      if (t > top) {
        top = t;
        tied = 1;
      } else if (t == top) {
        ++tied;
      }
      if (i != chosen && (runner_up == n || t > w.totals[runner_up])) runner_up = i;
    }
  }
  std::lock_guard lock(w.decisions_mu);
  Decision& d = w.decisions[w.next_decision];
  w.next_decision = (w.next_decision + 1) % kDecisionsKept;
  d.pod = pod;
  d.node = selected.name();
  d.feasible = static_cast<uint32_t>(w.feasible.size());
  d.tied = tied;
  d.weighted_random = fw.node_selection() == NodeSelectionStrategy::kWeightedRandom;
  d.at = at;
  if (n > 0 && chosen < n && runner_up < n) {
    d.score = w.totals[chosen];
    d.runner_up = w.feasible[runner_up]->name();
    d.margin = w.totals[chosen] - w.totals[runner_up];
  } else {
    d.score = 0;
    d.runner_up.clear();
    d.margin = 0;
  }
}

std::optional<Scheduler::Decision> Scheduler::LastDecision(const std::string& pod_key) const {
  std::optional<Decision> latest;
  for (const auto& w : workers_) {
    std::lock_guard lock(w->decisions_mu);
    for (const Decision& d : w->decisions) {
      if (d.pod && d.pod->key == pod_key && (!latest || d.at > latest->at)) latest = d;
    }
  }
  return latest;
}

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
  Result<Explanation> explained = scheduler::Explain(*fw, snapshot, *pod, *handle_, options);
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
