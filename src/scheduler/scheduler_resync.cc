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

// The drift metric's label and the deletion memory's prefix.
std::string KindName(api::Kind kind) {
  switch (kind) {
    case api::Kind::kNode:
      return "node";
    case api::Kind::kPod:
      return "pod";
    case api::Kind::kPersistentVolume:
      return "persistentvolume";
    default:
      return "persistentvolumeclaim";
  }
}

std::string DeletionKey(api::Kind kind, const std::string& key) { return KindName(kind) + "/" + key; }

// Keys as the cache and the lister use them: names for cluster-scoped
// kinds, namespace/name otherwise.
std::string KeyOf(api::Kind kind, const api::Object& o) {
  return api::Info(kind).namespaced ? o.namespace_name() + "/" + o.name() : o.name();
}

}  // namespace

std::vector<Cache::Version> Scheduler::CachedVersions(api::Kind kind) const {
  switch (kind) {
    case api::Kind::kNode:
      return cache_.NodeVersions();
    case api::Kind::kPod:
      return cache_.PodVersions();
    default:
      break;
  }
  std::vector<Cache::Version> out;
  for (auto& o : kind == api::Kind::kPersistentVolume ? handle_->volumes().Volumes() : handle_->volumes().Claims()) {
    out.push_back({KeyOf(kind, *o), o->resource_version(), false, o});
  }
  return out;
}

void Scheduler::ReplayEvent(api::Kind kind, const api::ObjectPtr& object, bool existed, bool deleted) {
  switch (kind) {
    case api::Kind::kNode:
      if (deleted) {
        OnNodeDelete(object->name());
      } else {
        existed ? OnNodeUpdate(object) : OnNodeAdd(object);
      }
      break;
    case api::Kind::kPod:
      if (deleted) {
        OnPodDelete(object);
      } else {
        existed ? OnPodUpdate(object) : OnPodAdd(object);
      }
      break;
    default:
      deleted ? OnStorageObjectDelete(kind, object) : OnStorageObject(kind, object);
      break;
  }
}

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
  for (const auto& object : listed) by_key.emplace(KeyOf(kind, *object), &object);
  std::vector<Drift> drift;
  std::unordered_map<std::string, bool> cached;  // key → seen in the cache
  for (const auto& c : CachedVersions(kind)) {
    cached.emplace(c.key, true);
    if (c.assumed) continue;  // a cycle's, not yet confirmed by its event
    auto it = by_key.find(c.key);
    if (it == by_key.end()) {
      // Not in the list: deleted by its revision, unless created after it.
      if (c.resource_version <= revision) {
        drift.push_back({Drift::What::kExtra, kind, c.key, c.resource_version, nullptr, c.object});
      }
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
  std::unordered_map<api::Kind, std::unordered_map<std::string, Cache::Version>> versions;
  int repaired = 0;
  for (const auto& d : drift) {
    auto [at, first] = versions.try_emplace(d.kind);
    if (first) {
      for (auto& v : CachedVersions(d.kind)) at->second.emplace(v.key, std::move(v));
    }
    const auto& now = at->second;
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
    if (d.what == Drift::What::kExtra) {
      ReplayEvent(d.kind, d.cached, true, true);
    } else {
      ReplayEvent(d.kind, d.listed, d.what == Drift::What::kStale, false);
    }
    cache_drift_.WithLabels({KindName(d.kind)}).Increment();
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
