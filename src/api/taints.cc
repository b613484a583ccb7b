#include "api/taints.h"

namespace berth::api {

namespace json = boost::json;

TaintEffect ParseTaintEffect(std::string_view text) {
  if (text == "NoSchedule") return TaintEffect::kNoSchedule;
  if (text == "PreferNoSchedule") return TaintEffect::kPreferNoSchedule;
  if (text == "NoExecute") return TaintEffect::kNoExecute;
  return TaintEffect::kUnknown;
}

std::string_view TaintEffectName(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
    case TaintEffect::kUnknown:
      break;
  }
  return "";
}

bool Toleration::Tolerates(const Taint& taint) const {
  if (effect && *effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  if (exists) return true;
  // Equal: an empty key only tolerates with Exists (validation enforces it).
  return !key.empty() && value == taint.value;
}

bool Tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const auto& t : tolerations) {
    if (t.Tolerates(taint)) return true;
  }
  return false;
}

std::vector<Taint> ReadTaints(JsonReader& reader, const json::object& parent, const FieldPath& at) {
  std::vector<Taint> out;
  const json::array* array = reader.Array(parent, "taints", at);
  if (!array) return out;
  FieldPath list = at.Field("taints");
  for (size_t i = 0; i < array->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* o = reader.ElementObject((*array)[i], here);
    if (!o) return {};
    Taint t;
    t.key = reader.String(*o, "key", here);
    t.value = reader.String(*o, "value", here);
    t.effect_text = reader.String(*o, "effect", here);
    t.effect = ParseTaintEffect(t.effect_text);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Toleration> ReadTolerations(JsonReader& reader, const json::object& parent, const FieldPath& at) {
  std::vector<Toleration> out;
  const json::array* array = reader.Array(parent, "tolerations", at);
  if (!array) return out;
  FieldPath list = at.Field("tolerations");
  for (size_t i = 0; i < array->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* o = reader.ElementObject((*array)[i], here);
    if (!o) return {};
    Toleration t;
    t.key = reader.String(*o, "key", here);
    t.exists = reader.String(*o, "operator", here) == "Exists";
    t.value = reader.String(*o, "value", here);
    std::string effect = reader.String(*o, "effect", here);
    // An unknown effect tolerates nothing: TaintEffect::kUnknown matches no real taint.
    if (!effect.empty()) t.effect = ParseTaintEffect(effect);
    t.toleration_seconds = reader.Int(*o, "tolerationSeconds", here);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace berth::api
