#include "controllers/rootcacert/root_ca_cert_publisher.h"

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "api/json_fields.h"
#include "api/time/duration.h"
#include "controllers/endpointslice/pod_endpoints.h"
#include "controllers/for_update.h"
#include "log/log.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kBegin = "-----BEGIN CERTIFICATE-----";
constexpr std::string_view kEnd = "-----END CERTIFICATE-----";

// The ConfigMap's data as published: ca.crt alone.
json::object PublishedData(const std::string& root_ca) { return json::object{{"ca.crt", root_ca}}; }

}  // namespace

Result<std::string> ReadRootCaFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::BadRequest(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string pem = text.str();
  std::string certificates;
  for (size_t at = pem.find(kBegin); at != std::string::npos; at = pem.find(kBegin, at)) {
    const size_t end = pem.find(kEnd, at);
    if (end == std::string::npos) break;
    certificates.append(pem, at, end + kEnd.size() - at).push_back('\n');
    at = end + kEnd.size();
  }
  if (certificates.empty()) return Status::BadRequest(path + ": no PEM certificate found");
  return certificates;
}

RootCaCertPublisher::RootCaCertPublisher(const ControllerContext& context,
                                         RootCaCertPublisherOptions options, int workers)
    : Controller("root_ca_cert_publisher", context, workers),
      root_ca_(std::move(options.root_ca)),
      config_maps_(context.informers.For(api::Kind::kConfigMap)) {
  if (context.registry) {
    syncs_ = &context.registry->AddCounter(
        "root_ca_cert_publisher_sync_total",
        "Number of namespace syncs happened in root ca cert publisher.", {"code"});
    sync_seconds_ = &context.registry->AddHistogram(
        "root_ca_cert_publisher_sync_duration_seconds",
        "Number of namespace syncs happened in root ca cert publisher.",
        metrics::ExponentialBuckets(0.001, 2, 15), {"code"});
  }
  auto ours_changed = [this](const api::ObjectPtr& cm) {
    if (cm->name() == kConfigMapName) Enqueue(cm->namespace_name());
  };
  config_maps_.AddHandlers({nullptr, ours_changed, ours_changed});
  auto namespace_added = [this](const api::ObjectPtr& ns) { Enqueue(ns->name()); };
  auto namespace_updated = [this](const api::ObjectPtr& ns) {
    if (api::StringAt(api::StatusOf(*ns), "phase") == "Active") Enqueue(ns->name());
  };
  context.informers.For(api::Kind::kNamespace)
      .AddHandlers({namespace_added, namespace_updated, nullptr});
}

Status RootCaCertPublisher::Reconcile(const std::string& key) {
  const auto started = clock_.Now();
  Status result = Sync(key);
  const std::chrono::nanoseconds took = clock_.Now() - started;
  RecordSync(result, took);
  BERTH_VLOG(4, "Finished syncing namespace", {"namespace", key},
             {"duration", api::FormatGoDuration(took)});
  return result;
}

Status RootCaCertPublisher::Sync(const std::string& ns) {
  api::ObjectPtr cached = config_maps_.Get(client::ObjectKey(ns, kConfigMapName));
  if (!cached) {
    json::object config_map{
        {"metadata",
         json::object{{"name", kConfigMapName},
                      {"annotations", json::object{{kDescriptionAnnotation, kDescription}}}}},
        {"data", PublishedData(root_ca_)}};
    auto created = client_.Create(api::Kind::kConfigMap, ns, std::move(config_map));
    // A namespace that is gone or terminating takes nothing new: not retried.
    if (created.ok() || created.status().code() == StatusCode::kNotFound ||
        NamespaceTerminating(created.status())) {
      return Status::Ok();
    }
    return created.status();
  }
  const json::object data = PublishedData(root_ca_);
  const json::object* current = api::ObjectAt(cached->json(), "data");
  // kube's test: the data exactly, and a description of any text.
  if (current && *current == data && !api::Annotation(*cached, kDescriptionAnnotation).empty()) {
    return Status::Ok();
  }
  json::object restored = ForUpdate(*cached);
  restored["data"] = data;
  api::MutableObject(api::MutableObject(restored, "metadata"),
                     "annotations")[kDescriptionAnnotation] = kDescription;
  auto updated = client_.Update(api::Kind::kConfigMap, restored);
  return updated.ok() ? Status::Ok() : updated.status();
}

void RootCaCertPublisher::RecordSync(const Status& result, std::chrono::nanoseconds took) {
  if (!syncs_) return;
  const std::string code = std::to_string(result.HttpCode());
  syncs_->WithLabels({code}).Increment();
  sync_seconds_->WithLabels({code}).Observe(std::chrono::duration<double>(took).count());
}

}  // namespace berth::controllers
