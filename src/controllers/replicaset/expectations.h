#pragma once
// kube's controller expectations: after a ReplicaSet controller creates or
// deletes pods it expects to see those creations and deletions in its pod
// informer before it trusts the informer's count again. Without them a slow
// watch makes the controller count too few pods and create them twice.
// Expectations expire (5 minutes, kube's ExpectationsTimeout) so a lost event
// cannot wedge a ReplicaSet forever, counted on the injected api::Clock's
// steady time. Thread-safe.

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "api/time/clock.h"

namespace berth::controllers {

class Expectations {
 public:
  static constexpr std::chrono::minutes kTimeout{5};

  // REQUIRES: `clock` outlives the expectations.
  explicit Expectations(api::Clock& clock = api::RealClock::Instance()) : clock_(clock) {}

  // True when nothing is outstanding (or what was expected has expired):
  // the controller may act on what its informer shows.
  bool Satisfied(const std::string& controller_key) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(controller_key);
    if (it == entries_.end()) return true;
    const Entry& e = it->second;
    return (e.adds <= 0 && e.deleting.empty()) || clock_.Now() - e.set_at > kTimeout;
  }
  void ExpectCreations(const std::string& controller_key, int count) {
    std::lock_guard lock(mu_);
    Entry& e = entries_[controller_key];
    e.adds = count;
    e.set_at = clock_.Now();
  }
  void ExpectDeletions(const std::string& controller_key, const std::unordered_set<std::string>& pod_keys) {
    std::lock_guard lock(mu_);
    Entry& e = entries_[controller_key];
    e.deleting = pod_keys;
    e.set_at = clock_.Now();
  }
  void CreationObserved(const std::string& controller_key) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(controller_key);
    if (it != entries_.end()) --it->second.adds;
  }
  void DeletionObserved(const std::string& controller_key, const std::string& pod_key) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(controller_key);
    if (it != entries_.end()) it->second.deleting.erase(pod_key);
  }
  void Forget(const std::string& controller_key) {
    std::lock_guard lock(mu_);
    entries_.erase(controller_key);
  }

 private:
  struct Entry {
    int adds = 0;
    std::unordered_set<std::string> deleting;  // pod keys
    api::Clock::time_point set_at;
  };
  api::Clock& clock_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace berth::controllers
