// storage.k8s.io/v1: kube's pkg/apis/storage/validation for CSIDriver,
// CSINode, CSIStorageCapacity and VolumeAttachment. Fields kube defaults
// (a CSIDriver's attachRequired, podInfoOnMount, …) pass when absent.

#include <boost/json.hpp>
#include <set>

#include "api/json_fields.h"
#include "api/quantity.h"
#include "api/quantity_json.h"
#include "api/selector.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

// kube's validateCSIDriverName: required, at most 63 characters, a DNS-1123
// subdomain once lowercased.
void ValidateDriverName(std::string_view name, const std::string& path, FieldErrors& errors) {
  if (name.empty()) {
    errors.Required(path);
    return;
  }
  if (name.size() > 63) errors.TooLong(path, 63);
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& m : IsDns1123Subdomain(lower)) errors.Invalid(path, name, m);
}

}  // namespace

void ValidateCSIDriver(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  if (const json::array* modes = ArrayAt(spec, "volumeLifecycleModes")) {
    for (size_t i = 0; i < modes->size(); ++i) {
      std::string_view mode =
          (*modes)[i].is_string() ? std::string_view((*modes)[i].get_string()) : "";
      if (mode != "Persistent" && mode != "Ephemeral") {
        errors.NotSupported(IndexPath("spec.volumeLifecycleModes", i), mode,
                            {"Ephemeral", "Persistent"});
      }
    }
  }
  if (auto policy = StringAt(spec, "fsGroupPolicy"); Present(spec, "fsGroupPolicy") &&
                                                     policy != "ReadWriteOnceWithFSType" &&
                                                     policy != "File" && policy != "None") {
    errors.NotSupported("spec.fsGroupPolicy", policy, {"File", "None", "ReadWriteOnceWithFSType"});
  }
  if (const json::array* tokens = ArrayAt(spec, "tokenRequests")) {
    std::set<std::string> audiences;
    for (size_t i = 0; i < tokens->size(); ++i) {
      const json::object* token = (*tokens)[i].is_object() ? &(*tokens)[i].get_object() : nullptr;
      const std::string audience(StringAt(token, "audience"));
      if (!audiences.insert(audience).second)
        errors.Duplicate(IndexPath("spec.tokenRequests", i) + ".audience", audience);
      if (const json::value* seconds = Present(token, "expirationSeconds");
          seconds && seconds->is_number() && seconds->to_number<int64_t>() < 600) {
        errors.InvalidValue(IndexPath("spec.tokenRequests", i) + ".expirationSeconds", *seconds,
                            "may not specify a duration less than 10 minutes");
      }
    }
  }
}

void ValidateCSINode(const Object& object, FieldErrors& errors) {
  const json::array* drivers = ArrayAt(ObjectAt(&object.json(), "spec"), "drivers");
  std::set<std::string> names;
  for (size_t i = 0; drivers && i < drivers->size(); ++i) {
    const std::string path = IndexPath("spec.drivers", i);
    const json::object* driver = (*drivers)[i].is_object() ? &(*drivers)[i].get_object() : nullptr;
    const std::string name(StringAt(driver, "name"));
    ValidateDriverName(name, path + ".name", errors);
    if (!name.empty() && !names.insert(name).second) errors.Duplicate(path + ".name", name);
    const std::string_view node_id = StringAt(driver, "nodeID");
    if (node_id.empty()) {
      errors.Required(path + ".nodeID");
    } else if (node_id.size() > 192) {
      errors.TooLong(path + ".nodeID", 192);
    }
    if (const json::array* keys = ArrayAt(driver, "topologyKeys")) {
      for (size_t k = 0; k < keys->size(); ++k) {
        std::string_view key =
            (*keys)[k].is_string() ? std::string_view((*keys)[k].get_string()) : "";
        if (key.empty()) {
          errors.Required(IndexPath(path + ".topologyKeys", k));
        } else {
          for (const auto& m : IsQualifiedName(key))
            errors.Invalid(IndexPath(path + ".topologyKeys", k), key, m);
        }
      }
    }
    NonNegative(ObjectAt(driver, "allocatable"), "count", path + ".allocatable.count", errors);
  }
}

void ValidateCSIStorageCapacity(const Object& object, FieldErrors& errors) {
  const json::object& o = object.json();
  const std::string_view storage_class = StringAt(o, "storageClassName");
  for (const auto& m : IsDns1123Subdomain(storage_class))
    errors.Invalid("storageClassName", storage_class, m);
  if (const json::value* topology = Present(&o, "nodeTopology")) {
    if (auto parsed = LabelSelector::FromJson(*topology); !parsed.ok()) {
      errors.InvalidValue("nodeTopology", *topology, parsed.status().message());
    }
  }
  for (std::string_view key : {"capacity", "maximumVolumeSize"}) {
    const json::value* q = Present(&o, key);
    if (!q) continue;
    std::optional<std::string> read = QuantityText(*q);
    const std::string text = read ? std::move(*read) : json::serialize(*q);
    if (auto parsed = Quantity::Parse(text); !parsed.ok()) {
      errors.Invalid(std::string(key), text, parsed.status().message());
    } else if (parsed->Sign() < 0) {
      errors.Invalid(std::string(key), text, "must be greater than or equal to 0");
    }
  }
}

void ValidateVolumeAttachment(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  ValidateDriverName(StringAt(spec, "attacher"), "spec.attacher", errors);
  const std::string_view node = StringAt(spec, "nodeName");
  if (node.empty()) {
    errors.Required("spec.nodeName");
  } else {
    for (const auto& m : IsDns1123Subdomain(node)) errors.Invalid("spec.nodeName", node, m);
  }
  const json::object* source = ObjectAt(spec, "source");
  const json::value* pv = Present(source, "persistentVolumeName");
  const json::value* inline_spec = Present(source, "inlineVolumeSpec");
  if (!pv && !inline_spec) {
    errors.Required("spec.source",
                    "must specify exactly one of inlineVolumeSpec and persistentVolumeName");
  } else if (pv && inline_spec) {
    errors.Forbidden("spec.source",
                     "must specify exactly one of inlineVolumeSpec and persistentVolumeName");
  } else if (pv && StringAt(source, "persistentVolumeName").empty()) {
    errors.Required("spec.source.persistentVolumeName",
                    "must specify non empty persistentVolumeName");
  }
}

void ValidateVolumeAttachmentUpdate(const Object& next, const Object& current,
                                    FieldErrors& errors) {
  CheckImmutable(Present(&next.json(), "spec"), Present(&current.json(), "spec"), "spec", errors);
}

void AddStorageRules(KindRuleTable& table) {
  table.Set(Kind::kCSIDriver, {.validate = ValidateCSIDriver});
  table.Set(Kind::kCSINode, {.validate = ValidateCSINode});
  table.Set(Kind::kCSIStorageCapacity, {.validate = ValidateCSIStorageCapacity});
  table.Set(Kind::kVolumeAttachment,
            {.validate = ValidateVolumeAttachment, .validate_update = CollectedUpdateErrors<ValidateVolumeAttachmentUpdate>});
}

}  // namespace berth::api::validation
