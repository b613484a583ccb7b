#include "apiserver/registry/registry.h"

#include "api/defaults.h"
#include "api/validation/validation.h"
#include "apiserver/subresources/scale.h"
#include "apiserver/subresources/status.h"

namespace berth::apiserver {

Result<boost::json::value> Subresource::MergeWrite(const boost::json::object&, const boost::json::object&) const {
  return Status(StatusCode::kMethodNotAllowed, "the server does not allow this method on the requested resource");
}

ResourceStrategy::ResourceStrategy(Subresources subresources) : subresources_(std::move(subresources)) {}
ResourceStrategy::~ResourceStrategy() = default;

const Subresource* ResourceStrategy::FindSubresource(std::string_view name) const {
  for (const auto& subresource : subresources_) {
    if (subresource->name() == name) return subresource.get();
  }
  return nullptr;
}

namespace {

// `own`, then the scale and status subresources the kind table gives `served`.
ResourceStrategy::Subresources WithTableSubresources(api::Kind served, ResourceStrategy::Subresources own) {
  const api::KindInfo& info = api::Info(served);
  if (info.scale) own.push_back(std::make_unique<ScaleSubresource>(ScalePaths{}));
  if (info.status) own.push_back(std::make_unique<StatusSubresource>(info.group, info.version, info.name));
  return own;
}

}  // namespace

BuiltinResourceStrategy::BuiltinResourceStrategy(api::Kind stored, api::Kind served, Subresources own)
    : ResourceStrategy(WithTableSubresources(served, std::move(own))), kind_(stored), rules_(api::RulesOf(stored)) {}

void BuiltinResourceStrategy::Default(boost::json::object& object) const { api::ApplyDefaults(kind_, object); }
Status BuiltinResourceStrategy::Validate(const api::Object& object) const {
  return api::ValidateObject(object, rules_);
}
Status BuiltinResourceStrategy::ValidateUpdate(const api::Object& next, const api::Object& current) const {
  Status valid = api::ValidateObject(next, rules_);
  if (!valid.ok()) return valid;
  return api::ValidateObjectUpdate(next, current, rules_);
}
std::vector<std::string> BuiltinResourceStrategy::Warnings(const api::Object& next, const api::Object* current) const {
  return rules_.warnings ? rules_.warnings(next, current) : std::vector<std::string>{};
}

Result<std::vector<api::ObjectPtr>> ResourceStrategy::InVersion(std::vector<api::ObjectPtr> objects,
                                                                 api::Kind kind) const {
  const VersionConverter* converter = Converter();
  if (converter == nullptr) return objects;
  return converter->Convert(std::move(objects), api::Info(kind).ApiVersion(), /*list=*/true);
}

Result<api::ObjectPtr> ResourceStrategy::InVersion(api::ObjectPtr object, api::Kind kind) const {
  const VersionConverter* converter = Converter();
  if (converter == nullptr || object->kind() == kind) return object;
  auto converted =
      converter->Convert(std::vector<api::ObjectPtr>{std::move(object)}, api::Info(kind).ApiVersion(), /*list=*/false);
  if (!converted.ok()) return converted.status();
  return std::move(converted->front());
}

Result<std::vector<api::ObjectPtr>> ResourceStrategy::ForRead(std::vector<api::ObjectPtr> stored,
                                                              api::Kind kind) const {
  auto converted = InVersion(std::move(stored), kind);
  if (!converted.ok()) return converted.status();
  for (api::ObjectPtr& object : *converted) object = AsRead(object);
  return converted;
}

Result<api::ObjectPtr> ResourceStrategy::ForRead(api::ObjectPtr stored, api::Kind kind) const {
  auto converted = InVersion(std::move(stored), kind);
  if (!converted.ok()) return converted.status();
  return AsRead(converted.value());
}

Result<api::ObjectPtr> ResourceStrategy::ForStorage(api::ObjectPtr written) const {
  const VersionConverter* converter = Converter();
  if (converter == nullptr) return written;
  auto converted =
      converter->Convert(std::vector<api::ObjectPtr>{std::move(written)}, converter->StorageVersion(), /*list=*/false);
  if (!converted.ok()) return converted.status();
  return std::move(converted->front());
}

void ResourceStrategy::Default(boost::json::object&) const {}
void ResourceStrategy::PrepareForCreate(boost::json::object&) const {}
void ResourceStrategy::PrepareForUpdate(boost::json::object&, const boost::json::object&) const {}
void ResourceStrategy::DropUnknownFields(boost::json::object&, std::vector<std::string>*) const {}
Status ResourceStrategy::Validate(const api::Object& object) const { return api::ValidateObject(object); }
Status ResourceStrategy::ValidateUpdate(const api::Object& next, const api::Object&) const {
  return api::ValidateObject(next);
}

Result<ResourceStrategy::WriteGuard> ResourceStrategy::BeginCreate(boost::json::object&) const {
  return WriteGuard();
}
Result<ResourceStrategy::WriteGuard> ResourceStrategy::BeginUpdate(boost::json::object&,
                                                                   const boost::json::object&) const {
  return WriteGuard();
}
void ResourceStrategy::AfterCreate(const api::ObjectPtr&) const {}
Status ResourceStrategy::ValidateDelete(const api::Object&) const { return Status::Ok(); }
int64_t ResourceStrategy::DeleteGracePeriod(const api::Object&, std::optional<int64_t>) const { return 0; }

namespace {

// A kind served over another kind's objects (KindInfo::stored_as): the REST
// handlers convert what it reads and writes, so its strategy sees objects of
// the storage kind and is that kind's, but for the rules of its own version
// (events.k8s.io/v1's stricter validation of Events).
class StoredAsStrategy final : public BuiltinResourceStrategy {
 public:
  explicit StoredAsStrategy(api::Kind served)
      : BuiltinResourceStrategy(api::StorageKindOf(served), served, {}), served_(served) {}
  Status Validate(const api::Object& object) const override {
    if (served_ == api::Kind::kEventsEvent) return api::ValidateEventsV1Create(object);
    return BuiltinResourceStrategy::Validate(object);
  }
  Status ValidateUpdate(const api::Object& next, const api::Object& current) const override {
    if (served_ == api::Kind::kEventsEvent) return api::ValidateEventsV1Update(next, current);
    return BuiltinResourceStrategy::ValidateUpdate(next, current);
  }

 private:
  const api::Kind served_;
};

}  // namespace

std::shared_ptr<const ResourceStrategy> BuiltinStrategy(api::Kind kind) {
  if (api::Info(kind).stored_as) return std::make_shared<StoredAsStrategy>(kind);
  return std::make_shared<BuiltinResourceStrategy>(kind);
}

ResourceRegistry::ResourceRegistry() {
  for (int i = 0; i < api::kBuiltinKindCount; ++i) Set(static_cast<api::Kind>(i), BuiltinStrategy(static_cast<api::Kind>(i)));
}

void ResourceRegistry::Set(api::Kind kind, std::shared_ptr<const ResourceStrategy> strategy) {
  std::lock_guard lock(mu_);
  strategies_[static_cast<size_t>(kind)].store(strategy.get(), std::memory_order_release);
  owned_.push_back(std::move(strategy));
}

std::vector<const Subresource*> ResourceRegistry::ListedSubresources(api::Kind kind) const {
  std::vector<const Subresource*> listed;
  if (!Has(kind)) return listed;
  for (const auto& subresource : For(kind).subresources()) {
    if (subresource->description().listed) listed.push_back(subresource.get());
  }
  return listed;
}

}  // namespace berth::apiserver
