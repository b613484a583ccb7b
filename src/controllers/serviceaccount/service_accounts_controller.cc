#include "controllers/serviceaccount/service_accounts_controller.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/time/duration.h"
#include "controllers/endpointslice/pod_endpoints.h"
#include "log/log.h"

namespace berth::controllers {

namespace json = boost::json;

ServiceAccountsController::ServiceAccountsController(const ControllerContext& context, int workers)
    : Controller("serviceaccount", context, workers),
      namespaces_(context.informers.For(api::Kind::kNamespace)),
      service_accounts_(context.informers.For(api::Kind::kServiceAccount)) {
  auto namespace_changed = [this](const api::ObjectPtr& ns) { Enqueue(ns->name()); };
  namespaces_.AddHandlers({namespace_changed, namespace_changed, nullptr});
  auto account_deleted = [this](const api::ObjectPtr& sa) { Enqueue(sa->namespace_name()); };
  service_accounts_.AddHandlers({nullptr, nullptr, account_deleted});
}

Status ServiceAccountsController::Reconcile(const std::string& key) {
  const auto started = clock_.Now();
  Status result = [&]() -> Status {
    api::ObjectPtr ns = namespaces_.Get(key);
    if (!ns) return Status::Ok();
    // Nothing is created in a namespace that is not Active.
    if (api::StringAt(api::StatusOf(*ns), "phase") != "Active") return Status::Ok();
    if (service_accounts_.Get(client::ObjectKey(key, kDefaultServiceAccount))) return Status::Ok();
    auto created =
        client_.Create(api::Kind::kServiceAccount, key,
                       json::object{{"metadata", json::object{{"name", kDefaultServiceAccount}}}});
    // AlreadyExists: the cache was behind. A terminating namespace takes nothing new.
    if (created.ok() || created.status().code() == StatusCode::kAlreadyExists ||
        NamespaceTerminating(created.status())) {
      return Status::Ok();
    }
    return created.status();
  }();
  BERTH_VLOG(4, "Finished syncing namespace", {"namespace", key},
             {"duration", api::FormatGoDuration(clock_.Now() - started)});
  return result;
}

}  // namespace berth::controllers
