#pragma once
// Node taints and pod tolerations, with Kubernetes' matching rule
// (k8s.io/api/core/v1 Toleration.ToleratesTaint).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/codec/json_reader.h"

namespace berth::api {

enum class TaintEffect : unsigned char { kNoSchedule, kPreferNoSchedule, kNoExecute, kUnknown };
TaintEffect ParseTaintEffect(std::string_view text);
std::string_view TaintEffectName(TaintEffect effect);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kUnknown;
  std::string effect_text;
  bool operator==(const Taint&) const = default;
};

struct Toleration {
  std::string key;       // empty with operator Exists: tolerates every key
  bool exists = false;   // operator Exists (else Equal, the default)
  std::string value;
  std::optional<TaintEffect> effect;  // nullopt: every effect
  std::optional<int64_t> toleration_seconds;

  bool Tolerates(const Taint& taint) const;
};

// Whether some toleration in `tolerations` tolerates `taint`.
bool Tolerated(const std::vector<Toleration>& tolerations, const Taint& taint);

std::vector<Taint> ReadTaints(JsonReader& reader, const boost::json::object& parent, const FieldPath& at);
std::vector<Toleration> ReadTolerations(JsonReader& reader, const boost::json::object& parent,
                                        const FieldPath& at);

}  // namespace berth::api
