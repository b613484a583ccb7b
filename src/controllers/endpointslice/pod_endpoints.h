#pragma once
// What makes a pod an endpoint of a Service, as kube's two endpoint
// controllers decide it (k8s.io/endpointslice/util and pkg/api/v1/pod): the
// EndpointSlice controller and the Endpoints controller share these rules.

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "api/object.h"
#include "api/status.h"
#include "client/shared_informer.h"

namespace berth::controllers {

inline constexpr std::string_view kLastChangeTriggerTimeAnnotation =
    "endpoints.kubernetes.io/last-change-trigger-time";
inline constexpr std::string_view kHeadlessServiceLabel = "service.kubernetes.io/headless";

// spec.selector of a Service as label pairs; nullopt when it has none (absent,
// null or empty: kube stores an empty selector as none). Such Services get
// their endpoints from someone else, never from these controllers.
std::optional<std::vector<std::pair<std::string, std::string>>> ServiceSelector(
    const api::Object& service);
// Whether the endpoint controllers manage `service`: it has a selector and is
// not of type ExternalName.
bool ManagesEndpoints(const api::Object& service);
// Every pair of `selector` is among `labels`.
bool SelectorMatches(const std::vector<std::pair<std::string, std::string>>& selector,
                     const api::Labels& labels);

// kube's ShouldPodBeInEndpoints: not terminal (Succeeded, Failed), has an IP,
// and, unless `include_terminating`, not being deleted.
bool ShouldPodBeInEndpoints(const api::Object& pod, bool include_terminating);
// kube's ShouldSetHostname: the pod names a hostname and its subdomain is the
// Service's name, in the Service's namespace.
bool ShouldSetHostname(const api::Object& pod, const api::Object& service);
// kube's FindPort: a numeric targetPort as it is; a named one is the
// containerPort of that name and the Service port's protocol in the pod's
// containers (or sidecars: init containers with restartPolicy Always);
// nullopt when the pod has no such port.
std::optional<int64_t> FindPort(const api::Object& pod, const boost::json::object& service_port);
// status.podIPs[].ip, or status.podIP when podIPs is empty.
std::vector<std::string> PodIPs(const api::Object& pod);
bool IsIPv6(std::string_view ip);
// spec.clusterIP is set and not "None".
bool IsServiceIPSet(const api::Object& service);
// A create refused because the namespace is being deleted (Forbidden with
// cause NamespaceTerminating): such creates keep failing, so both controllers
// drop the work instead of retrying.
bool NamespaceTerminating(const Status& s);

// kube's TriggerTimeTracker: the value of the last-change-trigger-time
// annotation for a sync of a Service. The first sync of a Service gives its
// creationTimestamp; later ones the earliest of the trigger times (a pod's
// Ready condition's lastTransitionTime, the Service's creationTimestamp) that
// moved since the previous sync, or "" when none did. Thread-safe; never
// called for one Service from two threads at once (the work queue's promise).
class TriggerTimeTracker {
 public:
  std::string Compute(const api::Object& service, const std::vector<api::ObjectPtr>& pods);
  void Forget(const std::string& service_key);

 private:
  struct State {
    std::string service_time;
    std::unordered_map<std::string, std::string> pod_times;  // pod name → RFC 3339
  };
  std::mutex mu_;
  std::unordered_map<std::string, State> states_;  // guarded by mu_
};

// The Services each pod was last seen to belong to. The informers deliver only
// the new version of a pod, so a pod whose labels changed must reach the
// Services it left as well as those it joined. Thread-safe.
class PodServiceMemberships {
 public:
  explicit PodServiceMemberships(client::SharedInformer& services) : services_(services) {}
  // The Services to sync for `pod`: those whose selector matches it now and
  // those it matched when last seen.
  std::vector<std::string> Update(const api::Object& pod);
  // The same for a deleted pod, which is then forgotten.
  std::vector<std::string> Remove(const api::Object& pod);
  // The Service keys (namespace/name) whose selector matches `pod` now.
  std::vector<std::string> Matching(const api::Object& pod) const;

 private:
  client::SharedInformer& services_;
  std::mutex mu_;
  std::unordered_map<std::string, std::vector<std::string>>
      last_;  // pod key → service keys; guarded by mu_
};

}  // namespace berth::controllers
