#include "apiserver/registry.h"

#include "api/defaults.h"
#include "api/validation.h"

namespace berth::apiserver {
namespace {

class Builtin final : public ResourceStrategy {
 public:
  explicit Builtin(api::Kind kind) : kind_(kind) {}

  bool HasStatus() const override { return api::Info(kind_).status; }

  // kube's defaults, and a Secret's stringData folded into data.
  void PrepareForCreate(boost::json::object& object) const override {
    if (kind_ == api::Kind::kSecret) api::PrepareSecret(object);
    api::ApplyDefaults(kind_, object);
  }
  void PrepareForUpdate(boost::json::object& next, const boost::json::object&) const override {
    PrepareForCreate(next);
  }

  bool HasScale() const override { return api::Info(kind_).scale; }

  Status ValidateUpdate(const api::Object& next, const api::Object& current) const override {
    Status valid = api::ValidateObject(next);
    if (!valid.ok()) return valid;
    return api::ValidateObjectUpdate(next, current);
  }

 private:
  const api::Kind kind_;
};

}  // namespace

void ResourceStrategy::PrepareForCreate(boost::json::object&) const {}
void ResourceStrategy::PrepareForUpdate(boost::json::object&, const boost::json::object&) const {}
void ResourceStrategy::DropUnknownFields(boost::json::object&, std::vector<std::string>*) const {}
Status ResourceStrategy::Validate(const api::Object& object) const { return api::ValidateObject(object); }
Status ResourceStrategy::ValidateUpdate(const api::Object& next, const api::Object&) const {
  return api::ValidateObject(next);
}

std::shared_ptr<const ResourceStrategy> BuiltinStrategy(api::Kind kind) { return std::make_shared<Builtin>(kind); }

ResourceRegistry::ResourceRegistry() {
  for (int i = 0; i < api::kBuiltinKindCount; ++i) Set(static_cast<api::Kind>(i), BuiltinStrategy(static_cast<api::Kind>(i)));
}

void ResourceRegistry::Set(api::Kind kind, std::shared_ptr<const ResourceStrategy> strategy) {
  std::lock_guard lock(mu_);
  strategies_[static_cast<size_t>(kind)].store(strategy.get(), std::memory_order_release);
  owned_.push_back(std::move(strategy));
}

}  // namespace berth::apiserver
