#pragma once
// kube's EndpointSliceTracker: the slice versions this controller wrote, so a
// sync does not act on an informer cache that has not caught up with its own
// writes (which would create a second slice for the same endpoints), and so
// the informer events of its own writes do not trigger another sync.
// Thread-safe.

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/object.h"

namespace berth::controllers {

class SliceTracker {
 public:
  // This controller wrote `slice` (the version the API answered with).
  void Wrote(const std::string& service_key, const api::Object& slice);
  // This controller deleted `slice`.
  void Deleted(const std::string& service_key, const api::Object& slice);
  // The cache (every slice of the Service it holds) lags a write or a
  // deletion of this controller.
  bool Stale(const std::string& service_key, const std::vector<api::ObjectPtr>& cached) const;
  // An informer event for `slice` (`deleted`: its deletion): true when it is
  // not one of this controller's writes, i.e. the Service needs a sync.
  bool ShouldSync(const std::string& service_key, const api::Object& slice, bool deleted);
  void Forget(const std::string& service_key);

 private:
  static constexpr int64_t kDeletedVersion = -1;
  mutable std::mutex mu_;
  // service key → slice uid → resourceVersion written, or kDeletedVersion; guarded by mu_
  std::unordered_map<std::string, std::unordered_map<std::string, int64_t>> expected_;
};

}  // namespace berth::controllers
