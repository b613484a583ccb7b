#include "apiserver/protobuf.h"

#include <chrono>
#include <cstdint>
#include <string>

#include <boost/json.hpp>

#include "api/rfc3339.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

enum class T { kString, kInt, kBool, kMessage, kStringMap, kQuantityMap, kTime, kQuantity, kIntOrString };

struct Message;
struct Field {
  int number;
  const char* name;  // JSON name
  T type;
  bool repeated = false;
  const Message* message = nullptr;
  // Go writes every non-pointer scalar, zero or not, where its JSON would
  // omit it (omitempty); zero values are dropped unless the field is a
  // pointer or has no omitempty (then a zero was meant).
  bool keep_zero = false;
};
constexpr bool kKeep = true;
struct Message {
  const char* name;
  std::initializer_list<Field> fields;
  // Skipped whole: what a client sends there is not stored (status on create).
  bool ignored = false;
};

// Field numbers from k8s.io/api and k8s.io/apimachinery generated.proto.
extern const Message kObjectMeta, kOwnerReference, kLabelSelector, kLabelSelectorRequirement, kPodTemplateSpec,
    kPodSpec, kContainer, kContainerPort, kEnvVar, kResourceRequirements, kDeploymentSpec, kDeploymentStrategy,
    kRollingUpdateDeployment, kEmpty, kIgnoredStatus, kNamespaceSpec, kNamespaceStatus, kPdbSpec, kToleration;

const Message kEmpty{"PodSecurityContext", {}};
// Go's protobuf writes every non-pointer scalar, so an empty status arrives
// as zero-valued fields; the API server drops a created object's status anyway.
const Message kIgnoredStatus{"Status", {}, true};
const Message kOwnerReference{"OwnerReference",
                              {{1, "kind", T::kString},
                               {3, "name", T::kString},
                               {4, "uid", T::kString},
                               {5, "apiVersion", T::kString},
                               {6, "controller", T::kBool, false, nullptr, kKeep},
                               {7, "blockOwnerDeletion", T::kBool, false, nullptr, kKeep}}};
const Message kObjectMeta{"ObjectMeta",
                          {{1, "name", T::kString},
                           {2, "generateName", T::kString},
                           {3, "namespace", T::kString},
                           {4, "selfLink", T::kString},
                           {5, "uid", T::kString},
                           {6, "resourceVersion", T::kString},
                           {7, "generation", T::kInt},
                           {8, "creationTimestamp", T::kTime},
                           {9, "deletionTimestamp", T::kTime},
                           {10, "deletionGracePeriodSeconds", T::kInt, false, nullptr, kKeep},
                           {11, "labels", T::kStringMap},
                           {12, "annotations", T::kStringMap},
                           {13, "ownerReferences", T::kMessage, true, &kOwnerReference},
                           {14, "finalizers", T::kString, true}}};
const Message kLabelSelectorRequirement{
    "LabelSelectorRequirement",
    {{1, "key", T::kString, false, nullptr, kKeep}, {2, "operator", T::kString, false, nullptr, kKeep}, {3, "values", T::kString, true}}};
const Message kLabelSelector{"LabelSelector",
                             {{1, "matchLabels", T::kStringMap},
                              {2, "matchExpressions", T::kMessage, true, &kLabelSelectorRequirement}}};
const Message kContainerPort{"ContainerPort",
                             {{1, "name", T::kString},
                              {2, "hostPort", T::kInt},
                              {3, "containerPort", T::kInt, false, nullptr, kKeep},
                              {4, "protocol", T::kString},
                              {5, "hostIP", T::kString}}};
const Message kEnvVar{"EnvVar", {{1, "name", T::kString}, {2, "value", T::kString, false, nullptr, kKeep}}};
const Message kResourceRequirements{"ResourceRequirements",
                                    {{1, "limits", T::kQuantityMap}, {2, "requests", T::kQuantityMap}}};
const Message kContainer{"Container",
                         {{1, "name", T::kString},
                          {2, "image", T::kString},
                          {3, "command", T::kString, true},
                          {4, "args", T::kString, true},
                          {5, "workingDir", T::kString},
                          {6, "ports", T::kMessage, true, &kContainerPort},
                          {7, "env", T::kMessage, true, &kEnvVar},
                          {8, "resources", T::kMessage, false, &kResourceRequirements},
                          {13, "terminationMessagePath", T::kString},
                          {14, "imagePullPolicy", T::kString},
                          {16, "stdin", T::kBool},
                          {17, "stdinOnce", T::kBool},
                          {18, "tty", T::kBool},
                          {20, "terminationMessagePolicy", T::kString}}};
const Message kToleration{"Toleration",
                          {{1, "key", T::kString, false, nullptr, kKeep},
                           {2, "operator", T::kString, false, nullptr, kKeep},
                           {3, "value", T::kString, false, nullptr, kKeep},
                           {4, "effect", T::kString},
                           {5, "tolerationSeconds", T::kInt, false, nullptr, kKeep}}};
const Message kPodSpec{"PodSpec",
                       {{2, "containers", T::kMessage, true, &kContainer},
                        {3, "restartPolicy", T::kString},
                        {4, "terminationGracePeriodSeconds", T::kInt, false, nullptr, kKeep},
                        {5, "activeDeadlineSeconds", T::kInt, false, nullptr, kKeep},
                        {6, "dnsPolicy", T::kString},
                        {7, "nodeSelector", T::kStringMap},
                        {8, "serviceAccountName", T::kString},
                        {9, "serviceAccount", T::kString},
                        {10, "nodeName", T::kString},
                        {11, "hostNetwork", T::kBool},
                        {12, "hostPID", T::kBool},
                        {13, "hostIPC", T::kBool},
                        {14, "securityContext", T::kMessage, false, &kEmpty},
                        {16, "hostname", T::kString},
                        {17, "subdomain", T::kString},
                        {19, "schedulerName", T::kString},
                        {20, "initContainers", T::kMessage, true, &kContainer},
                        {22, "tolerations", T::kMessage, true, &kToleration},
                        {24, "priorityClassName", T::kString},
                        {25, "priority", T::kInt, false, nullptr, kKeep},
                        {30, "enableServiceLinks", T::kBool, false, nullptr, kKeep}}};
const Message kPodTemplateSpec{"PodTemplateSpec",
                               {{1, "metadata", T::kMessage, false, &kObjectMeta},
                                {2, "spec", T::kMessage, false, &kPodSpec}}};
const Message kRollingUpdateDeployment{"RollingUpdateDeployment",
                                       {{1, "maxUnavailable", T::kIntOrString}, {2, "maxSurge", T::kIntOrString}}};
const Message kDeploymentStrategy{
    "DeploymentStrategy",
    {{1, "type", T::kString}, {2, "rollingUpdate", T::kMessage, false, &kRollingUpdateDeployment}}};
const Message kDeploymentSpec{"DeploymentSpec",
                              {{1, "replicas", T::kInt, false, nullptr, kKeep},
                               {2, "selector", T::kMessage, false, &kLabelSelector},
                               {3, "template", T::kMessage, false, &kPodTemplateSpec},
                               {4, "strategy", T::kMessage, false, &kDeploymentStrategy},
                               {5, "minReadySeconds", T::kInt},
                               {6, "revisionHistoryLimit", T::kInt, false, nullptr, kKeep},
                               {7, "paused", T::kBool},
                               {9, "progressDeadlineSeconds", T::kInt, false, nullptr, kKeep}}};
const Message kNamespaceSpec{"NamespaceSpec", {{1, "finalizers", T::kString, true}}};
const Message kNamespaceStatus{"NamespaceStatus", {{1, "phase", T::kString}}};
const Message kPdbSpec{"PodDisruptionBudgetSpec",
                       {{1, "minAvailable", T::kIntOrString},
                        {2, "selector", T::kMessage, false, &kLabelSelector},
                        {3, "maxUnavailable", T::kIntOrString},
                        {4, "unhealthyPodEvictionPolicy", T::kString}}};

const Message kDeployment{"Deployment",
                          {{1, "metadata", T::kMessage, false, &kObjectMeta},
                           {2, "spec", T::kMessage, false, &kDeploymentSpec},
                           {3, "status", T::kMessage, false, &kIgnoredStatus}}};
const Message kNamespace{"Namespace",
                         {{1, "metadata", T::kMessage, false, &kObjectMeta},
                          {2, "spec", T::kMessage, false, &kNamespaceSpec},
                          {3, "status", T::kMessage, false, &kNamespaceStatus}}};
const Message kPriorityClass{"PriorityClass",
                             {{1, "metadata", T::kMessage, false, &kObjectMeta},
                              {2, "value", T::kInt, false, nullptr, kKeep},
                              {3, "globalDefault", T::kBool},
                              {4, "description", T::kString},
                              {5, "preemptionPolicy", T::kString}}};
const Message kPodDisruptionBudget{"PodDisruptionBudget",
                                   {{1, "metadata", T::kMessage, false, &kObjectMeta},
                                    {2, "spec", T::kMessage, false, &kPdbSpec},
                                    {3, "status", T::kMessage, false, &kIgnoredStatus}}};

// meta/v1 DeleteOptions and policy/v1 Eviction: request bodies, not stored
// kinds (kubectl drain's typed client sends both). Every DeleteOptions field
// is a pointer in Go, so a zero there was meant (gracePeriodSeconds: 0).
const Message kPreconditions{"Preconditions",
                             {{1, "uid", T::kString, false, nullptr, kKeep},
                              {2, "resourceVersion", T::kString, false, nullptr, kKeep}}};
const Message kDeleteOptions{"DeleteOptions",
                             {{1, "gracePeriodSeconds", T::kInt, false, nullptr, kKeep},
                              {2, "preconditions", T::kMessage, false, &kPreconditions},
                              {3, "orphanDependents", T::kBool, false, nullptr, kKeep},
                              {4, "propagationPolicy", T::kString, false, nullptr, kKeep},
                              {5, "dryRun", T::kString, true},
                              {6, "ignoreStoreReadErrorWithClusterBreakingPotential", T::kBool, false, nullptr,
                               kKeep}}};
const Message kEviction{"Eviction",
                        {{1, "metadata", T::kMessage, false, &kObjectMeta},
                         {2, "deleteOptions", T::kMessage, false, &kDeleteOptions}}};

Status Unsupported(std::string what) {
  return Status(StatusCode::kUnsupportedMediaType,
                "the body of the request was in an unknown format - berth decodes protobuf for some kinds and "
                "fields only (" + what + "); send application/json (e.g. kubectl ... --dry-run=client -o yaml | "
                "kubectl apply -f -)");
}

// A protobuf wire reader over one message's bytes.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      auto byte = static_cast<unsigned char>(data_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;
  }
  bool Bytes(std::string_view* out) {
    uint64_t n;
    if (!Varint(&n) || n > data_.size() - pos_) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Skip(int wire) {
    uint64_t v;
    std::string_view b;
    switch (wire) {
      case 0: return Varint(&v);
      case 1: return Advance(8);
      case 2: return Bytes(&b);
      case 5: return Advance(4);
      default: return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (n > data_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view data_;
  size_t pos_ = 0;
};

Status Malformed(const Message& m) { return Status::BadRequest("malformed protobuf in " + std::string(m.name)); }

// Reads the fields of a small message {1: string/varint, 2: varint ...} into slots.
struct Small {
  std::string s1, s3;
  int64_t v1 = 0, v2 = 0;
  std::string_view b2;  // field 2 as bytes
  bool has_b2 = false;
};
bool ReadSmall(std::string_view bytes, Small* out) {
  Reader r(bytes);
  while (!r.done()) {
    uint64_t key;
    if (!r.Varint(&key)) return false;
    int number = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (wire == 0) {
      uint64_t v;
      if (!r.Varint(&v)) return false;
      if (number == 1) out->v1 = static_cast<int64_t>(v);
      if (number == 2) out->v2 = static_cast<int64_t>(v);
    } else if (wire == 2) {
      std::string_view b;
      if (!r.Bytes(&b)) return false;
      if (number == 1) out->s1 = std::string(b);
      if (number == 2) {
        out->b2 = b;
        out->has_b2 = true;
      }
      if (number == 3) out->s3 = std::string(b);
    } else if (!r.Skip(wire)) {
      return false;
    }
  }
  return true;
}

Result<json::object> DecodeMessage(std::string_view bytes, const Message& m);

Result<json::value> DecodeValue(const Field& f, int wire, Reader& r, const Message& m) {
  if (f.type == T::kInt || f.type == T::kBool) {
    if (wire != 0) return Malformed(m);
    uint64_t v;
    if (!r.Varint(&v)) return Malformed(m);
    if (f.type == T::kBool) return json::value(v != 0);
    return json::value(static_cast<int64_t>(v));
  }
  if (wire != 2) return Malformed(m);
  std::string_view b;
  if (!r.Bytes(&b)) return Malformed(m);
  switch (f.type) {
    case T::kString:
      return json::value(json::string(b));
    case T::kMessage: {
      auto nested = DecodeMessage(b, *f.message);
      if (!nested.ok()) return nested.status();
      return json::value(std::move(nested).value());
    }
    case T::kTime: {
      Small t;
      if (!ReadSmall(b, &t)) return Malformed(m);
      if (t.v1 == 0 && t.v2 == 0) return json::value(nullptr);  // Go's zero time: null
      return json::value(api::FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(t.v1))));
    }
    case T::kQuantity: {
      Small q;
      if (!ReadSmall(b, &q)) return Malformed(m);
      return json::value(q.s1);
    }
    case T::kIntOrString: {
      Small v;
      if (!ReadSmall(b, &v)) return Malformed(m);
      if (v.v1 == 1) return json::value(v.s3);  // type String
      return json::value(v.v2);
    }
    default:
      return Malformed(m);
  }
}

Result<json::object> DecodeMessage(std::string_view bytes, const Message& m) {
  json::object out;
  if (m.ignored) return out;
  Reader r(bytes);
  while (!r.done()) {
    uint64_t key;
    if (!r.Varint(&key)) return Malformed(m);
    int number = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    const Field* field = nullptr;
    for (const auto& f : m.fields) {
      if (f.number == number) field = &f;
    }
    if (!field) return Unsupported(std::string(m.name) + " field " + std::to_string(number));
    if (field->type == T::kStringMap || field->type == T::kQuantityMap) {
      // A map entry: {1: key, 2: value}.
      std::string_view entry;
      if (wire != 2 || !r.Bytes(&entry)) return Malformed(m);
      Small e;
      if (!ReadSmall(entry, &e)) return Malformed(m);
      std::string value;
      if (field->type == T::kStringMap) {
        value = std::string(e.b2);
      } else {
        Small q;
        if (!ReadSmall(e.b2, &q)) return Malformed(m);
        value = q.s1;
      }
      json::value& map = out[field->name];
      if (!map.is_object()) map = json::object();
      map.get_object()[e.s1] = value;
      continue;
    }
    auto value = DecodeValue(*field, wire, r, m);
    if (!value.ok()) return value.status();
    const json::value& v = value.value();
    bool zero = (v.is_string() && v.get_string().empty()) || (v.is_int64() && v.get_int64() == 0) ||
                (v.is_bool() && !v.get_bool());
    bool scalar = field->type == T::kString || field->type == T::kInt || field->type == T::kBool;
    if (scalar && zero && !field->keep_zero && !field->repeated) continue;
    if (field->repeated) {
      json::value& list = out[field->name];
      if (!list.is_array()) list = json::array();
      list.get_array().push_back(std::move(value).value());
    } else {
      out[field->name] = std::move(value).value();
    }
  }
  return out;
}

const Message* MessageFor(api::Kind kind) {
  switch (kind) {
    case api::Kind::kDeployment: return &kDeployment;
    case api::Kind::kNamespace: return &kNamespace;
    case api::Kind::kPriorityClass: return &kPriorityClass;
    case api::Kind::kPodDisruptionBudget: return &kPodDisruptionBudget;
    default: return nullptr;
  }
}

}  // namespace

namespace {

// Reads the "k8s\0" envelope and decodes its raw message by `message`;
// apiVersion and kind come from the envelope, else the defaults given.
Result<json::value> DecodeEnvelope(std::string_view body, const Message& message, std::string_view default_api_version,
                                   std::string_view default_kind) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (!body.starts_with(kMagic)) return Status::BadRequest("protobuf body without the k8s envelope");
  // runtime.Unknown: 1 TypeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType.
  Reader r(body.substr(kMagic.size()));
  std::string api_version, kind_name;
  std::string_view raw;
  while (!r.done()) {
    uint64_t key;
    if (!r.Varint(&key)) return Status::BadRequest("malformed protobuf envelope");
    int number = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (wire != 2) {
      if (!r.Skip(wire)) return Status::BadRequest("malformed protobuf envelope");
      continue;
    }
    std::string_view b;
    if (!r.Bytes(&b)) return Status::BadRequest("malformed protobuf envelope");
    if (number == 1) {
      Small t;
      if (!ReadSmall(b, &t)) return Status::BadRequest("malformed protobuf envelope");
      api_version = t.s1;
      kind_name = std::string(t.b2);
    } else if (number == 2) {
      raw = b;
    } else if (number == 3 && !b.empty()) {
      return Unsupported("content encoding " + std::string(b));
    }
  }
  auto decoded = DecodeMessage(raw, message);
  if (!decoded.ok()) return decoded.status();
  json::object o = std::move(decoded).value();
  o["apiVersion"] = api_version.empty() ? std::string(default_api_version) : api_version;
  o["kind"] = kind_name.empty() ? std::string(default_kind) : kind_name;
  return json::value(std::move(o));
}

}  // namespace

Result<json::value> DecodeProtobuf(std::string_view body, api::Kind kind) {
  const api::KindInfo& info = api::Info(kind);
  const Message* message = MessageFor(kind);
  if (!message) return Unsupported(std::string(info.name) + " objects");
  return DecodeEnvelope(body, *message, info.ApiVersion(), info.name);
}

Result<json::value> DecodeProtobufDeleteOptions(std::string_view body) {
  return DecodeEnvelope(body, kDeleteOptions, "v1", "DeleteOptions");
}

Result<json::value> DecodeProtobufEviction(std::string_view body) {
  return DecodeEnvelope(body, kEviction, "policy/v1", "Eviction");
}

}  // namespace berth::apiserver
