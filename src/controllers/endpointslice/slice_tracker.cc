#include "controllers/endpointslice/slice_tracker.h"

namespace berth::controllers {

void SliceTracker::Wrote(const std::string& service_key, const api::Object& slice) {
  std::lock_guard lock(mu_);
  expected_[service_key][slice.uid()] = slice.resource_version();
}

void SliceTracker::Deleted(const std::string& service_key, const api::Object& slice) {
  std::lock_guard lock(mu_);
  expected_[service_key][slice.uid()] = kDeletedVersion;
}

bool SliceTracker::Stale(const std::string& service_key,
                         const std::vector<api::ObjectPtr>& cached) const {
  std::lock_guard lock(mu_);
  auto it = expected_.find(service_key);
  if (it == expected_.end()) return false;
  for (const auto& [uid, version] : it->second) {
    const api::Object* found = nullptr;
    for (const auto& slice : cached) {
      if (slice->uid() == uid) found = slice.get();
    }
    if (version == kDeletedVersion ? found != nullptr
                                   : (!found || found->resource_version() < version))
      return true;
  }
  return false;
}

bool SliceTracker::ShouldSync(const std::string& service_key, const api::Object& slice,
                              bool deleted) {
  std::lock_guard lock(mu_);
  auto it = expected_.find(service_key);
  if (it == expected_.end()) return true;
  auto entry = it->second.find(slice.uid());
  if (entry == it->second.end()) return true;
  const int64_t version = entry->second;
  if (deleted) {
    it->second.erase(entry);
    return version != kDeletedVersion;
  }
  if (version == kDeletedVersion) return false;          // its deletion will follow
  if (slice.resource_version() < version) return false;  // an older write of ours
  it->second.erase(entry);                               // the cache has caught up
  return slice.resource_version() > version;
}

void SliceTracker::Forget(const std::string& service_key) {
  std::lock_guard lock(mu_);
  expected_.erase(service_key);
}

}  // namespace berth::controllers
