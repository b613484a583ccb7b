#include "api/defaults.h"

#include <boost/json.hpp>
#include <array>
#include <cstdint>

#include "api/codec/base64.h"
#include "api/defaults_internal.h"
#include "api/json_fields.h"
#include "api/quantity_json.h"

namespace berth::api {

namespace json = boost::json;

namespace {

// Sets o[key] = value when o has no (non-null) member `key`.
void SetDefault(json::object& o, std::string_view key, json::value value) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) o[key] = std::move(value);
}

bool Has(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && !it->value().is_null();
}

// A workload's metadata.labels from its template's, when it has none.
void LabelsFromTemplate(json::object& object, const json::object& spec) {
  const json::object* labels =
      ObjectAt(ObjectAt(ObjectAt(&spec, "template"), "metadata"), "labels");
  if (!labels) return;
  json::object& meta = MutableObject(object, "metadata");
  const json::object* own = ObjectAt(&meta, "labels");
  if (!own || own->empty()) meta["labels"] = *labels;
}

void DefaultSecret(json::object& secret) {
  if (StringAt(secret, "type").empty()) secret["type"] = "Opaque";
}

void DefaultServiceSpec(json::object& spec) {
  SetDefault(spec, "type", "ClusterIP");
  const std::string type(StringAt(spec, "type"));
  SetDefault(spec, "sessionAffinity", "None");
  if (StringAt(spec, "sessionAffinity") == "None") spec.erase("sessionAffinityConfig");
  if (StringAt(spec, "sessionAffinity") == "ClientIP") {
    json::object& config = MutableObject(MutableObject(spec, "sessionAffinityConfig"), "clientIP");
    SetDefault(config, "timeoutSeconds", 10800);
  }
  if (auto ports = spec.find("ports"); ports != spec.end() && ports->value().is_array()) {
    for (auto& p : ports->value().get_array()) {
      if (!p.is_object()) continue;
      json::object& port = p.get_object();
      SetDefault(port, "protocol", "TCP");
      const json::value* target = port.if_contains("targetPort");
      const bool unset = !target || target->is_null() ||
                         (target->is_number() && target->to_number<double>() == 0) ||
                         (target->is_string() && target->get_string().empty());
      if (unset && Has(port, "port")) port["targetPort"] = port["port"];
    }
  }
  if (type == "ExternalName") return;
  if (!Has(spec, "clusterIPs") && !StringAt(spec, "clusterIP").empty()) {
    spec["clusterIPs"] = json::array{spec["clusterIP"]};
  }
  SetDefault(spec, "ipFamilyPolicy", "SingleStack");
  SetDefault(spec, "ipFamilies", json::array{"IPv4"});
  SetDefault(spec, "internalTrafficPolicy", "Cluster");
  if (type == "NodePort" || type == "LoadBalancer")
    SetDefault(spec, "externalTrafficPolicy", "Cluster");
  if (type == "LoadBalancer") SetDefault(spec, "allocateLoadBalancerNodePorts", true);
}

// A Service's status is a struct in kube's types, never omitted: at least
// {"loadBalancer":{}}. A LoadBalancer's ingress addresses get ipMode VIP.
void DefaultService(json::object& service) {
  DefaultServiceSpec(MutableObject(service, "spec"));
  const bool load_balancer = StringAt(ObjectAt(service, "spec"), "type") == "LoadBalancer";
  json::object& balancer = MutableObject(MutableObject(service, "status"), "loadBalancer");
  if (json::value* ingress = balancer.if_contains("ingress");
      load_balancer && ingress && ingress->is_array()) {
    for (json::value& address : ingress->get_array()) {
      json::object* a = address.if_object();
      if (a && !StringAt(*a, "ip").empty()) SetDefault(*a, "ipMode", "VIP");
    }
  }
}

void DefaultJob(json::object& job) {
  json::object& spec = MutableObject(job, "spec");
  if (!Has(spec, "completions") && !Has(spec, "parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  SetDefault(spec, "parallelism", 1);
  SetDefault(spec, "backoffLimit", Has(spec, "backoffLimitPerIndex") ? INT32_MAX : 6);
  SetDefault(spec, "completionMode", "NonIndexed");
  SetDefault(spec, "suspend", false);
  SetDefault(spec, "podReplacementPolicy",
             Has(spec, "podFailurePolicy") ? "Failed" : "TerminatingOrFailed");
  if (json::value* policy = spec.if_contains("podFailurePolicy"); policy && policy->is_object()) {
    ForEachItem(policy->get_object(), "rules", [](json::object& rule) {
      ForEachItem(rule, "onPodConditions",
                  [](json::object& pattern) { SetIfZero(pattern, "status", "True"); });
    });
  }
  LabelsFromTemplate(job, spec);
}

void DefaultCronJob(json::object& cron_job) {
  json::object& spec = MutableObject(cron_job, "spec");
  SetDefault(spec, "concurrencyPolicy", "Allow");
  SetDefault(spec, "suspend", false);
  SetDefault(spec, "successfulJobsHistoryLimit", 3);
  SetDefault(spec, "failedJobsHistoryLimit", 1);
}

void DefaultStatefulSet(json::object& stateful_set) {
  json::object& spec = MutableObject(stateful_set, "spec");
  SetDefault(spec, "replicas", 1);
  SetDefault(spec, "podManagementPolicy", "OrderedReady");
  // A defaulted type brings a rollingUpdate; an explicit RollingUpdate
  // without one stays without.
  json::object& strategy = MutableObject(spec, "updateStrategy");
  if (StringAt(strategy, "type").empty()) {
    strategy["type"] = "RollingUpdate";
    MutableObject(strategy, "rollingUpdate");
  }
  if (json::value* rolling = strategy.if_contains("rollingUpdate");
      StringAt(strategy, "type") == "RollingUpdate" && rolling && rolling->is_object()) {
    SetDefault(rolling->get_object(), "partition", 0);
  }
  SetDefault(spec, "revisionHistoryLimit", 10);
  json::object& retention = MutableObject(spec, "persistentVolumeClaimRetentionPolicy");
  SetDefault(retention, "whenDeleted", "Retain");
  SetDefault(retention, "whenScaled", "Retain");
  LabelsFromTemplate(stateful_set, spec);
}

void DefaultDaemonSet(json::object& daemon_set) {
  json::object& spec = MutableObject(daemon_set, "spec");
  json::object& strategy = MutableObject(spec, "updateStrategy");
  SetDefault(strategy, "type", "RollingUpdate");
  if (StringAt(strategy, "type") == "RollingUpdate") {
    json::object& rolling = MutableObject(strategy, "rollingUpdate");
    SetDefault(rolling, "maxUnavailable", 1);
    SetDefault(rolling, "maxSurge", 0);
  }
  SetDefault(spec, "revisionHistoryLimit", 10);
}

}  // namespace

void PrepareSecret(json::object& secret) {
  if (auto it = secret.find("stringData"); it != secret.end()) {
    // Taken out first: adding "data" may move the secret's members.
    json::value strings = std::move(it->value());
    secret.erase("stringData");
    if (const json::object* s = strings.if_object(); s && !s->empty()) {
      json::object& data = MutableObject(secret, "data");
      for (const auto& kv : *s) {
        if (kv.value().is_string()) data[kv.key()] = Base64Encode(kv.value().get_string());
      }
    }
  }
  DefaultSecret(secret);
}

namespace {

// kube's SetDefaults_LimitRangeItem: a Container item's default limit from
// its max, its default request from the default limit, then from its min.
void DefaultLimitRange(json::object& limit_range) {
  json::value* limits = MutableObject(limit_range, "spec").if_contains("limits");
  if (!limits || !limits->is_array()) return;
  for (auto& item : limits->get_array()) {
    json::object* o = item.if_object();
    if (!o || StringAt(*o, "type") != "Container") continue;
    auto fill = [&](std::string_view into, std::string_view from) {
      const json::object* source = ObjectAt(*o, from);
      if (!source) return;
      const json::object copy = *source;  // `into` may grow *o and move `source`
      json::object& target = MutableObject(*o, into);
      for (const auto& [name, value] : copy) {
        if (!target.contains(name)) target[name] = value;
      }
    };
    fill("default", "max");
    fill("defaultRequest", "default");
    fill("defaultRequest", "min");
  }
}

void DefaultReplicaSet(json::object& replica_set) {
  SetDefault(MutableObject(replica_set, "spec"), "replicas", 1);
}

// kube's SetDefaults_ReplicationController: the template's labels are the
// selector and the controller's labels where those are empty; one replica.
void DefaultReplicationController(json::object& controller) {
  json::object& spec = MutableObject(controller, "spec");
  SetDefault(spec, "replicas", 1);
  const json::object* labels =
      ObjectAt(ObjectAt(ObjectAt(&spec, "template"), "metadata"), "labels");
  if (!labels) return;
  const json::object template_labels = *labels;  // the edits below may move the spec's members
  const json::object* selector = ObjectAt(spec, "selector");
  if (!selector || selector->empty()) spec["selector"] = template_labels;
  json::object& meta = MutableObject(controller, "metadata");
  const json::object* own = ObjectAt(meta, "labels");
  if (!own || own->empty()) meta["labels"] = template_labels;
}

void DefaultDeployment(json::object& deployment) {
  json::object& spec = MutableObject(deployment, "spec");
  SetDefault(spec, "replicas", 1);
  SetDefault(spec, "revisionHistoryLimit", 10);
  SetDefault(spec, "progressDeadlineSeconds", 600);
  json::object& strategy = MutableObject(spec, "strategy");
  SetDefault(strategy, "type", "RollingUpdate");
  if (StringAt(strategy, "type") == "RollingUpdate") {
    json::object& rolling = MutableObject(strategy, "rollingUpdate");
    SetDefault(rolling, "maxUnavailable", "25%");
    SetDefault(rolling, "maxSurge", "25%");
  }
}

void DefaultNamespace(json::object& ns) { SetDefault(MutableObject(ns, "status"), "phase", "Active"); }

// kube's SetDefaults_NodeStatus: without allocatable, all the capacity is.
void DefaultNode(json::object& node) {
  json::value* status = node.if_contains("status");
  json::object* s = status ? status->if_object() : nullptr;
  if (!s || Has(*s, "allocatable") || !ObjectAt(*s, "capacity")) return;
  const json::object capacity = *ObjectAt(*s, "capacity");
  (*s)["allocatable"] = capacity;
}

// kube's SetDefaults_Endpoints: ports are TCP unless said otherwise.
void DefaultEndpoints(json::object& endpoints) {
  ForEachItem(endpoints, "subsets", [](json::object& subset) {
    ForEachItem(subset, "ports", [](json::object& port) { SetIfZero(port, "protocol", "TCP"); });
  });
}

void DefaultPersistentVolumeClaim(json::object& claim) {
  SetDefault(MutableObject(claim, "spec"), "volumeMode", "Filesystem");
  SetDefault(MutableObject(claim, "status"), "phase", "Pending");
}

void DefaultPersistentVolume(json::object& volume) {
  json::object& spec = MutableObject(volume, "spec");
  SetDefault(spec, "persistentVolumeReclaimPolicy", "Retain");
  SetDefault(spec, "volumeMode", "Filesystem");
  DefaultVolumeSource(spec);
  SetDefault(MutableObject(volume, "status"), "phase", "Pending");
}

void DefaultStorageClass(json::object& storage_class) {
  SetDefault(storage_class, "reclaimPolicy", "Delete");
  SetDefault(storage_class, "volumeBindingMode", "Immediate");
}

// storage/v1's SetDefaults_CSIDriver (with its feature gates as kube ships them).
void DefaultCSIDriver(json::object& driver) {
  json::object& spec = MutableObject(driver, "spec");
  SetDefault(spec, "attachRequired", true);
  SetDefault(spec, "podInfoOnMount", false);
  SetDefault(spec, "storageCapacity", false);
  SetDefault(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
  const json::value* modes = spec.if_contains("volumeLifecycleModes");
  if (!modes || !modes->is_array() || modes->get_array().empty())
    spec["volumeLifecycleModes"] = json::array{"Persistent"};
  SetDefault(spec, "requiresRepublish", false);
  SetDefault(spec, "seLinuxMount", false);
}

void DefaultPriorityClass(json::object& priority_class) {
  SetDefault(priority_class, "preemptionPolicy", "PreemptLowerPriority");
}

// rbac/v1's SetDefaults_RoleBinding and _ClusterRoleBinding (the role
// reference's group) and SetDefaults_Subject (a User's or Group's group is
// rbac's; a ServiceAccount's the core one, "", which is not written).
void DefaultRoleBinding(json::object& binding) {
  constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
  SetIfZero(MutableObject(binding, "roleRef"), "apiGroup", json::string(kRbacGroup));
  ForEachItem(binding, "subjects", [&](json::object& subject) {
    const std::string_view kind = StringAt(subject, "kind");
    // A ServiceAccount's is "", which kube's encoder omits (omitempty).
    if (kind == "User" || kind == "Group")
      SetIfZero(subject, "apiGroup", json::string(kRbacGroup));
  });
}

// networking/v1's SetDefaults_NetworkPolicy (policyTypes: Ingress, and
// Egress when there are egress rules) and _NetworkPolicyPort (TCP).
void DefaultNetworkPolicy(json::object& policy) {
  json::object& spec = MutableObject(policy, "spec");
  for (std::string_view direction : {"ingress", "egress"}) {
    ForEachItem(spec, direction, [](json::object& rule) {
      ForEachItem(rule, "ports", [](json::object& port) { SetDefault(port, "protocol", "TCP"); });
    });
  }
  const json::value* types = spec.if_contains("policyTypes");
  if (types && types->is_array() && !types->get_array().empty()) return;
  const json::value* egress = spec.if_contains("egress");
  const bool egress_rules = egress && egress->is_array() && !egress->get_array().empty();
  spec["policyTypes"] = egress_rules ? json::array{"Ingress", "Egress"} : json::array{"Ingress"};
}

// networking/v1's SetDefaults_IngressClass: parameters are cluster-scoped
// unless said otherwise.
void DefaultIngressClass(json::object& ingress_class) {
  json::value* spec = ingress_class.if_contains("spec");
  json::value* parameters =
      spec && spec->is_object() ? spec->get_object().if_contains("parameters") : nullptr;
  if (parameters && parameters->is_object())
    SetDefault(parameters->get_object(), "scope", "Cluster");
}

// admissionregistration/v1's SetDefaults_ValidatingWebhook and _MutatingWebhook:
// fail closed, equivalent matching, every namespace and object, 10s; rules
// of any scope; a Service on 443; mutating webhooks called once.
void DefaultWebhooks(json::object& configuration, bool mutating) {
  ForEachItem(configuration, "webhooks", [mutating](json::object& hook) {
    SetDefault(hook, "failurePolicy", "Fail");
    SetDefault(hook, "matchPolicy", "Equivalent");
    if (!hook.contains("namespaceSelector") || hook["namespaceSelector"].is_null()) hook["namespaceSelector"] = json::object();
    if (!hook.contains("objectSelector") || hook["objectSelector"].is_null()) hook["objectSelector"] = json::object();
    SetDefault(hook, "timeoutSeconds", 10);
    if (mutating) SetDefault(hook, "reinvocationPolicy", "Never");
    ForEachItem(hook, "rules", [](json::object& rule) { SetDefault(rule, "scope", "*"); });
    if (json::value* config = hook.if_contains("clientConfig"); config && config->is_object()) {
      if (json::value* service = config->get_object().if_contains("service"); service && service->is_object()) {
        SetDefault(service->get_object(), "port", 443);
      }
    }
  });
}
void DefaultMutatingWebhookConfiguration(json::object& o) { DefaultWebhooks(o, true); }
void DefaultValidatingWebhookConfiguration(json::object& o) { DefaultWebhooks(o, false); }

// apiregistration/v1's SetDefaults_ServiceReference: port 443.
void DefaultAPIService(json::object& api_service) {
  json::value* spec = api_service.if_contains("spec");
  json::value* service = spec && spec->is_object() ? spec->get_object().if_contains("service") : nullptr;
  if (service && service->is_object()) SetDefault(service->get_object(), "port", 443);
}

// discovery/v1's SetDefaults_EndpointPort: an unnamed TCP port unless said otherwise.
void DefaultEndpointSlice(json::object& slice) {
  ForEachItem(slice, "ports", [](json::object& port) {
    SetDefault(port, "name", "");
    SetDefault(port, "protocol", "TCP");
  });
}

// autoscaling/v2's SetDefaults_HorizontalPodAutoscalerBehavior for one
// direction: what the rules leave unset comes from kube's defaults.
void DefaultScalingRules(json::object& behavior, std::string_view direction,
                         json::object defaults) {
  if (const json::object* given = ObjectAt(behavior, direction)) {
    for (const auto& [key, value] : *given) {
      if (!value.is_null()) defaults[key] = value;
    }
  }
  behavior[direction] = std::move(defaults);
}

// autoscaling/v2's defaults: one replica at least, without metrics a cpu
// utilization target of 80%, and a behavior given gets kube's rules for
// what it leaves out (scaling up: no stabilization window, the larger of 4
// pods or 100% per 15 s; down: 100% per 15 s).
void DefaultHorizontalPodAutoscaler(json::object& hpa) {
  json::object& spec = MutableObject(hpa, "spec");
  SetDefault(spec, "minReplicas", 1);
  const json::value* metrics = spec.if_contains("metrics");
  if (!metrics || !metrics->is_array() || metrics->get_array().empty()) {
    spec["metrics"] = json::array{json::object{
        {"type", "Resource"},
        {"resource",
         json::object{{"name", "cpu"}, {"target", json::object{{"type", "Utilization"}, {"averageUtilization", 80}}}}}}};
  }
  json::value* behavior = spec.if_contains("behavior");
  if (!behavior || !behavior->is_object()) return;
  auto policy = [](std::string_view type, int value) {
    return json::object{{"type", type}, {"value", value}, {"periodSeconds", 15}};
  };
  DefaultScalingRules(behavior->get_object(), "scaleUp",
                      {{"stabilizationWindowSeconds", 0},
                       {"selectPolicy", "Max"},
                       {"policies", json::array{policy("Pods", 4), policy("Percent", 100)}}});
  DefaultScalingRules(behavior->get_object(), "scaleDown",
                      {{"selectPolicy", "Max"}, {"policies", json::array{policy("Percent", 100)}}});
}

using Defaulter = void (*)(json::object&);

struct KindDefaulter {
  Kind kind;
  Defaulter apply;
};

// The kinds with defaults of their own (pod templates are defaulted for
// every kind with a pod_spec_path).
constexpr KindDefaulter kDefaulters[] = {
    {Kind::kPod, DefaultPod},
    {Kind::kReplicaSet, DefaultReplicaSet},
    {Kind::kDeployment, DefaultDeployment},
    {Kind::kNamespace, DefaultNamespace},
    {Kind::kLimitRange, DefaultLimitRange},
    {Kind::kPersistentVolumeClaim, DefaultPersistentVolumeClaim},
    {Kind::kPersistentVolume, DefaultPersistentVolume},
    {Kind::kStorageClass, DefaultStorageClass},
    {Kind::kPriorityClass, DefaultPriorityClass},
    {Kind::kSecret, PrepareSecret},
    {Kind::kService, DefaultService},
    {Kind::kJob, DefaultJob},
    {Kind::kCronJob, DefaultCronJob},
    {Kind::kStatefulSet, DefaultStatefulSet},
    {Kind::kDaemonSet, DefaultDaemonSet},
    {Kind::kHorizontalPodAutoscaler, DefaultHorizontalPodAutoscaler},
    {Kind::kReplicationController, DefaultReplicationController},
    {Kind::kNode, DefaultNode},
    {Kind::kEndpoints, DefaultEndpoints},
    {Kind::kRoleBinding, DefaultRoleBinding},
    {Kind::kClusterRoleBinding, DefaultRoleBinding},
    {Kind::kNetworkPolicy, DefaultNetworkPolicy},
    {Kind::kIngressClass, DefaultIngressClass},
    {Kind::kEndpointSlice, DefaultEndpointSlice},
    {Kind::kCSIDriver, DefaultCSIDriver},
    {Kind::kMutatingWebhookConfiguration, DefaultMutatingWebhookConfiguration},
    {Kind::kValidatingWebhookConfiguration, DefaultValidatingWebhookConfiguration},
    {Kind::kAPIService, DefaultAPIService},
};

std::array<Defaulter, kBuiltinKindCount> DefaulterTable() {
  std::array<Defaulter, kBuiltinKindCount> table{};
  for (const auto& d : kDefaulters) table[static_cast<size_t>(d.kind)] = d.apply;
  return table;
}

// The pod spec at `path` ("spec.template.spec"); nullptr when the object has
// none there (nothing is made: a missing template stays missing for
// validation to name).
json::object* PodSpecAt(json::object& object, std::string_view path) {
  json::object* at = &object;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string_view field = path.substr(0, dot);
    json::value* next = at->if_contains(field);
    if (!next || !next->is_object()) return nullptr;
    at = &next->get_object();
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return at;
}

}  // namespace

void ApplyDefaults(Kind kind, json::object& object) {
  if (!IsBuiltin(kind)) return;
  static const std::array<Defaulter, kBuiltinKindCount> table = DefaulterTable();
  // Quantities first: the defaults copy some (a request from its limit).
  CanonicalizeQuantities(kind, object);
  if (Defaulter apply = table[static_cast<size_t>(kind)]) apply(object);
  const KindInfo& info = Info(kind);
  if (!info.pod_spec_path.empty() && info.pod_spec_path != "spec") {
    if (json::object* spec = PodSpecAt(object, info.pod_spec_path)) DefaultPodSpec(*spec);
  }
}

}  // namespace berth::api
