#include "apiserver/openapi/openapi_schemas.h"

#include <initializer_list>
#include <utility>

#include <boost/json.hpp>

#include "apiserver/openapi/openapi_generated.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

using Field = std::pair<std::string_view, json::object>;

json::object Typed(std::string_view type, std::string_view description) {
  return {{"type", type}, {"description", description}};
}
json::object Str(std::string_view d) { return Typed("string", d); }
json::object Bool(std::string_view d) { return Typed("boolean", d); }
json::object Int32(std::string_view d) {
  json::object o = Typed("integer", d);
  o["format"] = "int32";
  return o;
}
json::object Int64(std::string_view d) {
  json::object o = Typed("integer", d);
  o["format"] = "int64";
  return o;
}
json::object Ref(std::string_view definition, std::string_view d) {
  json::object o{{"$ref", std::string(kSchemaRefPrefix) + std::string(definition)}};
  if (!d.empty()) o["description"] = d;
  return o;
}
json::object Array(json::object items, std::string_view d) {
  json::object o = Typed("array", d);
  items.erase("description");
  o["items"] = std::move(items);
  return o;
}
json::object StrArray(std::string_view d) { return Array(Typed("string", ""), d); }
json::object StrMap(std::string_view d) {
  json::object o = Typed("object", d);
  o["additionalProperties"] = json::object{{"type", "string"}};
  return o;
}
// An object whose fields berth does not list: anything goes below it.
json::object Open(std::string_view d) {
  json::object o = Typed("object", d);
  o["x-kubernetes-preserve-unknown-fields"] = true;
  return o;
}
// An object with the listed fields; `complete` means they are all the fields
// kube 1.32 knows, so any other is an unknown field.
json::object Struct(std::string_view d, std::initializer_list<Field> fields, bool complete = true) {
  json::object o = Typed("object", d);
  json::object properties;
  for (const auto& [name, schema] : fields) properties[name] = schema;
  o["properties"] = std::move(properties);
  if (!complete) o["x-kubernetes-preserve-unknown-fields"] = true;
  return o;
}
json::object WithRequired(json::object o, std::initializer_list<std::string_view> required) {
  json::array r;
  for (auto name : required) r.emplace_back(name);
  o["required"] = std::move(r);
  return o;
}
json::object WithEnum(json::object o, std::initializer_list<std::string_view> values) {
  json::array e;
  for (auto v : values) e.emplace_back(v);
  o["enum"] = std::move(e);
  return o;
}

constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
constexpr std::string_view kCore = "io.k8s.api.core.v1.";

std::string M(std::string_view name) { return std::string(kMeta) + std::string(name); }
std::string C(std::string_view name) { return std::string(kCore) + std::string(name); }

json::object ApiVersionField() {
  return Str("The versioned schema this object is written in, as group/version (\"v1\", \"apps/v1\").");
}
json::object KindField() { return Str("The kind of object this is, in CamelCase (\"Pod\")."); }
json::object MetadataField() {
  return Ref(M("ObjectMeta"), "Name, namespace, labels and the other metadata every object has.");
}

// A kind's top-level object: apiVersion, kind, metadata, and `fields`.
json::object KindStruct(std::string_view d, std::initializer_list<Field> fields, bool complete = true) {
  json::object o = Struct(d, fields, complete);
  json::object& p = o["properties"].as_object();
  p["apiVersion"] = ApiVersionField();
  p["kind"] = KindField();
  p["metadata"] = MetadataField();
  return o;
}

// Timestamps, quantities, int-or-string, and the metadata of objects and lists.
void AddValueAndMetadataDefinitions(json::object& defs) {
  defs[M("Time")] = json::object{{"type", "string"}, {"format", "date-time"},
                                 {"description", "A timestamp in RFC 3339 form, to the second (\"2024-01-01T00:00:00Z\")."}};
  defs[M("MicroTime")] = json::object{{"type", "string"}, {"format", "date-time"},
                                      {"description", "A timestamp in RFC 3339 form with microseconds."}};
  defs["io.k8s.apimachinery.pkg.api.resource.Quantity"] =
      Str("An amount of a resource: a number with an optional suffix (\"100m\" CPU, \"64Mi\" memory, \"2\").");
  defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = json::object{
      {"type", "string"}, {"format", "int-or-string"},
      {"description", "Either an integer or a string (a port number or name, a count or a percentage)."}};
  defs[M("FieldsV1")] = Open("The set of fields a manager owns, in the server-side apply field-set format.");
  defs[M("OwnerReference")] = WithRequired(
      Struct("Names an object this one belongs to; the garbage collector deletes dependents after their owner.",
             {{"apiVersion", Str("API version of the owner.")},
              {"blockOwnerDeletion", Bool("When true (with foreground deletion), the owner is not removed before this object.")},
              {"controller", Bool("True on the one owner that manages this object.")},
              {"kind", Str("Kind of the owner.")},
              {"name", Str("Name of the owner.")},
              {"uid", Str("UID of the owner.")}}),
      {"apiVersion", "kind", "name", "uid"});
  defs[M("ManagedFieldsEntry")] = Struct(
      "Which fields one manager set, and how (server-side apply bookkeeping).",
      {{"apiVersion", Str("Version of the object the field set refers to.")},
       {"fieldsType", Str("Format of fieldsV1; always \"FieldsV1\".")},
       {"fieldsV1", Ref(M("FieldsV1"), "The fields this manager owns.")},
       {"manager", Str("Who made the change (the fieldManager of the request).")},
       {"operation", Str("\"Apply\" or \"Update\".")},
       {"subresource", Str("The subresource the change went through, if any (\"status\").")},
       {"time", Ref(M("Time"), "When the entry last changed.")}});
  defs[M("ObjectMeta")] = Struct(
      "Metadata every stored object has: identity, labels and annotations, owners and lifecycle markers.",
      {{"annotations", StrMap("Free-form key/value data for tools; not used for selection.")},
       {"creationTimestamp", Ref(M("Time"), "When the server created the object. Set by the server; read-only.")},
       {"deletionGracePeriodSeconds", Int64("Seconds the object has left to terminate once deletion was requested. Read-only.")},
       {"deletionTimestamp", Ref(M("Time"), "When deletion was requested; the object is being deleted from then on. Read-only.")},
       {"finalizers", StrArray("Tasks that must finish (and remove their entry) before a deleted object goes away.")},
       {"generateName", Str("A prefix from which the server makes a unique name when name is empty.")},
       {"generation", Int64("A counter of changes to the desired state (spec). Set by the server.")},
       {"labels", StrMap("Key/value pairs used to organise and select objects (label selectors).")},
       {"managedFields", Array(Ref(M("ManagedFieldsEntry"), ""), "Which manager set which fields.")},
       {"name", Str("The object's name, unique among its kind in its namespace. Cannot be changed.")},
       {"namespace", Str("The namespace the object lives in; empty for cluster-scoped kinds.")},
       {"ownerReferences", Array(Ref(M("OwnerReference"), ""), "Objects this one depends on.")},
       {"resourceVersion", Str("An opaque version of the object, for optimistic concurrency and watches. Set by the server.")},
       {"selfLink", Str("Deprecated; no longer set.")},
       {"uid", Str("A unique identifier for this incarnation of the object. Set by the server.")}});
  defs[M("ListMeta")] = Struct("Metadata of a list.",
                               {{"continue", Str("Token to fetch the next page of a limited list.")},
                                {"remainingItemCount", Int64("How many items follow this page, when known.")},
                                {"resourceVersion", Str("The version the list reflects; start a watch from it.")},
                                {"selfLink", Str("Deprecated; no longer set.")}});
}

void AddSelectorAndConditionDefinitions(json::object& defs) {
  defs[M("LabelSelectorRequirement")] = WithRequired(
      Struct("One condition on a label.",
             {{"key", Str("The label key.")},
              {"operator", Str("In, NotIn, Exists or DoesNotExist.")},
              {"values", StrArray("Values for In and NotIn; empty for Exists and DoesNotExist.")}}),
      {"key", "operator"});
  defs[M("LabelSelector")] = Struct(
      "Selects objects by their labels; all conditions must hold. An empty selector selects everything.",
      {{"matchExpressions", Array(Ref(M("LabelSelectorRequirement"), ""), "Conditions on labels.")},
       {"matchLabels", StrMap("Labels that must be present with exactly these values.")}});
  defs[M("Condition")] = Struct("One aspect of an object's state.",
                                {{"lastTransitionTime", Ref(M("Time"), "When status last changed.")},
                                 {"message", Str("Human-readable details.")},
                                 {"observedGeneration", Int64("The generation the condition was computed from.")},
                                 {"reason", Str("A CamelCase reason for the last transition.")},
                                 {"status", Str("True, False or Unknown.")},
                                 {"type", Str("The condition's type.")}});
}

// What requests and responses carry: Status, DeleteOptions, patches, watch
// events, and the scale and eviction subresources.
void AddRequestDefinitions(json::object& defs) {
  defs[M("StatusCause")] = Struct("One reason a request failed.",
                                  {{"field", Str("The field at fault, as a path.")},
                                   {"message", Str("What is wrong.")},
                                   {"reason", Str("A machine-readable reason.")}});
  defs[M("StatusDetails")] = Struct("More about a failed request.",
                                    {{"causes", Array(Ref(M("StatusCause"), ""), "The individual problems.")},
                                     {"group", Str("API group of the resource.")},
                                     {"kind", Str("Kind or resource of the object.")},
                                     {"name", Str("Name of the object.")},
                                     {"retryAfterSeconds", Int32("When to try again.")},
                                     {"uid", Str("UID of the object.")}});
  defs[M("Status")] = Struct("The outcome of a request that returns no object, or of a failed one.",
                             {{"apiVersion", ApiVersionField()},
                              {"code", Int32("The HTTP status code.")},
                              {"details", Ref(M("StatusDetails"), "More about the outcome.")},
                              {"kind", KindField()},
                              {"message", Str("Human-readable description.")},
                              {"metadata", Ref(M("ListMeta"), "Standard list metadata.")},
                              {"reason", Str("A machine-readable reason (NotFound, Conflict, ...).")},
                              {"status", Str("Success or Failure.")}});
  defs[M("Preconditions")] = Struct("Conditions that must hold for a delete to go ahead.",
                                    {{"resourceVersion", Str("The object's expected resourceVersion.")},
                                     {"uid", Str("The object's expected UID.")}});
  defs[M("DeleteOptions")] = Struct(
      "Options of a delete.",
      {{"apiVersion", ApiVersionField()},
       {"dryRun", StrArray("\"All\" to check the request without persisting anything.")},
       {"gracePeriodSeconds", Int64("Seconds the object gets to terminate; 0 deletes at once.")},
       {"kind", KindField()},
       {"orphanDependents", Bool("Deprecated: use propagationPolicy.")},
       {"preconditions", Ref(M("Preconditions"), "Must hold or the delete fails with a Conflict.")},
       {"propagationPolicy", Str("What happens to dependents: Orphan, Background or Foreground.")}});
  defs[M("Patch")] = json::object{{"type", "object"},
                                  {"description", "A patch document: JSON patch, JSON merge patch or strategic merge patch."}};
  defs[M("WatchEvent")] = WithRequired(
      Struct("One change in a watch stream.",
             {{"object", Open("The object as of the event (or a Status for ERROR).")},
              {"type", Str("ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.")}}),
      {"type", "object"});
  defs["io.k8s.api.autoscaling.v1.Scale"] = KindStruct(
      "The scale subresource: desired and observed replica counts of a workload.",
      {{"spec", Struct("Desired scale.", {{"replicas", Int32("Desired number of replicas.")}})},
       {"status", Struct("Observed scale.", {{"replicas", Int32("Observed number of replicas.")},
                                             {"selector", Str("Label query over the workload's pods, as a string.")}})}});
  defs["io.k8s.api.policy.v1.Eviction"] = KindStruct(
      "Asks for a pod's removal, subject to disruption budgets.",
      {{"deleteOptions", Ref(M("DeleteOptions"), "Options of the pod's deletion.")}});
}

void AddMetaDefinitions(json::object& defs) {
  AddValueAndMetadataDefinitions(defs);
  AddSelectorAndConditionDefinitions(defs);
  AddRequestDefinitions(defs);
}

json::object ContainerSchema(std::string_view d) {
  return WithRequired(
      Struct(d,
             {{"args", StrArray("Arguments to the entrypoint; the image's CMD when empty.")},
              {"command", StrArray("The entrypoint, run without a shell; the image's ENTRYPOINT when empty.")},
              {"env", Array(Ref(C("EnvVar"), ""), "Environment variables to set in the container.")},
              {"envFrom", Array(Open("A ConfigMap or Secret whose keys become environment variables."),
                                "Sources of environment variables.")},
              {"image", Str("The container image to run (\"nginx:1.25\").")},
              {"imagePullPolicy", WithEnum(Str("When to pull the image: Always, Never or IfNotPresent."),
                                           {"Always", "IfNotPresent", "Never"})},
              {"lifecycle", Open("Actions to run right after start and before stop.")},
              {"livenessProbe", Ref(C("Probe"), "Restarts the container when it fails.")},
              {"name", Str("The container's name, unique within the pod.")},
              {"ports", Array(Ref(C("ContainerPort"), ""), "Ports the container exposes (informational).")},
              {"readinessProbe", Ref(C("Probe"), "Takes the pod out of service endpoints while it fails.")},
              {"resizePolicy", Array(Open("How a resource of the container is resized."), "Resize policies.")},
              {"resources", Ref(C("ResourceRequirements"), "CPU, memory and other resources it requests and may use.")},
              {"restartPolicy", Str("Only for init containers: \"Always\" makes it a sidecar.")},
              {"securityContext", Open("Security options of the container (user, capabilities, privileges).")},
              {"startupProbe", Ref(C("Probe"), "Holds the other probes back until it succeeds.")},
              {"stdin", Bool("Keep a stdin buffer open for the container.")},
              {"stdinOnce", Bool("Close stdin after the first attach ends.")},
              {"terminationMessagePath", Str("File whose content becomes the termination message.")},
              {"terminationMessagePolicy", Str("File, or FallbackToLogsOnError.")},
              {"tty", Bool("Allocate a TTY.")},
              {"volumeDevices", Array(Open("A raw block volume mapped into the container."), "Block devices.")},
              {"volumeMounts", Array(Ref(C("VolumeMount"), ""), "Volumes mounted into the container's filesystem.")},
              {"workingDir", Str("The working directory; the image's when empty.")}}),
      {"name"});
}

// What a container is made of, and the container itself.
void AddContainerDefinitions(json::object& defs) {
  defs[C("ContainerPort")] = WithRequired(
      Struct("A network port of a container.",
             {{"containerPort", Int32("The port number inside the container's network namespace.")},
              {"hostIP", Str("Host IP to bind an external port to.")},
              {"hostPort", Int32("Port on the node to expose; rarely needed.")},
              {"name", Str("A name services can refer to (IANA_SVC_NAME).")},
              {"protocol", WithEnum(Str("TCP (the default), UDP or SCTP."), {"SCTP", "TCP", "UDP"})}}),
      {"containerPort"});
  defs[C("EnvVar")] = WithRequired(
      Struct("An environment variable.",
             {{"name", Str("The variable's name.")},
              {"value", Str("Its value; $(VAR) refers to variables defined earlier.")},
              {"valueFrom", Open("Where to read the value from: a ConfigMap or Secret key, a pod field or a resource.")}}),
      {"name"});
  defs[C("VolumeMount")] = WithRequired(
      Struct("Mounts a pod volume into a container.",
             {{"mountPath", Str("Where in the container the volume appears.")},
              {"mountPropagation", Str("How mounts propagate between host and container.")},
              {"name", Str("The volume's name (one of the pod's volumes).")},
              {"readOnly", Bool("Mount read-only.")},
              {"recursiveReadOnly", Str("Whether read-only applies recursively to submounts.")},
              {"subPath", Str("A path inside the volume to mount instead of its root.")},
              {"subPathExpr", Str("Like subPath, with $(VAR) expanded from the environment.")}}),
      {"name", "mountPath"});
  defs[C("ResourceRequirements")] = Struct(
      "Compute resources: what is reserved (requests) and the most that may be used (limits).",
      {{"claims", Array(Open("A resource claim of the pod used by this container."), "Dynamic resource claims.")},
       {"limits", json::object{{"type", "object"},
                               {"description", "The most of each resource the container may use."},
                               {"additionalProperties", Ref("io.k8s.apimachinery.pkg.api.resource.Quantity", "")}}},
       {"requests", json::object{{"type", "object"},
                                 {"description", "What the scheduler reserves for the container; defaults to limits."},
                                 {"additionalProperties", Ref("io.k8s.apimachinery.pkg.api.resource.Quantity", "")}}}});
  defs[C("Probe")] = Struct(
      "A health check run by the kubelet.",
      {{"exec", Open("Run a command; exit status 0 is healthy.")},
       {"failureThreshold", Int32("Consecutive failures that count as failed.")},
       {"grpc", Open("Call a gRPC health check.")},
       {"httpGet", Open("Send an HTTP GET; 2xx and 3xx are healthy.")},
       {"initialDelaySeconds", Int32("Seconds after start before the first probe.")},
       {"periodSeconds", Int32("Seconds between probes.")},
       {"successThreshold", Int32("Consecutive successes that count as healthy again.")},
       {"tcpSocket", Open("Open a TCP connection.")},
       {"terminationGracePeriodSeconds", Int64("Grace period when a failing probe kills the container.")},
       {"timeoutSeconds", Int32("Seconds before a probe times out.")}},
      /*complete=*/false);
  defs[C("Container")] = ContainerSchema("A container to run in a pod.");
}

// Pods: their volumes, their spec, the template controllers stamp them from.
void AddPodDefinitions(json::object& defs) {
  defs[C("Volume")] = WithRequired(
      Struct("A named volume the pod's containers can mount; exactly one source is set.",
             {{"name", Str("The volume's name, unique within the pod.")},
              {"configMap", Open("Files from a ConfigMap's keys.")},
              {"secret", Open("Files from a Secret's keys.")},
              {"emptyDir", Open("A scratch directory that lives as long as the pod.")},
              {"hostPath", Open("A file or directory of the node.")},
              {"persistentVolumeClaim", Open("A PersistentVolumeClaim in the pod's namespace.")},
              {"projected", Open("Several sources projected into one directory.")},
              {"downwardAPI", Open("Files with the pod's own fields.")}},
             /*complete=*/false),
      {"name"});
  defs[C("PodSpec")] = WithRequired(
      Struct(
          "The desired state of a pod: its containers, volumes and where and how it may run.",
          {{"activeDeadlineSeconds", Int64("Seconds the pod may run before it is failed.")},
           {"affinity", Open("Node affinity and pod (anti-)affinity rules for scheduling.")},
           {"automountServiceAccountToken", Bool("Mount the service account's token.")},
           {"containers", Array(Ref(C("Container"), ""), "The containers of the pod; at least one.")},
           {"dnsConfig", Open("DNS settings merged with those the dnsPolicy gives.")},
           {"dnsPolicy", Str("ClusterFirst (the default), ClusterFirstWithHostNet, Default or None.")},
           {"enableServiceLinks", Bool("Put service addresses into environment variables.")},
           {"ephemeralContainers", Array(Open("A debugging container added to a running pod."), "Ephemeral containers.")},
           {"hostAliases", Array(Open("Extra /etc/hosts entries."), "Extra hosts entries.")},
           {"hostIPC", Bool("Use the node's IPC namespace.")},
           {"hostNetwork", Bool("Use the node's network namespace.")},
           {"hostPID", Bool("Use the node's PID namespace.")},
           {"hostUsers", Bool("Use the node's user namespace (false: a user namespace of its own).")},
           {"hostname", Str("The pod's hostname; its name when empty.")},
           {"imagePullSecrets", Array(Open("A Secret with registry credentials."), "Registry credentials.")},
           {"initContainers", Array(Ref(C("Container"), ""), "Containers run in order before the others start.")},
           {"nodeName", Str("The node the pod is bound to; set by the scheduler, or directly to skip it.")},
           {"nodeSelector", StrMap("Labels a node must have for the pod to run there.")},
           {"os", Open("The operating system the pod needs.")},
           {"overhead", json::object{{"type", "object"},
                                     {"description", "Resources the pod's runtime adds, on top of its containers."},
                                     {"additionalProperties", Ref("io.k8s.apimachinery.pkg.api.resource.Quantity", "")}}},
           {"preemptionPolicy", Str("PreemptLowerPriority (the default) or Never.")},
           {"priority", Int32("The pod's priority; set from priorityClassName.")},
           {"priorityClassName", Str("The PriorityClass that gives the pod its priority.")},
           {"readinessGates", Array(Open("A condition that must be true for readiness."), "Extra readiness conditions.")},
           {"resourceClaims", Array(Open("A dynamic resource claim."), "Dynamic resources the pod uses.")},
           {"resources", Ref(C("ResourceRequirements"), "Resources of the pod as a whole (alpha).")},
           {"restartPolicy", WithEnum(Str("Always (the default), OnFailure or Never."), {"Always", "Never", "OnFailure"})},
           {"runtimeClassName", Str("The RuntimeClass to run the pod with.")},
           {"schedulerName", Str("The scheduler that places the pod; default-scheduler when empty.")},
           {"schedulingGates", Array(Open("A gate that holds the pod back from scheduling."), "Scheduling gates.")},
           {"securityContext", Open("Security options for all the pod's containers.")},
           {"serviceAccount", Str("Deprecated: use serviceAccountName.")},
           {"serviceAccountName", Str("The service account the pod runs as.")},
           {"setHostnameAsFQDN", Bool("Make the hostname the fully qualified domain name.")},
           {"shareProcessNamespace", Bool("Share one PID namespace among the containers.")},
           {"subdomain", Str("Subdomain of the pod's DNS name (with a headless service).")},
           {"terminationGracePeriodSeconds", Int64("Seconds between the stop signal and the kill; 30 by default.")},
           {"tolerations", Array(Open("Lets the pod run on nodes with a matching taint."), "Taints the pod tolerates.")},
           {"topologySpreadConstraints", Array(Open("How to spread matching pods across a topology."), "Spread rules.")},
           {"volumes", Array(Ref(C("Volume"), ""), "Volumes the containers can mount.")}}),
      {"containers"});
  defs[C("PodTemplateSpec")] = Struct(
      "A template for the pods a controller creates.",
      {{"metadata", MetadataField()}, {"spec", Ref(C("PodSpec"), "The pods' spec.")}});
  defs[C("Pod")] = KindStruct(
      "A group of containers that run together on one node.",
      {{"spec", Ref(C("PodSpec"), "The desired state of the pod.")},
       {"status", Open("The observed state of the pod: phase, conditions, addresses, container states.")}});
}

void AddServiceDefinitions(json::object& defs) {
  defs[C("ServicePort")] = WithRequired(
      Struct("A port a service exposes.",
             {{"appProtocol", Str("The application protocol (\"http\", \"kubernetes.io/h2c\").")},
              {"name", Str("The port's name; required when there are several.")},
              {"nodePort", Int32("The port on every node (NodePort and LoadBalancer types).")},
              {"port", Int32("The port the service listens on.")},
              {"protocol", WithEnum(Str("TCP (the default), UDP or SCTP."), {"SCTP", "TCP", "UDP"})},
              {"targetPort", Ref("io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                                 "The pods' port, by number or by name; the port's value when empty.")}}),
      {"port"});
  defs[C("ServiceSpec")] = Struct(
      "How a service selects its pods and exposes them.",
      {{"allocateLoadBalancerNodePorts", Bool("Allocate node ports for a LoadBalancer service.")},
       {"clusterIP", Str("The virtual IP of the service; \"None\" makes it headless.")},
       {"clusterIPs", StrArray("The virtual IPs, one per IP family.")},
       {"externalIPs", StrArray("Extra IPs that route to the service.")},
       {"externalName", Str("The DNS name an ExternalName service aliases.")},
       {"externalTrafficPolicy", Str("Cluster or Local: how external traffic is routed.")},
       {"healthCheckNodePort", Int32("Health check port for Local external traffic.")},
       {"internalTrafficPolicy", Str("Cluster or Local: how cluster-internal traffic is routed.")},
       {"ipFamilies", StrArray("IPv4 and/or IPv6.")},
       {"ipFamilyPolicy", Str("SingleStack, PreferDualStack or RequireDualStack.")},
       {"loadBalancerClass", Str("The load balancer implementation to use.")},
       {"loadBalancerIP", Str("Deprecated: a requested load balancer IP.")},
       {"loadBalancerSourceRanges", StrArray("Client CIDRs allowed through the load balancer.")},
       {"ports", Array(Ref(C("ServicePort"), ""), "The ports the service exposes.")},
       {"publishNotReadyAddresses", Bool("Publish addresses of pods that are not ready.")},
       {"selector", StrMap("Labels of the pods the service sends traffic to.")},
       {"sessionAffinity", Str("ClientIP or None (the default).")},
       {"sessionAffinityConfig", Open("Settings of the session affinity.")},
       {"trafficDistribution", Str("A preference for how traffic is spread over endpoints.")},
       {"type", WithEnum(Str("ClusterIP (the default), NodePort, LoadBalancer or ExternalName."),
                         {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"})}});
  defs[C("Service")] = KindStruct(
      "A stable name and virtual IP in front of a set of pods.",
      {{"spec", Ref(C("ServiceSpec"), "What the service selects and exposes.")},
       {"status", Open("The observed state of the service (load balancer, conditions).")}});
}

// What pods read their configuration and secrets from, and the namespace.
void AddConfigAndNamespaceDefinitions(json::object& defs) {
  defs[C("ConfigMap")] = KindStruct(
      "Configuration data as key/value pairs, for pods to read as files or environment variables.",
      {{"binaryData", StrMap("Binary values, base64-encoded. Keys may not repeat those of data.")},
       {"data", StrMap("Text values by key.")},
       {"immutable", Bool("When true, data cannot change (only deletion).")}});
  defs[C("Secret")] = KindStruct(
      "Sensitive data (passwords, tokens, keys) as key/value pairs.",
      {{"data", StrMap("Values by key, base64-encoded.")},
       {"immutable", Bool("When true, data cannot change (only deletion).")},
       {"stringData", StrMap("Plain-text values, merged into data on write; never read back.")},
       {"type", Str("What the secret holds (Opaque, kubernetes.io/tls, ...), for validation and tools.")}});
  defs[C("Namespace")] = KindStruct(
      "A scope for names; most objects live in a namespace.",
      {{"spec", Struct("Desired state of a namespace.",
                       {{"finalizers", StrArray("Tasks that must finish before the namespace is removed.")}})},
       {"status", Open("The namespace's phase (Active or Terminating) and conditions.")}});
}

// The core (v1) group's kinds and the types they are made of.
void AddCoreDefinitions(json::object& defs) {
  AddContainerDefinitions(defs);
  AddPodDefinitions(defs);
  AddServiceDefinitions(defs);
  AddConfigAndNamespaceDefinitions(defs);
}

void AddAppsDefinitions(json::object& defs) {
  constexpr std::string_view kApps = "io.k8s.api.apps.v1.";
  auto A = [&](std::string_view name) { return std::string(kApps) + std::string(name); };
  defs[A("RollingUpdateDeployment")] = Struct(
      "Bounds of a rolling update.",
      {{"maxSurge", Ref("io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                        "Pods that may exist above the desired count during the update (number or percentage; 25%).")},
       {"maxUnavailable", Ref("io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                              "Pods that may be unavailable during the update (number or percentage; 25%).")}});
  defs[A("DeploymentStrategy")] = Struct(
      "How a deployment replaces old pods with new ones.",
      {{"rollingUpdate", Ref(A("RollingUpdateDeployment"), "Bounds of a RollingUpdate.")},
       {"type", WithEnum(Str("RollingUpdate (the default) or Recreate."), {"Recreate", "RollingUpdate"})}});
  defs[A("DeploymentSpec")] = WithRequired(
      Struct("The desired state of a deployment.",
             {{"minReadySeconds", Int32("Seconds a new pod must be ready before it counts as available.")},
              {"paused", Bool("Stop rolling out changes of the template.")},
              {"progressDeadlineSeconds", Int32("Seconds a rollout may stall before it is reported as failed.")},
              {"replicas", Int32("Desired number of pods; 1 when unset.")},
              {"revisionHistoryLimit", Int32("Old ReplicaSets kept for rollback; 10 by default.")},
              {"selector", Ref(M("LabelSelector"), "Selects the deployment's pods; must match the template's labels.")},
              {"strategy", Ref(A("DeploymentStrategy"), "How pods are replaced.")},
              {"template", Ref(C("PodTemplateSpec"), "The pods to create.")}}),
      {"selector", "template"});
  defs[A("Deployment")] = KindStruct(
      "Declarative updates for a replicated set of pods, through ReplicaSets.",
      {{"spec", Ref(A("DeploymentSpec"), "The desired state of the deployment.")},
       {"status", Open("The observed state: replica counts, conditions, observed generation.")}});
  defs[A("ReplicaSetSpec")] = WithRequired(
      Struct("The desired state of a ReplicaSet.",
             {{"minReadySeconds", Int32("Seconds a new pod must be ready before it counts as available.")},
              {"replicas", Int32("Desired number of pods; 1 when unset.")},
              {"selector", Ref(M("LabelSelector"), "Selects the pods; must match the template's labels.")},
              {"template", Ref(C("PodTemplateSpec"), "The pods to create.")}}),
      {"selector"});
  defs[A("ReplicaSet")] = KindStruct(
      "Keeps a number of identical pods running.",
      {{"spec", Ref(A("ReplicaSetSpec"), "The desired state of the ReplicaSet.")},
       {"status", Open("The observed replica counts and conditions.")}});
}

}  // namespace

std::string DefinitionName(const api::KindInfo& kind) {
  std::string tail = "." + std::string(kind.version) + "." + std::string(kind.name);
  std::string_view group = kind.group;
  if (kind.builtin) {
    if (group.empty()) return "io.k8s.api.core" + tail;
    if (group == "apiextensions.k8s.io") return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions" + tail;
    // apps, batch, policy, coordination.k8s.io, rbac.authorization.k8s.io ...
    return "io.k8s.api." + std::string(group.substr(0, group.find('.'))) + tail;
  }
  // A custom resource: its group reversed, as kube names CRD definitions.
  std::string reversed;
  while (!group.empty()) {
    size_t dot = group.rfind('.');
    if (!reversed.empty()) reversed += '.';
    if (dot == std::string_view::npos) {
      reversed += group;
      break;
    }
    reversed += group.substr(dot + 1);
    group = group.substr(0, dot);
  }
  return reversed + tail;
}

const boost::json::object& BuiltinDefinitions() {
  static const json::object kDefinitions = [] {
    json::object defs;
    AddMetaDefinitions(defs);
    AddCoreDefinitions(defs);
    AddAppsDefinitions(defs);
    AddGeneratedKindDefinitions(defs);
    return defs;
  }();
  return kDefinitions;
}

boost::json::object GenericKindSchema(const api::KindInfo& kind) {
  return KindStruct("A " + std::string(kind.name) + " (" + kind.ApiVersion() +
                        "). berth does not describe its fields beyond the metadata.",
                    {{"spec", Open("The desired state.")}, {"status", Open("The observed state.")}},
                    /*complete=*/false);
}

}  // namespace berth::apiserver
