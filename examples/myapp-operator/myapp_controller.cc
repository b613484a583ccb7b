#include "myapp_controller.h"

#include <cstdio>

#include "api/json_fields.h"
#include "controllers/for_update.h"
#include "controllers/owner_references.h"

namespace myapp_operator {

namespace json = boost::json;
using berth::Status;
using berth::StatusCode;
namespace api = berth::api;
namespace client = berth::client;
namespace controllers = berth::controllers;

namespace {

constexpr std::string_view kKind = "MyApp";
constexpr std::string_view kContainer = "app";

int64_t Replicas(const api::Object& app) { return api::IntAt(api::Spec(app), "replicas", 1); }
std::string_view Image(const api::Object& app) { return api::StringAt(api::Spec(app), "image"); }

// The container named "app" in a Deployment's pod template, or nullptr.
json::object* AppContainer(json::object& deployment) {
  json::object& spec = api::MutableObject(
      api::MutableObject(api::MutableObject(deployment, "spec"), "template"), "spec");
  for (auto& c : api::MutableArray(spec, "containers")) {
    if (c.is_object() && api::StringAt(c.get_object(), "name") == kContainer)
      return &c.get_object();
  }
  return nullptr;
}

void Log(const api::Object& app, const std::string& what) {
  std::fprintf(stderr, "myapp-operator: myapp %s/%s: %s\n", app.namespace_name().c_str(),
               app.name().c_str(), what.c_str());
}

}  // namespace

api::KindSpec MyAppKindSpec() {
  return {.group = "example.com",
          .version = "v1",
          .name = std::string(kKind),
          .resource = "myapps",
          .singular = "myapp",
          .namespaced = true};
}

MyAppController::MyAppController(const controllers::ControllerContext& context, api::Kind myapp,
                                 int workers)
    : Controller("myapp", context, workers),
      myapp_(myapp),
      myapps_(context.informers.For(myapp)),
      deployments_(context.informers.For(api::Kind::kDeployment)) {
  auto enqueue = [this](const api::ObjectPtr& app) { Enqueue(client::ObjectKey(*app)); };
  myapps_.AddHandlers({enqueue, enqueue, nullptr});
  // A Deployment's change (its status above all) wakes the MyApp controlling it.
  auto owner = [this](const api::ObjectPtr& d) {
    const json::array* refs = api::ArrayAt(api::Metadata(*d), "ownerReferences");
    if (!refs) return;
    for (const auto& ref : *refs) {
      if (ref.is_object() && api::BoolAt(&ref.get_object(), "controller") &&
          api::StringAt(ref.get_object(), "kind") == kKind) {
        Enqueue(client::ObjectKey(d->namespace_name(), api::StringAt(ref.get_object(), "name")));
      }
    }
  };
  deployments_.AddHandlers({owner, owner, owner});
}

json::object MyAppController::DesiredDeployment(const api::Object& app) {
  json::object labels{{"app", app.name()}};
  json::object pod_spec{
      {"containers", json::array{json::object{{"name", kContainer}, {"image", Image(app)}}}}};
  json::object pod_template{{"metadata", json::object{{"labels", labels}}},
                            {"spec", std::move(pod_spec)}};
  json::object metadata{{"name", app.name()},
                        {"namespace", app.namespace_name()},
                        {"labels", labels},
                        {"ownerReferences", json::array{controllers::ControllerRef(app)}}};
  json::object spec{{"replicas", Replicas(app)},
                    {"selector", json::object{{"matchLabels", labels}}},
                    {"template", std::move(pod_template)}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", std::move(metadata)},
          {"spec", std::move(spec)}};
}

Status MyAppController::Reconcile(const std::string& key) {
  api::ObjectPtr app = myapps_.Get(key);
  // Gone, or going: the garbage collector takes the Deployment with it.
  if (!app || api::BeingDeleted(*app)) return Status::Ok();

  api::ObjectPtr deployment = deployments_.Get(key);
  if (!deployment) {
    auto created =
        client_.Create(api::Kind::kDeployment, app->namespace_name(), DesiredDeployment(*app));
    // AlreadyExists: most often ours, not in the cache yet; retried with backoff.
    if (!created.ok()) return created.status();
    Log(*app, "created deployment " + app->name() + " (image " + std::string(Image(*app)) + ", " +
                  std::to_string(Replicas(*app)) + " replicas)");
    deployment = created.value();
  }
  if (controllers::ControllerUid(*deployment, kKind) != app->uid()) {
    // kube's sample-controller refuses in the same way: never take over what another made.
    Log(*app,
        "deployment " + app->name() + " exists and is not controlled by this MyApp; left alone");
    return Status::AlreadyExists("deployment " + key + " is not controlled by this MyApp");
  }
  if (Status s = SyncDeployment(*app, *deployment); !s.ok()) return s;
  return SyncStatus(*app, *deployment);
}

Status MyAppController::SyncDeployment(const api::Object& app, const api::Object& deployment) {
  json::object next = controllers::ForUpdate(deployment);
  std::vector<std::string> changes;
  int64_t replicas = Replicas(app);
  if (api::IntAt(api::Spec(deployment), "replicas", 1) != replicas) {
    api::MutableObject(next, "spec")["replicas"] = replicas;
    changes.push_back("replicas " + std::to_string(replicas));
  }
  std::string_view image = Image(app);
  json::object* container = AppContainer(next);
  if (!container) {
    json::array& containers = api::MutableArray(
        api::MutableObject(api::MutableObject(api::MutableObject(next, "spec"), "template"),
                           "spec"),
        "containers");
    containers.push_back(json::object{{"name", kContainer}, {"image", image}});
    changes.push_back("container app with image " + std::string(image));
  } else if (api::StringAt(*container, "image") != image) {
    (*container)["image"] = image;
    changes.push_back("image " + std::string(image));
  }
  if (changes.empty()) return Status::Ok();
  // Guarded by the version read: a concurrent change is a Conflict, retried.
  auto written = client_.Update(api::Kind::kDeployment, next);
  if (!written.ok()) return written.status();
  std::string what = "updated deployment " + deployment.name() + ":";
  for (const auto& c : changes) what += " " + c;
  Log(app, what);
  return Status::Ok();
}

Status MyAppController::SyncStatus(const api::Object& app, const api::Object& deployment) {
  int64_t available = api::IntAt(api::StatusOf(deployment), "availableReplicas");
  const json::object* status = api::StatusOf(app);
  if (status && status->contains("availableReplicas") &&
      api::IntAt(status, "availableReplicas") == available) {
    return Status::Ok();
  }
  json::object next = controllers::ForUpdate(app);
  api::MutableObject(next, "status")["availableReplicas"] = available;
  auto written = client_.UpdateStatus(myapp_, next);
  if (!written.ok()) return written.status();
  Log(app, "status.availableReplicas " + std::to_string(available));
  return Status::Ok();
}

}  // namespace myapp_operator
