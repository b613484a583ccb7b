#pragma once
// One ResourceStrategy per served kind, as kube-apiserver's registry has one
// per resource: the kind's subresources (subresource.h: the strategy holds
// them, the API server routes to them, discovery and OpenAPI list them),
// what happens to an object before it is written (kube's PrepareForCreate /
// PrepareForUpdate and defaulting), and how it is validated on create and on
// update. The REST handlers, discovery and OpenAPI read it; built-in kinds get
// theirs when the registry is made, custom resources when their definition is
// established.
//
// Thread-safe: For() is lock-free; Set/Reset may run concurrently with it. A
// strategy replaced is kept alive for the registry's life (requests in flight
// may still hold it), so a strategy must not own much more than its schema.

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/object.h"
#include "api/status.h"
#include "api/validation/kind_rules.h"
#include "apiserver/printers/table.h"
#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

// Conversion between the versions of one resource when they differ beyond
// apiVersion: kube's CRD conversion webhooks (apiserver/crd/conversion.h).
// Kinds without one are converted by EncodedAs's apiVersion rewrite alone
// (kube's strategy None) or api/conversion.h (built-in kinds stored as others).
class VersionConverter {
 public:
  virtual ~VersionConverter() = default;
  // `objects` (of any of the resource's versions) in `api_version`
  // ("stable.example.com/v2"): those in it already unchanged, the others
  // converted; each keeps its resourceVersion. `list`: they are a list's
  // items (kube converts a list as one, and says so in its errors). An error
  // when the conversion fails (kube's InternalError), nothing converted then.
  virtual Result<std::vector<api::ObjectPtr>> Convert(std::vector<api::ObjectPtr> objects,
                                                      std::string_view api_version, bool list) const = 0;
  // The version objects are stored in ("stable.example.com/v1").
  virtual std::string_view StorageVersion() const = 0;
};

class ResourceStrategy {
 public:
  using Subresources = std::vector<std::unique_ptr<const Subresource>>;

  // `subresources`: the kind's, in the order discovery lists them.
  explicit ResourceStrategy(Subresources subresources = {});
  virtual ~ResourceStrategy();
  ResourceStrategy(const ResourceStrategy&) = delete;
  ResourceStrategy& operator=(const ResourceStrategy&) = delete;

  // The kind's subresources (kube's per-resource REST storages).
  std::span<const std::unique_ptr<const Subresource>> subresources() const { return subresources_; }
  // The one served at `name` ("status", "binding"); nullptr when none is.
  const Subresource* FindSubresource(std::string_view name) const;
  // Whether the kind has the status subresource: the main resource's writes
  // keep the stored status, and managedFields leave status to /status.
  bool HasStatus() const { return FindSubresource("status") != nullptr; }

  // Served at this version over REST (a custom resource may list versions
  // that are stored but no longer served).
  virtual bool Served() const { return true; }

  // kube's defaulting (what its decoder applies to every body), before
  // admission; on update, for writes of the object itself.
  virtual void Default(boost::json::object& object) const;
  // Mutations after admission, before a create's validation (fields the
  // server owns: a pod's initial status, a namespace's finalizer).
  virtual void PrepareForCreate(boost::json::object& object) const;
  // Mutations before an update's validation; `current` is the stored object.
  virtual void PrepareForUpdate(boost::json::object& next, const boost::json::object& current) const;
  // kube's Canonicalize: the object's canonical form, once its name is final
  // (after generateName), on create and on writes of the object itself.
  virtual void Canonicalize(boost::json::object& object) const {}
  // A stored object as GET, LIST and watch events return it: as stored, but
  // for a custom resource whose schema has defaults, those applied (kube's
  // decoding from storage).
  virtual api::ObjectPtr AsRead(const api::ObjectPtr& stored) const { return stored; }
  // How the resource's versions convert into each other beyond apiVersion;
  // nullptr: apiVersion is the whole difference.
  virtual const VersionConverter* Converter() const { return nullptr; }

  // A list's `objects` (stored, or answers of the store) in `kind`'s version
  // (this strategy's kind), through Converter() when there is one; unchanged else.
  Result<std::vector<api::ObjectPtr>> InVersion(std::vector<api::ObjectPtr> objects, api::Kind kind) const;
  // One object, the same way.
  Result<api::ObjectPtr> InVersion(api::ObjectPtr object, api::Kind kind) const;
  // Stored objects as GET, LIST and watch events return them: InVersion, then AsRead.
  Result<std::vector<api::ObjectPtr>> ForRead(std::vector<api::ObjectPtr> stored, api::Kind kind) const;
  Result<api::ObjectPtr> ForRead(api::ObjectPtr stored, api::Kind kind) const;
  // A written object in the version its resource is stored in (Converter's
  // storage version); unchanged without a Converter (stored as written).
  Result<api::ObjectPtr> ForStorage(api::ObjectPtr written) const;
  // Fields of `object` the kind does not define, as paths ("spec.foo"),
  // removed from it (kube's pruning, and fieldValidation's unknown fields).
  // Kinds without a complete schema find none.
  virtual void DropUnknownFields(boost::json::object& object, std::vector<std::string>* dropped) const;

  // The columns of `kubectl get` for a kind registered at run time (a
  // custom resource's additionalPrinterColumns); nullptr: built-in kinds'
  // own printers, or kube's default Name + Age.
  virtual const TablePrinter* Printer() const { return nullptr; }

  // How the list at `path` (field names joined by '.') merges when its kind's
  // schema says (a custom resource's x-kubernetes-list-type, "atomic", "set"
  // or "map", and its x-kubernetes-list-map-keys); empty type: the schema does
  // not say, built-in knowledge applies.
  virtual std::pair<std::string, std::vector<std::string>> ListTypeAt(std::string_view path) const { return {}; }

  virtual Status Validate(const api::Object& object) const;
  virtual Status ValidateUpdate(const api::Object& next, const api::Object& current) const;
  // kube's WarningsOnCreate / WarningsOnUpdate, for the client's Warning
  // headers: about a valid object; `current` is the stored one on update.
  virtual std::vector<std::string> Warnings(const api::Object& next, const api::Object* current) const { return {}; }

  // What a write holds until its object is written (a Service's allocated
  // addresses and ports): taken after admission, released after the write.
  using WriteGuard = std::unique_lock<std::mutex>;
  virtual Result<WriteGuard> BeginCreate(boost::json::object& object) const;
  // The same for an update of the object itself; `current` is the stored one.
  virtual Result<WriteGuard> BeginUpdate(boost::json::object& next, const boost::json::object& current) const;
  // After a create was stored (a CustomResourceDefinition is served at once).
  virtual void AfterCreate(const api::ObjectPtr& created) const;
  // Whether AfterCreate does anything: such creates complete on the
  // request's thread rather than through Store::CreateAsync.
  virtual bool HasAfterCreate() const { return false; }

  // Refusal of a DELETE before anything changes (kube's system
  // PriorityClasses cannot be deleted).
  virtual Status ValidateDelete(const api::Object& object) const;
  // kube's graceful deletion: how long the object stays, marked, before it
  // goes (0: deleted at once). `requested`: DeleteOptions.gracePeriodSeconds.
  virtual int64_t DeleteGracePeriod(const api::Object& object, std::optional<int64_t> requested) const;
  // A namespace: its DELETE marks it Terminating and drains what it holds;
  // it goes when its spec.finalizers are done (its /finalize subresource).
  virtual bool DeletesContents() const { return false; }

 private:
  const Subresources subresources_;
};

class BuiltinResourceStrategy : public ResourceStrategy {
 public:
  // `own`: the kind's subresources of its own (pods' binding ...), listed
  // before the scale and status subresources the kind table gives it.
  explicit BuiltinResourceStrategy(api::Kind kind, Subresources own = {})
      : BuiltinResourceStrategy(kind, kind, std::move(own)) {}
  void Default(boost::json::object& object) const override;
  // The kind's rules (its group's validation: api/validation/kind_rules.h).
  Status Validate(const api::Object& object) const override;
  Status ValidateUpdate(const api::Object& next, const api::Object& current) const override;
  std::vector<std::string> Warnings(const api::Object& next, const api::Object* current) const override;

 protected:
  // A strategy over `stored` objects whose subresources are those of the
  // `served` kind (a kind stored as another: KindInfo::stored_as).
  BuiltinResourceStrategy(api::Kind stored, api::Kind served, Subresources own);

  const api::Kind kind_;
  const api::KindRules& rules_;
};

// The strategy of a built-in kind: the status and scale subresources its row
// of the kind table names, its defaults (api/defaults.h) and the validation in
// api/validation/validation.h. The kinds with rules or subresources of their
// own (pods, namespaces, services ...) get theirs from
// RegisterBuiltinStrategies (strategies.h).
std::shared_ptr<const ResourceStrategy> BuiltinStrategy(api::Kind kind);

class ResourceRegistry {
 public:
  ResourceRegistry();
  // REQUIRES: `kind` is built in or has a strategy set.
  const ResourceStrategy& For(api::Kind kind) const {
    return *strategies_[static_cast<size_t>(kind)].load(std::memory_order_acquire);
  }
  bool Has(api::Kind kind) const { return strategies_[static_cast<size_t>(kind)].load(std::memory_order_acquire); }
  void Set(api::Kind kind, std::shared_ptr<const ResourceStrategy> strategy);
  // The subresources of `kind` that discovery and the OpenAPI document list
  // (Subresource::Description::listed), in order; none while a registered
  // kind has no strategy yet.
  std::vector<const Subresource*> ListedSubresources(api::Kind kind) const;

 private:
  std::array<std::atomic<const ResourceStrategy*>, api::kMaxKinds> strategies_{};
  std::mutex mu_;
  std::vector<std::shared_ptr<const ResourceStrategy>> owned_;  // guarded by mu_
};

}  // namespace berth::apiserver
