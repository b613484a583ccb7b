#include "api/quantity_json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include <boost/json.hpp>

namespace berth::api {

namespace json = boost::json;

namespace {

// Go's encoding/json text of a float64: shortest round-trip digits, plain
// notation but below 1e-6 and from 1e21 up.
std::string GoFloatText(double d) {
  const double magnitude = std::fabs(d);
  const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  char text[64];  // plain notation only between 1e-6 and 1e21
  auto [end, error] =
      std::to_chars(text, text + sizeof text, d,
                    exponent ? std::chars_format::scientific : std::chars_format::fixed);
  if (error != std::errc()) return {};
  return std::string(text, end);
}

std::string_view TrimmedSpaces(std::string_view text) {
  constexpr std::string_view kSpaces = " \t\n\r\v\f";
  const size_t first = text.find_first_not_of(kSpaces);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpaces) - first + 1);
}

// kube's Quantity.RoundUp(-3) for a resource list entry. Negative amounts
// (invalid in every list) and amounts past int64 thousandths are left as
// they are.
Quantity RoundedUpToMilli(const Quantity& q) {
  static const Quantity kLargest = Quantity::FromInt(std::numeric_limits<int64_t>::max() / 1000);
  if (q.Sign() <= 0 || q.Compare(kLargest) >= 0) return q;
  Quantity milli = Quantity::FromMilli(q.MilliValue(), q.format());
  return milli == q ? q : milli;
}

// How the value at the end of a path holds quantities.
enum class Holds : unsigned char {
  kQuantity,      // one quantity (emptyDir.sizeLimit)
  kResourceList,  // a core ResourceList, name → quantity, rounded up to thousandths
  kQuantityMap,   // name → quantity, not rounded (a RuntimeClass's overhead)
};

// A field holding quantities, as a dotted path: "name[]" steps into each
// item of an array, "*" into each member of an object.
struct QuantityField {
  std::string_view path;
  Holds holds;
};

void RewriteNumber(json::value& value, bool round_to_milli) {
  if (!value.is_number()) return;
  auto parsed = QuantityFromJson(value);
  if (!parsed.ok()) return;
  value = (round_to_milli ? RoundedUpToMilli(parsed.value()) : parsed.value()).ToString();
}

void Rewrite(json::value& value, Holds holds) {
  if (holds == Holds::kQuantity) return RewriteNumber(value, false);
  if (json::object* list = value.if_object()) {
    for (auto& entry : *list) RewriteNumber(entry.value(), holds == Holds::kResourceList);
  }
}

void VisitObject(json::object& object, std::string_view path, Holds holds);

void VisitValue(json::value& at, std::string_view path, Holds holds) {
  if (path.empty()) return Rewrite(at, holds);
  if (json::object* object = at.if_object()) VisitObject(*object, path, holds);
}

void VisitObject(json::object& object, std::string_view path, Holds holds) {
  const size_t dot = path.find('.');
  std::string_view step = path.substr(0, dot);
  const std::string_view rest =
      dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  if (step == "*") {
    for (auto& member : object) VisitValue(member.value(), rest, holds);
    return;
  }
  const bool each = step.ends_with("[]");
  if (each) step.remove_suffix(2);
  json::value* next = object.if_contains(step);
  if (!next) return;
  if (!each) return VisitValue(*next, rest, holds);
  if (json::array* items = next->if_array()) {
    for (json::value& item : *items) VisitValue(item, rest, holds);
  }
}

constexpr Holds kList = Holds::kResourceList;

constexpr QuantityField kPodSpecFields[] = {
    {"containers[].resources.limits", kList},
    {"containers[].resources.requests", kList},
    {"initContainers[].resources.limits", kList},
    {"initContainers[].resources.requests", kList},
    {"ephemeralContainers[].resources.limits", kList},
    {"ephemeralContainers[].resources.requests", kList},
    {"resources.limits", kList},
    {"resources.requests", kList},
    {"overhead", kList},
    {"volumes[].emptyDir.sizeLimit", Holds::kQuantity},
    {"volumes[].ephemeral.volumeClaimTemplate.spec.resources.limits", kList},
    {"volumes[].ephemeral.volumeClaimTemplate.spec.resources.requests", kList},
};

struct KindQuantityField {
  Kind kind;
  QuantityField field;
};

// Each kind's quantity fields outside its pod spec (kube's types holding a
// resource.Quantity or a ResourceList).
constexpr KindQuantityField kKindFields[] = {
    {Kind::kPod, {"status.containerStatuses[].allocatedResources", kList}},
    {Kind::kPod, {"status.containerStatuses[].resources.limits", kList}},
    {Kind::kPod, {"status.containerStatuses[].resources.requests", kList}},
    {Kind::kPod, {"status.initContainerStatuses[].allocatedResources", kList}},
    {Kind::kPod, {"status.initContainerStatuses[].resources.limits", kList}},
    {Kind::kPod, {"status.initContainerStatuses[].resources.requests", kList}},
    {Kind::kPod, {"status.ephemeralContainerStatuses[].allocatedResources", kList}},
    {Kind::kPod, {"status.ephemeralContainerStatuses[].resources.limits", kList}},
    {Kind::kPod, {"status.ephemeralContainerStatuses[].resources.requests", kList}},
    {Kind::kNode, {"status.capacity", kList}},
    {Kind::kNode, {"status.allocatable", kList}},
    {Kind::kPersistentVolume, {"spec.capacity", kList}},
    {Kind::kPersistentVolumeClaim, {"spec.resources.limits", kList}},
    {Kind::kPersistentVolumeClaim, {"spec.resources.requests", kList}},
    {Kind::kPersistentVolumeClaim, {"status.capacity", kList}},
    {Kind::kPersistentVolumeClaim, {"status.allocatedResources", kList}},
    {Kind::kStatefulSet, {"spec.volumeClaimTemplates[].spec.resources.limits", kList}},
    {Kind::kStatefulSet, {"spec.volumeClaimTemplates[].spec.resources.requests", kList}},
    {Kind::kStatefulSet, {"spec.volumeClaimTemplates[].status.capacity", kList}},
    {Kind::kStatefulSet, {"spec.volumeClaimTemplates[].status.allocatedResources", kList}},
    {Kind::kLimitRange, {"spec.limits[].max", kList}},
    {Kind::kLimitRange, {"spec.limits[].min", kList}},
    {Kind::kLimitRange, {"spec.limits[].default", kList}},
    {Kind::kLimitRange, {"spec.limits[].defaultRequest", kList}},
    {Kind::kLimitRange, {"spec.limits[].maxLimitRequestRatio", kList}},
    {Kind::kResourceQuota, {"spec.hard", kList}},
    {Kind::kResourceQuota, {"status.hard", kList}},
    {Kind::kResourceQuota, {"status.used", kList}},
    {Kind::kRuntimeClass, {"overhead.podFixed", Holds::kQuantityMap}},
    {Kind::kCSIStorageCapacity, {"capacity", Holds::kQuantity}},
    {Kind::kCSIStorageCapacity, {"maximumVolumeSize", Holds::kQuantity}},
    {Kind::kVolumeAttachment, {"spec.source.inlineVolumeSpec.capacity", kList}},
    // Every metric source's target and current (object, pods, resource,
    // containerResource, external).
    {Kind::kHorizontalPodAutoscaler, {"spec.metrics[].*.target.value", Holds::kQuantity}},
    {Kind::kHorizontalPodAutoscaler, {"spec.metrics[].*.target.averageValue", Holds::kQuantity}},
    {Kind::kHorizontalPodAutoscaler, {"status.currentMetrics[].*.current.value", Holds::kQuantity}},
    {Kind::kHorizontalPodAutoscaler,
     {"status.currentMetrics[].*.current.averageValue", Holds::kQuantity}},
};

}  // namespace

std::optional<std::string> QuantityText(const json::value& value) {
  switch (value.kind()) {
    case json::kind::string: {
      const json::string& text = value.get_string();
      return std::string(TrimmedSpaces({text.data(), text.size()}));
    }
    case json::kind::int64:
      return std::to_string(value.get_int64());
    case json::kind::uint64:
      return std::to_string(value.get_uint64());
    case json::kind::double_:
      return GoFloatText(value.get_double());
    default:
      return std::nullopt;
  }
}

Result<Quantity> QuantityFromJson(const json::value& value) {
  std::optional<std::string> text = QuantityText(value);
  if (!text) return Status::BadRequest("expected a quantity");
  return Quantity::Parse(*text);
}

void CanonicalizeQuantities(Kind kind, json::object& object) {
  for (const KindQuantityField& f : kKindFields) {
    if (f.kind == kind) VisitObject(object, f.field.path, f.field.holds);
  }
}

void CanonicalizePodSpecQuantities(json::object& spec) {
  for (const QuantityField& f : kPodSpecFields) VisitObject(spec, f.path, f.holds);
}

}  // namespace berth::api
