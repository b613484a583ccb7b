#pragma once
// What the server fills in on writes, as kube-apiserver's strategies,
// defaulting and built-in admission plugins do: identity (uid,
// creationTimestamp, generateName), field defaults the system relies on, the
// default tolerations (DefaultTolerationSeconds) and generation bumps.

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/rfc3339.h"

namespace berth::apiserver {

struct AdmissionOptions {
  int64_t default_not_ready_toleration_seconds = 300;
  int64_t default_unreachable_toleration_seconds = 300;
  // kube's Priority admission plugin: a pod's priority comes from its
  // PriorityClass (or the global default) and may not be set by hand. Off, a
  // pod keeps the spec.priority it was created with (kube-apiserver with
  // --disable-admission-plugins=Priority, as scheduler_perf runs it).
  bool priority = true;
};

using api::NowRfc3339;

class Admission {
 public:
  explicit Admission(AdmissionOptions options, uint64_t seed);
  const AdmissionOptions& options() const { return options_; }

  // A random RFC 4122 version 4 UUID. Thread-safe.
  std::string NewUid();
  // Kubernetes' generateName rule: base truncated to 58 characters plus five
  // random characters from "bcdfghjklmnpqrstvwxz2456789". Thread-safe.
  std::string GenerateName(std::string_view base);

  // Create: sets uid, creationTimestamp, generation, drops resourceVersion, and
  // applies kind defaults. REQUIRES: metadata is an object.
  void PrepareCreate(api::Kind kind, boost::json::object& object);
  // Kind defaults only (also used for templates inside workloads).
  void ApplyDefaults(api::Kind kind, boost::json::object& object);
  // Update: keeps what clients may not change (uid, creationTimestamp,
  // deletionTimestamp, generation) from `current`, and bumps generation when
  // spec changed.
  void PrepareUpdate(api::Kind kind, const boost::json::object& current, boost::json::object& next);
  // A pod written whole (not a subresource) is defaulted as at its create
  // (kube defaults every decoded body), so that a field left out is not a change.
  void DefaultPodUpdate(boost::json::object& pod);

 private:
  void DefaultPodSpec(boost::json::object& spec, bool is_pod);
  AdmissionOptions options_;
  std::mutex mu_;
  std::mt19937_64 rng_;  // guarded by mu_
};

}  // namespace berth::apiserver
