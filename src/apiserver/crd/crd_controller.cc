#include "apiserver/crd/crd_controller.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <deque>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "api/validation/field_errors.h"
#include "api/validation/validation.h"
#include "apiserver/crd/conversion.h"
#include "apiserver/crd/crd_validation.h"
#include "apiserver/crd/structural_schema.h"
#include "apiserver/printers/table_printers.h"
#include "apiserver/registry/finalizers.h"
#include "apiserver/subresources/scale.h"
#include "apiserver/subresources/status.h"

namespace berth::apiserver::crd {

namespace json = boost::json;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// kube's CRD defaulting: singular from kind, listKind from kind, conversion
// strategy None.
void DefaultNames(json::object& crd) {
  json::object& spec = api::MutableObject(crd, "spec");
  if (spec.if_contains("conversion") == nullptr || spec.at("conversion").is_null()) {
    spec["conversion"] = json::object{{"strategy", "None"}};
  }
  // A conversion webhook's Service is on port 443 unless it says.
  auto member = [](json::object* o, std::string_view key) -> json::object* {
    json::value* v = o ? o->if_contains(key) : nullptr;
    return v ? v->if_object() : nullptr;
  };
  json::object* service = member(member(member(&spec, "conversion"), "webhook"), "clientConfig");
  service = member(service, "service");
  if (service && (!service->contains("port") || service->at("port").is_null())) (*service)["port"] = 443;
  json::object& names = api::MutableObject(spec, "names");
  std::string kind(api::StringAt(names, "kind"));
  if (api::StringAt(names, "singular").empty() && !kind.empty()) names["singular"] = Lower(kind);
  if (api::StringAt(names, "listKind").empty() && !kind.empty()) names["listKind"] = kind + "List";
}

// A definition's own status subresource (its conditions, accepted names).
ResourceStrategy::Subresources CrdSubresources() {
  const api::KindInfo& crd = api::Info(api::Kind::kCustomResourceDefinition);
  ResourceStrategy::Subresources own;
  own.push_back(std::make_unique<StatusSubresource>(crd.group, crd.version, crd.name));
  return own;
}

class CrdKindStrategy final : public ResourceStrategy {
 public:
  explicit CrdKindStrategy(std::function<void(const api::ObjectPtr&)> on_created)
      : ResourceStrategy(CrdSubresources()), on_created_(std::move(on_created)) {}
  void AfterCreate(const api::ObjectPtr& created) const override {
    if (on_created_) on_created_(created);
  }
  bool HasAfterCreate() const override { return on_created_ != nullptr; }
  void PrepareForCreate(json::object& crd) const override {
    crd.erase("status");
    DefaultNames(crd);
    json::array& finalizers = api::MutableArray(api::MutableObject(crd, "metadata"), "finalizers");
    bool present = false;
    for (const auto& f : finalizers) present = present || (f.is_string() && f.get_string() == kCleanupFinalizer);
    if (!present) finalizers.emplace_back(json::string(kCleanupFinalizer));
  }
  void PrepareForUpdate(json::object& next, const json::object&) const override { DefaultNames(next); }
  Status Validate(const api::Object& object) const override {
    Status meta = api::ValidateObject(object);
    if (!meta.ok()) return meta;
    return ValidateCrd(object, nullptr);
  }
  Status ValidateUpdate(const api::Object& next, const api::Object& current) const override {
    Status meta = api::ValidateObject(next);
    if (!meta.ok()) return meta;
    Status valid = ValidateCrd(next, &current);
    if (!valid.ok()) return valid;
    api::FieldErrors errors;
    const json::object* n = api::Spec(next);
    const json::object* c = api::Spec(current);
    if (api::StringAt(n, "group") != api::StringAt(c, "group")) {
      errors.Invalid("spec.group", api::StringAt(n, "group"), "field is immutable");
    }
    if (api::StringAt(n, "scope") != api::StringAt(c, "scope")) {
      errors.Invalid("spec.scope", api::StringAt(n, "scope"), "field is immutable");
    }
    return errors.ToStatus("CustomResourceDefinition.apiextensions.k8s.io", next.name());
  }

 private:
  std::function<void(const api::ObjectPtr&)> on_created_;
};

// The value at a simple JSONPath (".spec.replicas", ".status.conditions[0].type"),
// as additionalPrinterColumns use them; nullptr when absent.
const json::value* AtPath(const json::value& root, std::string_view path) {
  const json::value* at = &root;
  size_t i = 0;
  while (at && i < path.size()) {
    if (path[i] == '.') {
      ++i;
      size_t end = path.find_first_of(".[", i);
      std::string_view key = path.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i);
      at = at->is_object() ? at->get_object().if_contains(key) : nullptr;
      i = end == std::string_view::npos ? path.size() : end;
    } else if (path[i] == '[') {
      size_t end = path.find(']', i);
      if (end == std::string_view::npos || !at->is_array()) return nullptr;
      size_t index = 0;
      for (char c : path.substr(i + 1, end - i - 1)) {
        if (c < '0' || c > '9') return nullptr;
        index = index * 10 + static_cast<size_t>(c - '0');
      }
      at = index < at->get_array().size() ? &at->get_array()[index] : nullptr;
      i = end + 1;
    } else {
      return nullptr;
    }
  }
  return at;
}

// kube's table for a custom resource: Name, then the version's
// additionalPrinterColumns (Age when it has none).
std::optional<TablePrinter> PrinterFor(const json::object* version) {
  const json::array* columns = api::ArrayAt(version, "additionalPrinterColumns");
  struct Column {
    std::string path, type;
  };
  std::vector<Column> paths;
  TablePrinter printer;
  printer.columns.push_back({"Name", "string", "name", "Name must be unique within a namespace.", 0});
  if (!columns || columns->empty()) {
    printer.columns.push_back({"Age", "date", "", "CreationTimestamp is a timestamp ...", 0});
    paths.push_back({".metadata.creationTimestamp", "date"});
  } else {
    for (const auto& c : *columns) {
      const json::object* col = c.if_object();
      if (!col) continue;
      printer.columns.push_back({std::string(api::StringAt(col, "name")), std::string(api::StringAt(col, "type")),
                                 std::string(api::StringAt(col, "format")),
                                 std::string(api::StringAt(col, "description")),
                                 static_cast<int>(api::IntAt(col, "priority"))});
      paths.push_back({std::string(api::StringAt(col, "jsonPath")), std::string(api::StringAt(col, "type"))});
    }
  }
  printer.row = [paths](const api::Object& object, std::chrono::system_clock::time_point now) {
    json::array cells;
    cells.emplace_back(json::string(object.name()));
    json::value root = object.json();
    for (const Column& c : paths) {
      const json::value* v = AtPath(root, c.path);
      if (!v || v->is_null()) {
        cells.emplace_back(nullptr);
      } else if (c.type == "date" && v->is_string()) {
        cells.emplace_back(json::string(table::Since(v->get_string(), now)));
      } else {
        cells.push_back(*v);
      }
    }
    return cells;
  };
  return printer;
}

// A custom resource version's subresources, as its definition names them
// (spec.versions[].subresources): scale at the definition's paths, status.
ResourceStrategy::Subresources CustomResourceSubresources(const api::KindSpec& kind, const json::object* declared) {
  ResourceStrategy::Subresources held;
  if (const json::object* scale = api::ObjectAt(declared, "scale")) {
    held.push_back(std::make_unique<ScaleSubresource>(
        ScalePaths{.spec_replicas = std::string(api::StringAt(scale, "specReplicasPath")),
                   .status_replicas = std::string(api::StringAt(scale, "statusReplicasPath")),
                   .label_selector = std::string(api::StringAt(scale, "labelSelectorPath")),
                   .selector_is_object = false}));
  }
  if (declared && declared->contains("status")) {
    held.push_back(std::make_unique<StatusSubresource>(kind.group, kind.version, kind.name));
  }
  return held;
}

// A custom resource of one served version.
class CustomResourceStrategy final : public ResourceStrategy {
 public:
  // `resource`: plural.group; `terminating`: the definition is being deleted.
  // `converter`: the definition's conversion webhook (nullptr: strategy None).
  CustomResourceStrategy(std::string kind_name, std::string resource, std::shared_ptr<const Schema> schema,
                         Subresources subresources, std::optional<TablePrinter> printer, bool terminating,
                         std::shared_ptr<const VersionConverter> converter)
      : ResourceStrategy(std::move(subresources)),
        kind_name_(std::move(kind_name)),
        resource_(std::move(resource)),
        schema_(std::move(schema)),
        printer_(std::move(printer)),
        terminating_(terminating),
        converter_(std::move(converter)) {}

  const VersionConverter* Converter() const override { return converter_.get(); }

  // kube's handler refuses new objects (a create, or an apply that would
  // create) while the definition terminates; its objects stay readable,
  // writable and deletable.
  Result<WriteGuard> BeginCreate(json::object& object) const override {
    if (!terminating_) return WriteGuard();
    std::string_view name = api::StringAt(api::ObjectAt(object, "metadata"), "name");
    std::string message = resource_;
    if (!name.empty()) message += " \"" + std::string(name) + "\"";
    return Status(StatusCode::kForbidden,
                  message + " is forbidden: create not allowed while custom resource definition is terminating");
  }

  const TablePrinter* Printer() const override { return printer_ ? &*printer_ : nullptr; }

  api::ObjectPtr AsRead(const api::ObjectPtr& stored) const override {
    if (!schema_->HasDefaults()) return stored;
    json::value defaulted(stored->json());
    schema_->ApplyDefaults(defaulted);
    if (defaulted.get_object() == stored->json()) return stored;
    auto edited = stored->Edit([&](json::object& o) { o = std::move(defaulted.get_object()); });
    return edited.ok() ? edited.value()->WithResourceVersion(stored->resource_version()) : stored;
  }

  std::pair<std::string, std::vector<std::string>> ListTypeAt(std::string_view path) const override {
    return schema_->ListTypeAt(path);
  }

  void PrepareForCreate(json::object& object) const override {
    if (HasStatus()) object.erase("status");
    Shape(object, nullptr);
    api::MutableObject(object, "metadata")["generation"] = 1;
  }
  void PrepareForUpdate(json::object& next, const json::object& current) const override {
    Shape(next, nullptr);
    // kube: the generation moves with every change outside metadata (and
    // outside status when status is a subresource).
    const bool status = HasStatus();
    bool changed = false;
    for (const auto& [key, value] : next) {
      if (key == "metadata" || (status && key == "status")) continue;
      const json::value* before = current.if_contains(key);
      changed = changed || !before || *before != value;
    }
    for (const auto& [key, value] : current) {
      if (key == "metadata" || (status && key == "status")) continue;
      changed = changed || !next.contains(key);
    }
    json::object& meta = api::MutableObject(next, "metadata");
    int64_t generation = api::IntAt(api::ObjectAt(current, "metadata"), "generation", 1);
    meta["generation"] = changed ? generation + 1 : generation;
  }
  void DropUnknownFields(json::object& object, std::vector<std::string>* dropped) const override {
    json::value v(std::move(object));
    schema_->Prune(v, dropped);
    object = std::move(v.get_object());
  }
  Status Validate(const api::Object& object) const override {
    Status meta = api::ValidateObject(object);
    if (!meta.ok()) return meta;
    api::FieldErrors errors;
    schema_->Validate(json::value(object.json()), errors);
    return errors.ToStatus(kind_name_, object.name());
  }
  Status ValidateUpdate(const api::Object& next, const api::Object&) const override { return Validate(next); }

 private:
  // Pruning, then defaults (kube's order when decoding a request).
  void Shape(json::object& object, std::vector<std::string>* pruned) const {
    json::value v(std::move(object));
    schema_->Prune(v, pruned);
    schema_->ApplyDefaults(v);
    object = std::move(v.get_object());
  }

  const std::string kind_name_;
  const std::string resource_;
  const std::shared_ptr<const Schema> schema_;
  const std::optional<TablePrinter> printer_;
  const bool terminating_;
  const std::shared_ptr<const VersionConverter> converter_;
};

}  // namespace

std::shared_ptr<const ResourceStrategy> CrdStrategy(std::function<void(const api::ObjectPtr&)> on_created) {
  return std::make_shared<CrdKindStrategy>(std::move(on_created));
}

api::KindSpec KindSpecOf(const api::Object& crd, const json::object& version) {
  const json::object* spec = api::Spec(crd);
  // kube serves a definition under its accepted names.
  const json::object* names = api::ObjectAt(api::StatusOf(crd), "acceptedNames");
  if (api::StringAt(names, "plural").empty() || api::StringAt(names, "kind").empty()) {
    names = api::ObjectAt(spec, "names");
  }
  api::KindSpec kind;
  kind.group = api::StringAt(spec, "group");
  kind.version = api::StringAt(version, "name");
  kind.name = api::StringAt(names, "kind");
  kind.resource = api::StringAt(names, "plural");
  kind.singular = api::StringAt(names, "singular");
  if (kind.singular.empty()) kind.singular = Lower(kind.name);
  kind.namespaced = api::StringAt(spec, "scope") != "Cluster";
  Names listed = Names::From(names);
  kind.short_names = std::move(listed.short_names);
  kind.categories = std::move(listed.categories);
  const json::object* sub = api::ObjectAt(version, "subresources");
  kind.status = sub && sub->contains("status");
  kind.scale = sub && sub->contains("scale");
  return kind;
}

Status RegisterStoredKinds(store::Store& store) {
  auto listed = store.List({.prefix = api::StoragePrefix(api::Kind::kCustomResourceDefinition)});
  if (!listed.ok()) return listed.status();
  for (const auto& crd : listed->items) {
    // A definition never served has no objects; its names may be another's.
    if (!Servable(api::StatusOf(*crd))) continue;
    const json::array* versions = api::ArrayAt(api::Spec(*crd), "versions");
    if (!versions) continue;
    for (const auto& v : *versions) {
      if (const json::object* version = v.if_object()) (void)api::RegisterKind(KindSpecOf(*crd, *version));
    }
  }
  return Status::Ok();
}

CrdController::CrdController(store::Store& store, ResourceRegistry& registry, OpenApi* openapi,
                             std::chrono::steady_clock::duration deletion_timeout)
    : store_(store),
      registry_(registry),
      openapi_(openapi),
      deletion_timeout_(deletion_timeout),
      caller_(std::make_shared<webhook::Caller>(store)) {}

CrdController::~CrdController() {
  stopping_ = true;
  {
    std::lock_guard lock(watch_mu_);
    if (watch_) watch_->Stop();
  }
  if (thread_.joinable()) thread_.join();
}

Status CrdController::ListAndWatch() {
  auto listed = store_.List({.prefix = api::StoragePrefix(api::Kind::kCustomResourceDefinition)});
  if (!listed.ok()) return listed.status();
  {
    // The ones gone first: the names they held are free for the others.
    std::lock_guard lock(mu_);
    std::vector<std::string> gone;
    for (const auto& [name, served] : served_) {
      bool listed_now = std::any_of(listed->items.begin(), listed->items.end(),
                                    [&name](const api::ObjectPtr& crd) { return crd->name() == name; });
      if (!listed_now) gone.push_back(name);
    }
    for (const auto& name : gone) {
      Remove(name);
      waiting_.erase(name);
    }
  }
  for (const auto& crd : listed->items) {
    // Another definition synced before may have changed this one.
    auto latest = store_.Get(crd->StorageKey());
    if (latest.ok()) Sync(latest.value());
  }
  store::WatchOptions options;
  options.prefix = api::StoragePrefix(api::Kind::kCustomResourceDefinition);
  options.resource_version = listed->revision;
  auto watch = store_.WatchFrom(options);
  if (!watch.ok()) return watch.status();
  std::lock_guard lock(watch_mu_);
  if (stopping_) return Status::Ok();
  watch_ = std::move(watch).value();
  return Status::Ok();
}

Status CrdController::Start() {
  Status started = ListAndWatch();
  if (!started.ok()) return started;
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void CrdController::Run() {
  while (!stopping_) {
    std::shared_ptr<store::Watch> watch;
    {
      std::lock_guard lock(watch_mu_);
      watch = watch_;
    }
    if (!watch || watch->Done()) {
      // The watch ended (expired, or the store is closing): list again, at
      // most once a second.
      if (stopping_) return;
      (void)ListAndWatch();
      for (int i = 0; i < 20 && !stopping_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    auto events = watch->Next(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    for (const auto& e : events) {
      if (e.type == store::EventType::kDeleted && e.object) {
        Forget(*e.object);
      } else if ((e.type == store::EventType::kAdded || e.type == store::EventType::kModified) && e.object) {
        // Act on the latest version only: the event may be stale.
        auto latest = store_.Get(e.object->StorageKey());
        if (latest.ok()) Sync(latest.value());
      }
    }
    RecheckWaiting();
  }
}

void CrdController::Sync(const api::ObjectPtr& crd) {
  std::lock_guard lock(mu_);
  if (SyncOne(crd)) SyncGroup(std::string(api::StringAt(api::Spec(*crd), "group")), crd->name());
}

void CrdController::Forget(const api::Object& crd) {
  std::lock_guard lock(mu_);
  Remove(crd.name());
  waiting_.erase(crd.name());
  // kube's naming controller: a definition gone frees its names; the
  // group's others are considered again.
  SyncGroup(std::string(api::StringAt(api::Spec(crd), "group")), crd.name());
}

GroupNames CrdController::NamesOfGroup(const std::string& group) {
  GroupNames taken;
  auto listed = store_.List({.prefix = api::StoragePrefix(api::Kind::kCustomResourceDefinition)});
  if (!listed.ok()) return taken;
  for (const auto& crd : listed->items) {
    if (api::StringAt(api::Spec(*crd), "group") != group) continue;
    taken.Add(Names::From(api::ObjectAt(api::StatusOf(*crd), "acceptedNames")));
  }
  return taken;
}

void CrdController::SyncGroup(const std::string& group, const std::string& except) {
  auto others = [this, &group](const std::string& but) {
    std::vector<std::string> names;
    auto listed = store_.List({.prefix = api::StoragePrefix(api::Kind::kCustomResourceDefinition)});
    if (!listed.ok()) return names;
    for (const auto& crd : listed->items) {
      if (crd->name() != but && api::StringAt(api::Spec(*crd), "group") == group) names.push_back(crd->name());
    }
    return names;
  };
  std::deque<std::string> pending;
  for (auto& name : others(except)) pending.push_back(std::move(name));
  // Each pass that changes names writes a status; a group settles in a few.
  // The bound only guards against a store that keeps answering otherwise.
  for (int passes = 0; !pending.empty() && passes < 256; ++passes) {
    const std::string name = std::move(pending.front());
    pending.pop_front();
    auto current = store_.Get(api::StorageKey(api::Kind::kCustomResourceDefinition, "", name));
    if (!current.ok() || !SyncOne(current.value())) continue;
    for (auto& other : others(name)) {
      if (std::find(pending.begin(), pending.end(), other) == pending.end()) pending.push_back(std::move(other));
    }
  }
}

bool CrdController::SyncOne(api::ObjectPtr crd) {
  // The latest version only: a stale one would find its own accepted names
  // taken (kube counts them) and stop serving it.
  auto latest = store_.Get(crd->StorageKey());
  if (!latest.ok()) return false;
  crd = latest.value();
  const json::object* spec = api::Spec(*crd);
  const std::string now = api::FormatRfc3339(std::chrono::system_clock::now());
  json::object status;
  if (const json::object* before = api::StatusOf(*crd)) status = *before;
  const bool names_changed =
      ApplyNames(status, api::ObjectAt(spec, "names"), NamesOfGroup(std::string(api::StringAt(spec, "group"))), now);
  const bool servable = Servable(&status);
  if (servable) (void)Establish(status, now);
  json::array stored;
  if (const json::array* before = api::ArrayAt(status, "storedVersions")) stored = *before;
  static const json::array kNone;
  const json::array* versions = api::ArrayAt(spec, "versions");
  for (const auto& v : versions ? *versions : kNone) {
    const json::object* version = v.if_object();
    if (!version || !api::BoolAt(version, "storage")) continue;
    json::string name(api::StringAt(version, "name"));
    if (std::find(stored.begin(), stored.end(), json::value(name)) == stored.end()) stored.emplace_back(name);
  }
  status["storedVersions"] = std::move(stored);
  if (!status.contains("acceptedNames")) status["acceptedNames"] = Names().ToJson();

  // Served (under the accepted names) before Established is written, so
  // that a client waiting for it finds the kinds there.
  json::value next = crd->json();
  next.get_object()["status"] = status;
  auto with_status = api::Object::FromJson(std::move(next));
  if (!with_status.ok()) return false;
  if (servable) {
    Serve(*with_status.value());
  } else {
    Remove(crd->name());
  }
  auto written = WriteStatus(crd, std::move(status));
  // A conflict means a newer version is on its way: its event syncs again.
  if (!written.ok()) return false;
  if (api::BeingDeleted(*written.value())) {
    Terminate(written.value());
  } else {
    waiting_.erase(crd->name());
  }
  return names_changed;
}

Result<api::ObjectPtr> CrdController::WriteStatus(const api::ObjectPtr& crd, json::object status) {
  const json::object* before = api::StatusOf(*crd);
  if (before && *before == status) return crd;
  json::value next = crd->json();
  next.get_object()["status"] = std::move(status);
  auto built = api::Object::FromJson(std::move(next));
  if (!built.ok()) return built.status();
  return store_.Update(built.value(), crd->resource_version());
}

void CrdController::Serve(const api::Object& crd) {
  const json::object* spec = api::Spec(crd);
  const bool terminating = api::BeingDeleted(crd) || ConditionTrue(api::StatusOf(crd), "Terminating");
  const json::object* accepted = api::ObjectAt(api::StatusOf(crd), "acceptedNames");
  json::value from = json::object{{"spec", spec ? json::value(*spec) : json::value()},
                                  {"acceptedNames", accepted ? json::value(*accepted) : json::value()},
                                  {"terminating", terminating}};
  auto known = served_.find(crd.name());
  if (known != served_.end() && known->second.from == from) return;
  std::vector<api::Kind> kinds;
  // One converter for the definition's versions, shared by their strategies.
  const std::shared_ptr<const VersionConverter> converter = ConverterFor(caller_, crd);
  static const json::array kNone;
  const json::array* versions = api::ArrayAt(spec, "versions");
  for (const auto& v : versions ? *versions : kNone) {
    const json::object* version = v.if_object();
    if (!version || !api::BoolAt(version, "served")) continue;
    const json::object* schema_json = api::ObjectAt(api::ObjectAt(version, "schema"), "openAPIV3Schema");
    if (!schema_json) continue;
    api::FieldErrors ignored;
    auto schema = Schema::Parse(json::value(*schema_json), "", ignored);
    if (!schema.ok()) continue;  // validated on write; a stored one that fails is not served
    api::KindSpec kind = KindSpecOf(crd, *version);
    const json::object* sub = api::ObjectAt(version, "subresources");
    // Refused when it names a built-in resource: the built-in one is served.
    auto registered = api::RegisterKind(kind);
    if (!registered.ok()) continue;
    registry_.Set(*registered, std::make_shared<CustomResourceStrategy>(
                                   kind.name + "." + kind.group, kind.resource + "." + kind.group,
                                   std::move(schema).value(), CustomResourceSubresources(kind, sub),
                                   PrinterFor(version), terminating, converter));
    if (openapi_) openapi_->SetSchema(*registered, json::value(*schema_json));
    kinds.push_back(*registered);
  }
  // Versions served before and not now.
  for (api::Kind old : served_[crd.name()].kinds) {
    if (std::find(kinds.begin(), kinds.end(), old) != kinds.end()) continue;
    api::UnregisterKind(old);
    if (openapi_) openapi_->ClearSchema(old);
  }
  Served& now = served_[crd.name()];
  now.kinds = std::move(kinds);
  now.from = std::move(from);
  SetConverting(now, converter ? std::string(api::StringAt(spec, "group")) : std::string());
}

void CrdController::Remove(const std::string& crd_name) {
  auto it = served_.find(crd_name);
  if (it == served_.end()) return;
  for (api::Kind kind : it->second.kinds) {
    api::UnregisterKind(kind);
    if (openapi_) openapi_->ClearSchema(kind);
  }
  SetConverting(it->second, "");
  served_.erase(it);
}

void CrdController::SetConverting(Served& served, std::string group) {
  if (served.converting_group == group) return;
  std::lock_guard lock(converting_mu_);
  if (!served.converting_group.empty()) {
    auto it = std::find(converting_groups_.begin(), converting_groups_.end(), served.converting_group);
    if (it != converting_groups_.end()) converting_groups_.erase(it);
  }
  if (!group.empty()) converting_groups_.push_back(group);
  served.converting_group = std::move(group);
  any_converting_ = !converting_groups_.empty();
}

bool CrdController::ConvertsThroughWebhook(std::string_view group) const {
  if (!any_converting_) return false;
  std::lock_guard lock(converting_mu_);
  return std::find(converting_groups_.begin(), converting_groups_.end(), group) != converting_groups_.end();
}

}  // namespace berth::apiserver::crd
