#pragma once
// The fields the server owns on every write (kube's rest.BeforeCreate /
// BeforeUpdate and FillObjectMetaSystemFields): uid, creationTimestamp and
// generation on create, kept from the stored object on update (generation
// bumped when spec changed, for kinds that keep one), and generateName.

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/time/rfc3339.h"

namespace berth::apiserver {

using api::NowRfc3339;

// An RFC 4122 version 4 UUID from 128 random bits (the version and variant
// bits are overwritten), as 8-4-4-4-12 lower-case hex digits.
std::string FormatUuidV4(uint64_t hi, uint64_t lo);
// A random version 4 UUID from a per-thread generator seeded by the system's
// random device (request ids, review uids, token ids). Thread-safe.
std::string RandomUuidV4();

class SystemFields {
 public:
  explicit SystemFields(uint64_t seed);

  // A random RFC 4122 version 4 UUID. Thread-safe.
  std::string NewUid();
  // Kubernetes' generateName rule: base truncated to 58 characters plus five
  // random characters from "bcdfghjklmnpqrstvwxz2456789". Thread-safe.
  std::string GenerateName(std::string_view base);

  // Create: sets uid, creationTimestamp, generation (KindInfo::generation),
  // drops resourceVersion and deletion fields. REQUIRES: metadata is an object.
  void PrepareCreate(api::Kind kind, boost::json::object& object);
  // Update: keeps what clients may not change (uid, creationTimestamp,
  // deletionTimestamp, generation) from `current`, and bumps generation when
  // spec changed.
  void PrepareUpdate(api::Kind kind, const boost::json::object& current, boost::json::object& next);

 private:
  std::mutex mu_;
  std::mt19937_64 rng_;  // guarded by mu_
};

}  // namespace berth::apiserver
