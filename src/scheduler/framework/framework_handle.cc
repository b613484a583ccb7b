#include "scheduler/framework/framework_handle.h"

#include <algorithm>

#include "api/json_fields.h"

namespace berth::scheduler {

FrameworkHandle::FrameworkHandle(Services services)
    : host_(*services.host),
      client_(services.client),
      extenders_(*services.extenders),
      parallelizer_(*services.parallelizer),
      metrics_(*services.metrics),
      random_state_(services.seed ^ 0x5bd1e995u),
      api_(services.client, [host = services.host](const std::string& key) { return host->PodPlaced(key); }),
      waiting_pods_(std::make_unique<WaitingPods>(*services.clock)) {}

// ---- namespaces ----

void FrameworkHandle::SetNamespace(const api::ObjectPtr& ns) {
  std::lock_guard lock(ns_mu_);
  namespaces_[ns->name()] = std::make_shared<const api::Labels>(ns->labels());
}

void FrameworkHandle::RemoveNamespace(const std::string& name) {
  std::lock_guard lock(ns_mu_);
  namespaces_.erase(name);
}

std::shared_ptr<const api::Labels> FrameworkHandle::NamespaceLabels(std::string_view ns) const {
  std::lock_guard lock(ns_mu_);
  auto it = namespaces_.find(std::string(ns));
  return it == namespaces_.end() ? nullptr : it->second;
}

// ---- PodDisruptionBudgets ----

namespace {

DisruptionBudget BudgetOf(const api::Object& pdb) {
  DisruptionBudget b;
  b.namespace_name = pdb.namespace_name();
  b.name = pdb.name();
  const boost::json::object* spec = api::Spec(pdb);
  if (spec) {
    if (auto it = spec->find("selector"); it != spec->end() && !it->value().is_null()) {
      auto selector = api::LabelSelector::FromJson(it->value());
      // An invalid selector matches no pod (kube's rule).
      b.selector = selector.ok() ? std::move(selector).value() : api::LabelSelector();
    }
  }
  const boost::json::object* status = api::StatusOf(pdb);
  b.disruptions_allowed = static_cast<int32_t>(api::IntAt(status, "disruptionsAllowed"));
  if (const boost::json::object* disrupted = api::ObjectAt(status, "disruptedPods")) {
    for (const auto& entry : *disrupted) b.disrupted.emplace_back(entry.key());
    std::sort(b.disrupted.begin(), b.disrupted.end());
  }
  return b;
}

}  // namespace

void FrameworkHandle::SetDisruptionBudget(const api::ObjectPtr& pdb) {
  DisruptionBudget b = BudgetOf(*pdb);
  std::lock_guard lock(pdb_mu_);
  pdbs_[b.namespace_name + "/" + b.name] = std::move(b);
  ListDisruptionBudgets();
}

void FrameworkHandle::RemoveDisruptionBudget(const api::ObjectPtr& pdb) {
  std::lock_guard lock(pdb_mu_);
  pdbs_.erase(pdb->namespace_name() + "/" + pdb->name());
  ListDisruptionBudgets();
}

void FrameworkHandle::ListDisruptionBudgets() {
  auto list = std::make_shared<std::vector<DisruptionBudget>>();
  for (const auto& [key, budget] : pdbs_) list->push_back(budget);
  pdb_list_ = std::move(list);
}

std::shared_ptr<const std::vector<DisruptionBudget>> FrameworkHandle::DisruptionBudgets() const {
  std::lock_guard lock(pdb_mu_);
  return pdb_list_;
}

// ---- preemption ----

Status FrameworkHandle::PreemptPod(const PodInfo& victim, const PodInfo& preemptor, const std::string& node) const {
  if (!client_) return Status::Internal("no client to evict pods through");
  // Terminating already: evicted again (kube does too), but nothing to wait
  // for: kube's preemption counts as done once a victim has a
  // deletionTimestamp, and no further event may come before it is deleted.
  if (!victim.view->terminating && !AwaitVictim(victim, preemptor)) return Status::Ok();
  api_.Submit([this, victim = victim.object, preemptor = preemptor.object, key = victim.key, node] {
    Status evicted = client_->PreemptPod(*victim, *preemptor, node);
    // The preemptor must not wait for an eviction that failed (kube
    // activates it again); it will find out what is left.
    if (!evicted.ok()) VictimGone(key);
  });
  return Status::Ok();
}

bool FrameworkHandle::AwaitVictim(const PodInfo& victim, const PodInfo& preemptor) const {
  std::lock_guard lock(preempt_mu_);
  // Gone already (its delete was observed after the cycle's snapshot):
  // nothing to evict or wait for. The scheduler removes a deleted pod from
  // the cache before it calls VictimGone, so a victim still placed here
  // will be seen going.
  if (!host_.PodPlaced(victim.key)) return false;
  std::vector<std::string>& waiting = evicting_[victim.key];
  if (std::find(waiting.begin(), waiting.end(), preemptor.key) != waiting.end()) return true;
  waiting.push_back(preemptor.key);
  awaiting_victims_[preemptor.key]++;
  // Under preempt_mu_, so that VictimGone's release cannot come first.
  host_.HoldPod(preemptor.key);
  return true;
}

bool FrameworkHandle::BeingEvicted(const std::string& pod_key) const {
  std::shared_lock lock(preempt_mu_);
  return evicting_.count(pod_key) > 0;
}

void FrameworkHandle::VictimGone(const std::string& victim_key) const {
  std::lock_guard lock(preempt_mu_);
  auto it = evicting_.find(victim_key);
  if (it == evicting_.end()) return;
  for (const std::string& preemptor : it->second) {
    auto left = awaiting_victims_.find(preemptor);
    if (left == awaiting_victims_.end() || --left->second > 0) continue;
    awaiting_victims_.erase(left);
    host_.ReleasePod(preemptor);
  }
  evicting_.erase(it);
}

void FrameworkHandle::ClearNominatedNodeName(std::span<const PodInfo* const> pods) const {
  for (const PodInfo* p : pods) {
    if (nominator_.Remove(p->key)) host_.NominationFreed(p->view->priority);
    if (client_) api_.Submit([this, pod = p->object] { client_->SetNominatedNodeName(*pod, ""); });
  }
}

// ---- the rest of the Handle ----

uint64_t FrameworkHandle::Random() const {
  // splitmix64 over an atomic counter: reproducible from the seed, lock-free.
  uint64_t z = random_state_.fetch_add(0x9e3779b97f4a7c15ull, std::memory_order_relaxed) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Status FrameworkHandle::BindPod(const api::Object& pod, const std::string& node) const {
  if (!client_) return Status::Internal("no client to bind pods through");
  // A failure report of this pod being sent must land first.
  api_.WaitForFailureReport(PodKey(pod));
  return client_->BindPod(pod, node);
}

Status FrameworkHandle::UpdatePersistentVolume(const boost::json::object& pv) const {
  if (!client_) return Status::Internal("no client to write PersistentVolumes through");
  return client_->UpdatePersistentVolume(pv);
}

Status FrameworkHandle::UpdatePersistentVolumeClaim(const boost::json::object& pvc) const {
  if (!client_) return Status::Internal("no client to write PersistentVolumeClaims through");
  return client_->UpdatePersistentVolumeClaim(pvc);
}

}  // namespace berth::scheduler
