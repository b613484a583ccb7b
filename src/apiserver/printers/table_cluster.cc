// Printers of discovery, networking, rbac, node, storage, scheduling and
// coordination kinds. Role, ClusterRole and CustomResourceDefinition have none
// in kube: they print Name + Created At.

#include <boost/json.hpp>
#include <set>

#include "api/json_fields.h"
#include "api/selector.h"
#include "apiserver/printers/table_printers.h"

namespace berth::apiserver::table {

namespace json = boost::json;
using api::ArrayAt;
using api::IntAt;
using api::ObjectAt;
using api::StringAt;
using Clock = std::chrono::system_clock;

namespace {

// kube's listWithMoreString: the first `max` items, " + N more..." for the
// rest, "<unset>" for none.
std::string ListWithMore(const std::vector<std::string>& items, size_t max) {
  if (items.empty()) return "<unset>";
  std::vector<std::string> shown(
      items.begin(), items.begin() + static_cast<ptrdiff_t>(std::min(max, items.size())));
  std::string out = Join(shown, ",");
  if (items.size() > max) out += " + " + std::to_string(items.size() - max) + " more...";
  return out;
}

// ---- EndpointSlice ----

constexpr Column kEndpointSliceColumns[] = {{"Name", "string", 0, "name"},
                                            {"AddressType", "string"},
                                            {"Ports", "string"},
                                            {"Endpoints", "string"},
                                            {"Age", "string"}};

void EndpointSliceRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object& o = object.json();
  std::vector<std::string> ports, addresses;
  if (const json::array* list = ArrayAt(o, "ports")) {
    for (const auto& p : *list) {
      const json::object* port = p.if_object();
      ports.push_back(Has(port, "port") ? std::to_string(IntAt(port, "port"))
                                        : Text(port, "name", "*"));
    }
  }
  if (const json::array* endpoints = ArrayAt(o, "endpoints")) {
    for (const auto& e : *endpoints) {
      if (const json::array* list = ArrayAt(e.if_object(), "addresses")) {
        for (const auto& a : *list) {
          if (a.is_string()) addresses.emplace_back(a.get_string());
        }
      }
    }
  }
  cells.emplace_back(object.name());
  cells.emplace_back(StringAt(o, "addressType"));
  cells.emplace_back(ListWithMore(ports, 3));
  cells.emplace_back(ListWithMore(addresses, 3));
  cells.emplace_back(Age(object, now));
}

// ---- Ingress, IngressClass, NetworkPolicy ----

constexpr Column kIngressColumns[] = {{"Name", "string", 0, "name"}, {"Class", "string"},
                                      {"Hosts", "string"},           {"Address", "string"},
                                      {"Ports", "string"},           {"Age", "string"}};

// kube's formatHosts: up to three rule hosts, "*" when no rule names one.
std::string IngressHosts(const json::array* rules) {
  constexpr size_t kMax = 3;
  std::vector<std::string> hosts;
  bool more = false;
  if (rules) {
    for (const auto& r : *rules) {
      if (hosts.size() == kMax) more = true;
      if (!more && !StringAt(r.if_object(), "host").empty())
        hosts.emplace_back(StringAt(r.if_object(), "host"));
    }
  }
  if (hosts.empty()) return "*";
  std::string out = Join(hosts, ",");
  if (more) out += " + " + std::to_string(rules->size() - kMax) + " more...";
  return out;
}

void IngressRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  std::set<std::string> addresses;  // IPs, else hostnames; sorted, each once
  if (const json::array* ingress =
          ArrayAt(ObjectAt(api::StatusOf(object), "loadBalancer"), "ingress")) {
    for (const auto& i : *ingress) {
      if (!StringAt(i.if_object(), "ip").empty()) {
        addresses.emplace(StringAt(i.if_object(), "ip"));
      } else if (!StringAt(i.if_object(), "hostname").empty()) {
        addresses.emplace(StringAt(i.if_object(), "hostname"));
      }
    }
  }
  const json::array* tls = ArrayAt(spec, "tls");
  cells.emplace_back(object.name());
  cells.emplace_back(Text(spec, "ingressClassName", "<none>"));
  cells.emplace_back(IngressHosts(ArrayAt(spec, "rules")));
  cells.emplace_back(Join({addresses.begin(), addresses.end()}, ","));
  cells.emplace_back(tls && !tls->empty() ? "80, 443" : "80");
  cells.emplace_back(Age(object, now));
}

constexpr Column kIngressClassColumns[] = {{"Name", "string", 0, "name"},
                                           {"Controller", "string"},
                                           {"Parameters", "string"},
                                           {"Age", "string"}};

void IngressClassRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  std::string parameters = "<none>";
  if (const json::object* p = ObjectAt(spec, "parameters")) {
    parameters = std::string(StringAt(p, "kind"));
    if (Has(p, "apiGroup")) parameters += "." + std::string(StringAt(p, "apiGroup"));
    parameters += "/" + std::string(StringAt(p, "name"));
  }
  cells.emplace_back(object.name());
  cells.emplace_back(StringAt(spec, "controller"));
  cells.emplace_back(parameters);
  cells.emplace_back(Age(object, now));
}

constexpr Column kNetworkPolicyColumns[] = {
    {"Name", "string", 0, "name"}, {"Pod-Selector", "string"}, {"Age", "string"}};

void NetworkPolicyRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::value* selector = spec ? spec->if_contains("podSelector") : nullptr;
  static const json::value kEverything = json::object();  // podSelector is not a pointer in kube
  cells.emplace_back(object.name());
  cells.emplace_back(
      FormatLabelSelector(selector && !selector->is_null() ? selector : &kEverything));
  cells.emplace_back(Age(object, now));
}

// ---- RoleBinding, ClusterRoleBinding ----

constexpr Column kRoleBindingColumns[] = {
    {"Name", "string", 0, "name"}, {"Role", "string"},      {"Age", "string"},
    {"Users", "string", 1},        {"Groups", "string", 1}, {"ServiceAccounts", "string", 1}};

void RoleBindingRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object& o = object.json();
  const json::object* role = ObjectAt(o, "roleRef");
  std::vector<std::string> users, groups, service_accounts;
  if (const json::array* subjects = ArrayAt(o, "subjects")) {
    for (const auto& s : *subjects) {
      const json::object* subject = s.if_object();
      std::string_view kind = StringAt(subject, "kind");
      std::string name(StringAt(subject, "name"));
      if (kind == "ServiceAccount")
        service_accounts.push_back(std::string(StringAt(subject, "namespace")) + "/" + name);
      if (kind == "User") users.push_back(name);
      if (kind == "Group") groups.push_back(name);
    }
  }
  cells.emplace_back(object.name());
  cells.emplace_back(std::string(StringAt(role, "kind")) + "/" +
                     std::string(StringAt(role, "name")));
  cells.emplace_back(Age(object, now));
  cells.emplace_back(Join(users, ", "));
  cells.emplace_back(Join(groups, ", "));
  cells.emplace_back(Join(service_accounts, ", "));
}

// ---- RuntimeClass ----

constexpr Column kRuntimeClassColumns[] = {
    {"Name", "string", 0, "name"}, {"Handler", "string"}, {"Age", "string"}};

void RuntimeClassRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  cells.emplace_back(StringAt(object.json(), "handler"));
  cells.emplace_back(Age(object, now));
}

// ---- Mutating/ValidatingWebhookConfiguration, APIService ----

constexpr Column kWebhookConfigurationColumns[] = {
    {"Name", "string", 0, "name"}, {"Webhooks", "integer"}, {"Age", "string"}};

void WebhookConfigurationRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  const json::array* hooks = api::ArrayAt(object.json(), "webhooks");
  cells.emplace_back(static_cast<int64_t>(hooks ? hooks->size() : 0));
  cells.emplace_back(Age(object, now));
}

constexpr Column kAPIServiceColumns[] = {
    {"Name", "string", 0, "name"}, {"Service", "string"}, {"Available", "string"}, {"Age", "string"}};

// kube-aggregator's printer: "Local" or namespace/name; the Available
// condition's status, with its reason when not True.
void APIServiceRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  const json::object* spec = api::ObjectAt(object.json(), "spec");
  const json::object* service = api::ObjectAt(spec, "service");
  cells.emplace_back(service ? std::string(api::StringAt(service, "namespace")) + "/" +
                                   std::string(api::StringAt(service, "name"))
                             : std::string("Local"));
  std::string available = "Unknown";
  if (const json::array* conditions = api::ArrayAt(api::ObjectAt(object.json(), "status"), "conditions")) {
    for (const auto& c : *conditions) {
      const json::object* condition = c.if_object();
      if (condition == nullptr || api::StringAt(condition, "type") != "Available") continue;
      available = std::string(api::StringAt(condition, "status"));
      if (available != "True") available += " (" + std::string(api::StringAt(condition, "reason")) + ")";
    }
  }
  cells.emplace_back(available);
  cells.emplace_back(Age(object, now));
}

// ---- StorageClass, CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment ----

constexpr Column kStorageClassColumns[] = {
    {"Name", "string", 0, "name"},      {"Provisioner", "string"},
    {"ReclaimPolicy", "string"},        {"VolumeBindingMode", "string"},
    {"AllowVolumeExpansion", "string"}, {"Age", "string"}};

void StorageClassRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object& o = object.json();
  bool is_default =
      api::Annotation(object, "storageclass.kubernetes.io/is-default-class") == "true" ||
      api::Annotation(object, "storageclass.beta.kubernetes.io/is-default-class") == "true";
  cells.emplace_back(is_default ? object.name() + " (default)" : object.name());
  cells.emplace_back(StringAt(o, "provisioner"));
  cells.emplace_back(Text(&o, "reclaimPolicy", "Delete"));
  cells.emplace_back(Text(&o, "volumeBindingMode", "Immediate"));
  cells.emplace_back(api::BoolAt(&o, "allowVolumeExpansion"));
  cells.emplace_back(Age(object, now));
}

constexpr Column kCSIDriverColumns[] = {
    {"Name", "string", 0, "name"}, {"AttachRequired", "boolean"},
    {"PodInfoOnMount", "boolean"}, {"StorageCapacity", "boolean"},
    {"TokenRequests", "string"},   {"RequiresRepublish", "boolean"},
    {"Modes", "string"},           {"Age", "string"}};

void CSIDriverRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  std::vector<std::string> modes;
  if (const json::array* list = ArrayAt(spec, "volumeLifecycleModes")) {
    for (const auto& m : *list) {
      if (m.is_string()) modes.emplace_back(m.get_string());
    }
  }
  std::string token_requests = "<unset>";
  if (const json::array* list = ArrayAt(spec, "tokenRequests")) {
    std::vector<std::string> audiences;
    for (const auto& t : *list) audiences.emplace_back(StringAt(t.if_object(), "audience"));
    token_requests = Join(audiences, ",");
  }
  cells.emplace_back(object.name());
  cells.emplace_back(Has(spec, "attachRequired") ? api::BoolAt(spec, "attachRequired") : true);
  cells.emplace_back(api::BoolAt(spec, "podInfoOnMount"));
  cells.emplace_back(api::BoolAt(spec, "storageCapacity"));
  cells.emplace_back(token_requests);
  cells.emplace_back(api::BoolAt(spec, "requiresRepublish"));
  cells.emplace_back(Join(modes, ",", "<none>"));
  cells.emplace_back(Age(object, now));
}

constexpr Column kCSINodeColumns[] = {
    {"Name", "string", 0, "name"}, {"Drivers", "integer"}, {"Age", "string"}};

void CSINodeRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::array* drivers = ArrayAt(api::Spec(object), "drivers");
  cells.emplace_back(object.name());
  cells.emplace_back(drivers ? drivers->size() : 0);
  cells.emplace_back(Age(object, now));
}

constexpr Column kCSIStorageCapacityColumns[] = {
    {"Name", "string", 0, "name"}, {"StorageClassName", "string"}, {"Capacity", "string"}};

void CSIStorageCapacityRow(const api::Object& object, Clock::time_point, json::array& cells) {
  const json::object& o = object.json();
  cells.emplace_back(object.name());
  cells.emplace_back(StringAt(o, "storageClassName"));
  cells.emplace_back(Has(&o, "capacity") ? QuantityText(o.if_contains("capacity")) : "<unset>");
}

constexpr Column kVolumeAttachmentColumns[] = {{"Name", "string", 0, "name"},
                                               {"Attacher", "string", 0, "name"},
                                               {"PV", "string"},
                                               {"Node", "string"},
                                               {"Attached", "boolean"},
                                               {"Age", "string"}};

void VolumeAttachmentRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  cells.emplace_back(object.name());
  cells.emplace_back(StringAt(spec, "attacher"));
  cells.emplace_back(StringAt(ObjectAt(spec, "source"), "persistentVolumeName"));
  cells.emplace_back(StringAt(spec, "nodeName"));
  cells.emplace_back(api::BoolAt(api::StatusOf(object), "attached"));
  cells.emplace_back(Age(object, now));
}

// ---- PriorityClass, Lease ----

constexpr Column kPriorityClassColumns[] = {{"Name", "string", 0, "name"},
                                            {"Value", "integer"},
                                            {"Global-Default", "boolean"},
                                            {"Age", "string"},
                                            {"PreemptionPolicy", "string"}};

void PriorityClassRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object& o = object.json();
  cells.emplace_back(object.name());
  cells.emplace_back(IntAt(&o, "value"));
  cells.emplace_back(api::BoolAt(&o, "globalDefault"));
  cells.emplace_back(Age(object, now));
  cells.emplace_back(Text(&o, "preemptionPolicy", "PreemptLowerPriority"));
}

constexpr Column kLeaseColumns[] = {
    {"Name", "string", 0, "name"}, {"Holder", "string"}, {"Age", "string"}};

void LeaseRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  cells.emplace_back(StringAt(api::Spec(object), "holderIdentity"));
  cells.emplace_back(Age(object, now));
}

constexpr KindPrinter kPrinters[] = {
    {api::Kind::kEndpointSlice, kEndpointSliceColumns, EndpointSliceRow},
    {api::Kind::kIngress, kIngressColumns, IngressRow},
    {api::Kind::kIngressClass, kIngressClassColumns, IngressClassRow},
    {api::Kind::kNetworkPolicy, kNetworkPolicyColumns, NetworkPolicyRow},
    {api::Kind::kRoleBinding, kRoleBindingColumns, RoleBindingRow},
    {api::Kind::kClusterRoleBinding, kRoleBindingColumns, RoleBindingRow},
    {api::Kind::kRuntimeClass, kRuntimeClassColumns, RuntimeClassRow},
    {api::Kind::kStorageClass, kStorageClassColumns, StorageClassRow},
    {api::Kind::kCSIDriver, kCSIDriverColumns, CSIDriverRow},
    {api::Kind::kCSINode, kCSINodeColumns, CSINodeRow},
    {api::Kind::kCSIStorageCapacity, kCSIStorageCapacityColumns, CSIStorageCapacityRow},
    {api::Kind::kVolumeAttachment, kVolumeAttachmentColumns, VolumeAttachmentRow},
    {api::Kind::kPriorityClass, kPriorityClassColumns, PriorityClassRow},
    {api::Kind::kLease, kLeaseColumns, LeaseRow},
    {api::Kind::kMutatingWebhookConfiguration, kWebhookConfigurationColumns, WebhookConfigurationRow},
    {api::Kind::kValidatingWebhookConfiguration, kWebhookConfigurationColumns, WebhookConfigurationRow},
    {api::Kind::kAPIService, kAPIServiceColumns, APIServiceRow},
};

}  // namespace

std::span<const KindPrinter> ClusterPrinters() { return kPrinters; }

}  // namespace berth::apiserver::table
