// The drift guard: the scheduler's cache compared with the API server's
// lists, and what differs repaired (see Scheduler::FindCacheDrift).

#include <algorithm>
#include <unordered_map>

#include "api/pod_view.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {

namespace {

// Whether the cache holds this pod: bound and not finished (what OnPodAdd
// puts there).
bool Cached(const api::Object& pod) {
  const auto* view = pod.As<api::PodView>();
  return view && !view->node_name.empty() && view->phase != "Succeeded" && view->phase != "Failed";
}

std::string DeletionKey(api::Kind kind, const std::string& key) {
  return (kind == api::Kind::kNode ? "node/" : "pod/") + key;
}

}  // namespace

void Scheduler::RememberDeletion(std::string key, int64_t revision) {
  std::lock_guard lock(deletions_mu_);
  int64_t& at = deletions_[std::move(key)];
  at = std::max(at, revision);
}

int64_t Scheduler::DeletedAt(const std::string& key) const {
  std::lock_guard lock(deletions_mu_);
  auto it = deletions_.find(key);
  return it == deletions_.end() ? 0 : it->second;
}

std::vector<Scheduler::Drift> Scheduler::FindCacheDrift(api::Kind kind, const std::vector<api::ObjectPtr>& listed,
                                                        int64_t revision) const {
  const bool pods = kind == api::Kind::kPod;
  std::unordered_map<std::string, const api::ObjectPtr*> by_key;
  by_key.reserve(listed.size());
  for (const auto& object : listed) by_key.emplace(pods ? PodKey(*object) : object->name(), &object);
  std::vector<Drift> drift;
  std::unordered_map<std::string, bool> cached;  // key → seen in the cache
  for (const auto& c : pods ? cache_.PodVersions() : cache_.NodeVersions()) {
    cached.emplace(c.key, true);
    if (c.assumed) continue;  // a cycle's, not yet confirmed by its event
    auto it = by_key.find(c.key);
    if (it == by_key.end()) {
      // Not in the list: deleted by its revision, unless created after it.
      if (c.resource_version <= revision) drift.push_back({Drift::What::kExtra, kind, c.key, c.resource_version, nullptr, c.object});
      continue;
    }
    const api::ObjectPtr& l = *it->second;
    // A newer version than the cache's (for a pod: also one that finished).
    if (l->resource_version() > c.resource_version) {
      drift.push_back({Drift::What::kStale, kind, c.key, c.resource_version, l, c.object});
    }
  }
  for (const auto& [key, l] : by_key) {
    if (cached.contains(key) || (pods && !Cached(**l))) continue;
    // Deleted after the listed version (its event arrived): not missing.
    if (options_.drift_guard && DeletedAt(DeletionKey(kind, key)) >= (*l)->resource_version()) continue;
    drift.push_back({Drift::What::kMissing, kind, key, 0, *l, nullptr});
  }
  return drift;
}

int Scheduler::RepairCacheDrift(const std::vector<Drift>& drift, int64_t revision) {
  std::unordered_map<std::string, Cache::Version> nodes, pods;
  bool read = false;
  int repaired = 0;
  for (const auto& d : drift) {
    if (!read) {
      for (auto& v : cache_.NodeVersions()) nodes.emplace(v.key, std::move(v));
      for (auto& v : cache_.PodVersions()) pods.emplace(v.key, std::move(v));
      read = true;
    }
    const auto& now = d.kind == api::Kind::kPod ? pods : nodes;
    auto it = now.find(d.key);
    bool still = false;
    switch (d.what) {
      case Drift::What::kMissing:
        // Still missing, and no deletion seen since the listed version.
        still = it == now.end() &&
                (!options_.drift_guard || DeletedAt(DeletionKey(d.kind, d.key)) < d.listed->resource_version());
        break;
      case Drift::What::kStale:
      case Drift::What::kExtra:
        // Nothing seen of it since.
        still = it != now.end() && !it->second.assumed && it->second.resource_version == d.cached_version;
        break;
    }
    if (!still) continue;
    const bool pod = d.kind == api::Kind::kPod;
    switch (d.what) {
      case Drift::What::kMissing:
        pod ? OnPodAdd(d.listed) : OnNodeAdd(d.listed);
        break;
      case Drift::What::kStale:
        pod ? OnPodUpdate(d.listed) : OnNodeUpdate(d.listed);
        break;
      case Drift::What::kExtra:
        pod ? OnPodDelete(d.cached) : OnNodeDelete(d.key);
        break;
    }
    cache_drift_.WithLabels({pod ? "pod" : "node"}).Increment();
    ++repaired;
  }
  if (options_.drift_guard) {
    // Deletions the list already shows are no longer needed.
    std::lock_guard lock(deletions_mu_);
    std::erase_if(deletions_, [&](const auto& entry) { return entry.second <= revision; });
  }
  return repaired;
}

}  // namespace berth::scheduler
