#pragma once
// InterPodAffinity (kube's interpodaffinity plugin). Filter: the pod's
// required affinity terms must find matching pods in the node's topology
// domain (unless no pod anywhere matches and the pod matches its own terms),
// its required anti-affinity terms must find none, and no existing pod's
// required anti-affinity may match it there. Score: preferred terms of the
// pod and of existing pods (and existing pods' required affinity, weighted
// by hardPodAffinityWeight), min-max normalised.
// Args: hardPodAffinityWeight (0–100, default 1), ignorePreferredTermsOfExistingPods.

#include <string>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include "api/pod_view.h"
#include "scheduler/framework/domain_sums.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_value_cache.h"

namespace berth::scheduler {

class InterPodAffinity final : public PreFilterPlugin, public FilterPlugin, public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr std::string_view kName = "InterPodAffinity";
  static constexpr std::string_view kAffinityReason = "node(s) didn't match pod affinity rules";
  static constexpr std::string_view kAntiAffinityReason = "node(s) didn't match pod anti-affinity rules";
  static constexpr std::string_view kExistingAntiAffinityReason =
      "node(s) didn't satisfy existing pods anti-affinity rules";

  explicit InterPodAffinity(const Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  // Preemption's dry runs (kube's updateWithPod): a pod added to or removed
  // from `node` moves the counts of the incoming pod's required terms it
  // matches, and of its own required anti-affinity terms that match the
  // incoming pod.
  bool HasPreFilterExtensions() const override { return true; }
  PluginStatus AddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                      const NodeInfo& node) const override;
  PluginStatus RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                         const NodeInfo& node) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  PluginStatus PreScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes) const override;
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  PluginStatus NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore> scores) const override;

  // Whether `term`, written by `owner`, selects `candidate` (namespaces, namespaceSelector,
  // labelSelector with matchLabelKeys / mismatchLabelKeys taken from `owner`).
  bool TermMatches(const api::PodAffinityTerm& term, const PodInfo& owner, const PodInfo& candidate) const;

  // The pods a term matches, summed per domain and followed across snapshots.
  DomainSums& term_sums() const { return term_sums_; }

  int64_t hard_pod_affinity_weight = 1;
  bool ignore_preferred_terms_of_existing_pods = false;

 private:
  void UpdateWithPod(CycleState& state, const PodInfo& pod, const PodInfo& other, const NodeInfo& node,
                     int64_t delta) const;
  const Handle& handle_;
  // The pods one of the incoming pod's terms matches, per domain, keyed by
  // TermKey (DomainSums); and, remembered per node version (NodeValueCache),
  // how many existing pods' required anti-affinity terms on a node match pods
  // like the incoming one (namespace and labels), by topology key.
  mutable DomainSums term_sums_;
  mutable NodeValueCache<std::vector<std::pair<std::string, int64_t>>> existing_anti_counts_;
  // Scoring: the weights of existing pods' terms on a node that match pods
  // like the incoming one, by topology key.
  mutable NodeValueCache<std::vector<std::pair<std::string, int64_t>>> existing_score_;
};

Result<std::shared_ptr<Plugin>> NewInterPodAffinity(const boost::json::object& args, const Handle& handle);

}  // namespace berth::scheduler
