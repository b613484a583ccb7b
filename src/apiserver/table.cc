#include "apiserver/table.h"

#include <ctime>
#include <vector>

#include <boost/json.hpp>

#include "api/duration.h"
#include "api/json_fields.h"
#include "api/rfc3339.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

struct Column {
  std::string_view name;
  std::string_view type;  // string, integer, date
  int priority;           // 1: only with -o wide
};

std::string Str(const json::object* o, std::string_view key, std::string_view fallback = "") {
  if (!o) return std::string(fallback);
  auto it = o->find(key);
  if (it == o->end() || it->value().is_null()) return std::string(fallback);
  if (it->value().is_string()) {
    return it->value().get_string().empty() ? std::string(fallback) : std::string(it->value().get_string());
  }
  return json::serialize(it->value());
}

int64_t Int(const json::object* o, std::string_view key) {
  if (!o) return 0;
  auto it = o->find(key);
  return it != o->end() && it->value().is_number() ? it->value().to_number<int64_t>() : 0;
}

std::string Age(const json::object& object, std::string_view field, std::chrono::system_clock::time_point now) {
  const json::object* meta = api::ObjectAt(object, "metadata");
  auto t = api::ParseRfc3339(Str(meta, field));
  if (!t) return "<unknown>";
  return api::HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep, std::string_view empty = "<none>") {
  if (parts.empty()) return std::string(empty);
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// kube's pod STATUS column rule, simplified to the states berth can produce.
std::string PodStatus(const json::object& pod) {
  const json::object* status = api::ObjectAt(pod, "status");
  std::string reason = Str(status, "reason", Str(status, "phase", "Pending"));
  const json::array* init = api::ArrayAt(status, "initContainerStatuses");
  if (init) {
    size_t i = 0;
    for (const auto& c : *init) {
      const json::object* state = c.is_object() ? api::ObjectAt(c.get_object(), "state") : nullptr;
      const json::object* terminated = state ? api::ObjectAt(*state, "terminated") : nullptr;
      const json::object* waiting = state ? api::ObjectAt(*state, "waiting") : nullptr;
      if (terminated && Int(terminated, "exitCode") == 0) {
        ++i;
        continue;
      }
      if (terminated) return "Init:" + Str(terminated, "reason", "Error");
      if (waiting && !Str(waiting, "reason").empty() && Str(waiting, "reason") != "PodInitializing") {
        return "Init:" + Str(waiting, "reason");
      }
      return "Init:" + std::to_string(i) + "/" + std::to_string(init->size());
    }
  }
  if (const json::array* containers = api::ArrayAt(status, "containerStatuses")) {
    for (auto it = containers->rbegin(); it != containers->rend(); ++it) {
      const json::object* state = it->is_object() ? api::ObjectAt(it->get_object(), "state") : nullptr;
      if (!state) continue;
      if (const json::object* waiting = api::ObjectAt(*state, "waiting"); waiting && !Str(waiting, "reason").empty()) {
        reason = Str(waiting, "reason");
      } else if (const json::object* terminated = api::ObjectAt(*state, "terminated")) {
        reason = Str(terminated, "reason", "Error");
      }
    }
  }
  const json::object* meta = api::ObjectAt(pod, "metadata");
  if (meta && meta->contains("deletionTimestamp")) {
    reason = Str(status, "reason") == "NodeLost" ? "Unknown" : "Terminating";
  }
  return reason;
}

std::vector<Column> ColumnsFor(api::Kind kind) {
  switch (kind) {
    case api::Kind::kPod:
      return {{"Name", "string", 0}, {"Ready", "string", 0}, {"Status", "string", 0},
              {"Restarts", "string", 0}, {"Age", "string", 0}, {"IP", "string", 1},
              {"Node", "string", 1}, {"Nominated Node", "string", 1}, {"Readiness Gates", "string", 1}};
    case api::Kind::kNode:
      return {{"Name", "string", 0}, {"Status", "string", 0}, {"Roles", "string", 0},
              {"Age", "string", 0}, {"Version", "string", 0}, {"Internal-IP", "string", 1},
              {"External-IP", "string", 1}, {"OS-Image", "string", 1},
              {"Kernel-Version", "string", 1}, {"Container-Runtime", "string", 1}};
    case api::Kind::kNamespace:
      return {{"Name", "string", 0}, {"Status", "string", 0}, {"Age", "string", 0}};
    case api::Kind::kDeployment:
      return {{"Name", "string", 0}, {"Ready", "string", 0}, {"Up-to-date", "integer", 0},
              {"Available", "integer", 0}, {"Age", "string", 0}, {"Containers", "string", 1},
              {"Images", "string", 1}, {"Selector", "string", 1}};
    case api::Kind::kReplicaSet:
      return {{"Name", "string", 0}, {"Desired", "integer", 0}, {"Current", "integer", 0},
              {"Ready", "integer", 0}, {"Age", "string", 0}, {"Containers", "string", 1},
              {"Images", "string", 1}, {"Selector", "string", 1}};
    case api::Kind::kEvent:
      return {{"Last Seen", "string", 0}, {"Type", "string", 0}, {"Reason", "string", 0},
              {"Object", "string", 0}, {"Message", "string", 0}};
    case api::Kind::kPersistentVolumeClaim:
      return {{"Name", "string", 0}, {"Status", "string", 0}, {"Volume", "string", 0},
              {"Capacity", "string", 0}, {"Access Modes", "string", 0},
              {"StorageClass", "string", 0}, {"Age", "string", 0}};
    case api::Kind::kPersistentVolume:
      return {{"Name", "string", 0}, {"Capacity", "string", 0}, {"Access Modes", "string", 0},
              {"Reclaim Policy", "string", 0}, {"Status", "string", 0}, {"Claim", "string", 0},
              {"StorageClass", "string", 0}, {"Age", "string", 0}};
    case api::Kind::kPriorityClass:
      return {{"Name", "string", 0}, {"Value", "integer", 0}, {"Global-Default", "boolean", 0},
              {"Age", "string", 0}};
    case api::Kind::kPodDisruptionBudget:
      return {{"Name", "string", 0}, {"Min Available", "string", 0}, {"Max Unavailable", "string", 0},
              {"Allowed Disruptions", "integer", 0}, {"Age", "string", 0}};
    default:
      return {{"Name", "string", 0}, {"Created At", "date", 0}};
  }
}

std::string AccessModes(const json::array* modes) {
  std::vector<std::string> out;
  if (modes) {
    for (const auto& m : *modes) {
      if (!m.is_string()) continue;
      std::string_view s = m.get_string();
      if (s == "ReadWriteOnce") out.push_back("RWO");
      else if (s == "ReadOnlyMany") out.push_back("ROX");
      else if (s == "ReadWriteMany") out.push_back("RWX");
      else if (s == "ReadWriteOncePod") out.push_back("RWOP");
    }
  }
  return Join(out, ",", "");
}

// Containers, Images and Selector of a workload (deployment, replicaset).
void WorkloadWide(const json::object& o, json::array& cells) {
  const json::object* spec = api::ObjectAt(o, "spec");
  const json::object* tmpl = spec ? api::ObjectAt(*spec, "template") : nullptr;
  const json::object* pod_spec = tmpl ? api::ObjectAt(*tmpl, "spec") : nullptr;
  std::vector<std::string> names, images;
  if (const json::array* cs = api::ArrayAt(pod_spec, "containers")) {
    for (const auto& c : *cs) {
      if (!c.is_object()) continue;
      names.push_back(Str(&c.get_object(), "name"));
      images.push_back(Str(&c.get_object(), "image"));
    }
  }
  std::vector<std::string> selector;
  const json::object* sel = spec ? api::ObjectAt(*spec, "selector") : nullptr;
  if (const json::object* ml = sel ? api::ObjectAt(*sel, "matchLabels") : nullptr) {
    for (const auto& kv : *ml) {
      selector.push_back(std::string(kv.key()) + "=" + (kv.value().is_string() ? std::string(kv.value().get_string()) : ""));
    }
  }
  cells.emplace_back(Join(names, ","));
  cells.emplace_back(Join(images, ","));
  cells.emplace_back(Join(selector, ","));
}

json::array Cells(api::Kind kind, const api::Object& object, std::chrono::system_clock::time_point now) {
  const json::object& o = object.json();
  const json::object* meta = api::ObjectAt(o, "metadata");
  const json::object* spec = api::ObjectAt(o, "spec");
  const json::object* status = api::ObjectAt(o, "status");
  json::array cells;
  switch (kind) {
    case api::Kind::kPod: {
      size_t total = api::ArrayAt(spec, "containers") ? api::ArrayAt(spec, "containers")->size() : 0;
      size_t ready = 0;
      int64_t restarts = 0;
      if (const json::array* cs = api::ArrayAt(status, "containerStatuses")) {
        for (const auto& c : *cs) {
          if (!c.is_object()) continue;
          if (auto r = c.get_object().find("ready"); r != c.get_object().end() && r->value() == true) ++ready;
          restarts += Int(&c.get_object(), "restartCount");
        }
      }
      cells.emplace_back(object.name());
      cells.emplace_back(std::to_string(ready) + "/" + std::to_string(total));
      cells.emplace_back(PodStatus(o));
      cells.emplace_back(std::to_string(restarts));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      cells.emplace_back(Str(status, "podIP", "<none>"));
      cells.emplace_back(Str(spec, "nodeName", "<none>"));
      cells.emplace_back(Str(status, "nominatedNodeName", "<none>"));
      cells.emplace_back("<none>");
      break;
    }
    case api::Kind::kNode: {
      std::string state = "Unknown";
      if (const json::array* conditions = api::ArrayAt(status, "conditions")) {
        for (const auto& c : *conditions) {
          if (!c.is_object() || Str(&c.get_object(), "type") != "Ready") continue;
          std::string s = Str(&c.get_object(), "status");
          state = s == "True" ? "Ready" : s == "False" ? "NotReady" : "Unknown";
        }
      }
      if (spec) {
        if (auto u = spec->find("unschedulable"); u != spec->end() && u->value() == true) state += ",SchedulingDisabled";
      }
      std::vector<std::string> roles;
      for (const auto& [key, value] : object.labels()) {
        constexpr std::string_view kRolePrefix = "node-role.kubernetes.io/";
        if (key.starts_with(kRolePrefix) && key.size() > kRolePrefix.size()) roles.push_back(key.substr(kRolePrefix.size()));
        if (key == "kubernetes.io/role" && !value.empty()) roles.push_back(value);
      }
      const json::object* info = status ? api::ObjectAt(*status, "nodeInfo") : nullptr;
      std::string internal_ip = "<none>", external_ip = "<none>";
      if (const json::array* addresses = api::ArrayAt(status, "addresses")) {
        for (const auto& a : *addresses) {
          if (!a.is_object()) continue;
          std::string type = Str(&a.get_object(), "type");
          if (type == "InternalIP" && internal_ip == "<none>") internal_ip = Str(&a.get_object(), "address", "<none>");
          if (type == "ExternalIP" && external_ip == "<none>") external_ip = Str(&a.get_object(), "address", "<none>");
        }
      }
      cells.emplace_back(object.name());
      cells.emplace_back(state);
      cells.emplace_back(Join(roles, ","));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      cells.emplace_back(Str(info, "kubeletVersion", ""));
      cells.emplace_back(internal_ip);
      cells.emplace_back(external_ip);
      cells.emplace_back(Str(info, "osImage", "<unknown>"));
      cells.emplace_back(Str(info, "kernelVersion", "<unknown>"));
      cells.emplace_back(Str(info, "containerRuntimeVersion", "<unknown>"));
      break;
    }
    case api::Kind::kNamespace:
      cells.emplace_back(object.name());
      cells.emplace_back(Str(status, "phase", "Active"));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      break;
    case api::Kind::kDeployment:
      cells.emplace_back(object.name());
      cells.emplace_back(std::to_string(Int(status, "readyReplicas")) + "/" + std::to_string(Int(spec, "replicas")));
      cells.emplace_back(Int(status, "updatedReplicas"));
      cells.emplace_back(Int(status, "availableReplicas"));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      WorkloadWide(o, cells);
      break;
    case api::Kind::kReplicaSet:
      cells.emplace_back(object.name());
      cells.emplace_back(Int(spec, "replicas"));
      cells.emplace_back(Int(status, "replicas"));
      cells.emplace_back(Int(status, "readyReplicas"));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      WorkloadWide(o, cells);
      break;
    case api::Kind::kEvent: {
      const json::object* involved = api::ObjectAt(o, "involvedObject");
      std::string kind_name = Str(involved, "kind");
      for (auto& ch : kind_name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      std::string last = Str(&o, "lastTimestamp");
      auto t = api::ParseRfc3339(last.empty() ? Str(&o, "eventTime") : last);
      cells.emplace_back(t ? api::HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t)) : "<unknown>");
      cells.emplace_back(Str(&o, "type"));
      cells.emplace_back(Str(&o, "reason"));
      cells.emplace_back(kind_name + "/" + Str(involved, "name"));
      cells.emplace_back(Str(&o, "message"));
      break;
    }
    case api::Kind::kPersistentVolumeClaim: {
      const json::object* capacity = status ? api::ObjectAt(*status, "capacity") : nullptr;
      cells.emplace_back(object.name());
      cells.emplace_back(Str(status, "phase"));
      cells.emplace_back(Str(spec, "volumeName"));
      cells.emplace_back(Str(capacity, "storage"));
      cells.emplace_back(AccessModes(api::ArrayAt(status, "accessModes")));
      cells.emplace_back(Str(spec, "storageClassName", "<unset>"));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      break;
    }
    case api::Kind::kPersistentVolume: {
      const json::object* capacity = spec ? api::ObjectAt(*spec, "capacity") : nullptr;
      const json::object* claim = spec ? api::ObjectAt(*spec, "claimRef") : nullptr;
      cells.emplace_back(object.name());
      cells.emplace_back(Str(capacity, "storage"));
      cells.emplace_back(AccessModes(api::ArrayAt(spec, "accessModes")));
      cells.emplace_back(Str(spec, "persistentVolumeReclaimPolicy"));
      cells.emplace_back(Str(status, "phase"));
      cells.emplace_back(claim ? Str(claim, "namespace") + "/" + Str(claim, "name") : "");
      cells.emplace_back(Str(spec, "storageClassName"));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      break;
    }
    case api::Kind::kPodDisruptionBudget: {
      // kube's printer: the int-or-percent as written, N/A when unset.
      auto int_or_percent = [&](std::string_view field) -> std::string {
        const json::value* v = spec ? spec->if_contains(field) : nullptr;
        if (!v || v->is_null()) return "N/A";
        if (v->is_string()) return std::string(v->get_string());
        return json::serialize(*v);
      };
      cells.emplace_back(object.name());
      cells.emplace_back(int_or_percent("minAvailable"));
      cells.emplace_back(int_or_percent("maxUnavailable"));
      cells.emplace_back(Int(status, "disruptionsAllowed"));
      cells.emplace_back(Age(o, "creationTimestamp", now));
      break;
    }
    case api::Kind::kPriorityClass: {
      cells.emplace_back(object.name());
      cells.emplace_back(Int(&o, "value"));
      auto g = o.find("globalDefault");
      cells.emplace_back(g != o.end() && g->value() == true);
      cells.emplace_back(Age(o, "creationTimestamp", now));
      break;
    }
    default:
      cells.emplace_back(object.name());
      cells.emplace_back(Str(meta, "creationTimestamp"));
  }
  return cells;
}

}  // namespace

bool WantsTable(std::string_view accept) {
  return accept.find("as=Table") != std::string_view::npos &&
         accept.find("g=meta.k8s.io") != std::string_view::npos;
}

json::object MakeTable(api::Kind kind, std::span<const api::ObjectPtr> objects,
                       std::string_view resource_version, std::string_view continue_token,
                       const TableOptions& options) {
  json::object table;
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/v1";
  json::object meta{{"resourceVersion", resource_version}};
  if (!continue_token.empty()) meta["continue"] = continue_token;
  table["metadata"] = std::move(meta);
  if (options.include_column_definitions) {
    json::array columns;
    for (const Column& c : ColumnsFor(kind)) {
      columns.push_back(json::object{{"name", c.name},
                                     {"type", c.type},
                                     {"format", c.name == "Name" ? "name" : ""},
                                     {"description", ""},
                                     {"priority", c.priority}});
    }
    table["columnDefinitions"] = std::move(columns);
  } else {
    table["columnDefinitions"] = nullptr;
  }
  json::array rows;
  for (const auto& object : objects) {
    json::object row;
    row["cells"] = Cells(kind, *object, options.now);
    if (options.include_object == IncludeObject::kObject) {
      row["object"] = json::parse(object->Encoded());
    } else if (options.include_object == IncludeObject::kMetadata) {
      json::value full = json::parse(object->Encoded());
      json::object partial;
      partial["kind"] = "PartialObjectMetadata";
      partial["apiVersion"] = "meta.k8s.io/v1";
      partial["metadata"] = full.as_object()["metadata"];
      row["object"] = std::move(partial);
    }
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace berth::apiserver
