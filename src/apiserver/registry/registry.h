#pragma once
// One ResourceStrategy per served kind, as kube-apiserver's registry has one
// per resource: which subresources the kind has, what happens to an object
// before it is written (kube's PrepareForCreate / PrepareForUpdate and
// defaulting), and how it is validated on create and on update. The REST
// handlers, discovery and OpenAPI read it; built-in kinds get theirs when the
// registry is made, custom resources when their definition is established.
//
// Thread-safe: For() is lock-free; Set/Reset may run concurrently with it. A
// strategy replaced is kept alive for the registry's life (requests in flight
// may still hold it), so a strategy must not own much more than its schema.

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
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

namespace berth::apiserver {

class ResourceStrategy {
 public:
  virtual ~ResourceStrategy() = default;

  // The status subresource: the main resource's writes keep the stored
  // status, /status writes change only it.
  virtual bool HasStatus() const = 0;
  // The scale subresource (autoscaling/v1 Scale).
  virtual bool HasScale() const { return false; }
  // Where Scale reads and writes: dotted paths (".spec.replicas"). The
  // selector is a LabelSelector object for built-in kinds and, as kube's
  // labelSelectorPath, a selector string for custom resources ("" for none).
  struct ScalePaths {
    std::string spec_replicas = ".spec.replicas";
    std::string status_replicas = ".status.replicas";
    std::string label_selector = ".spec.selector";
    bool selector_is_object = true;
  };
  virtual ScalePaths ScaleAt() const { return {}; }
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

  // What a create holds until its object is written (a Service's allocated
  // addresses and ports): taken after admission, released after the write.
  using CreateGuard = std::unique_lock<std::mutex>;
  virtual Result<CreateGuard> BeginCreate(boost::json::object& object) const;
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
};

class BuiltinResourceStrategy : public ResourceStrategy {
 public:
  explicit BuiltinResourceStrategy(api::Kind kind) : kind_(kind), rules_(api::RulesOf(kind)) {}
  bool HasStatus() const override;
  bool HasScale() const override;
  void Default(boost::json::object& object) const override;
  // The kind's rules (its group's validation: api/validation/kind_rules.h).
  Status Validate(const api::Object& object) const override;
  Status ValidateUpdate(const api::Object& next, const api::Object& current) const override;

 protected:
  const api::Kind kind_;
  const api::KindRules& rules_;
};

// The strategy of a built-in kind: kube's subresources for it, its defaults
// (api/defaults.h) and the validation in api/validation/validation.h. The kinds with
// rules of their own (pods, namespaces, services ...) get theirs from
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

 private:
  std::array<std::atomic<const ResourceStrategy*>, api::kMaxKinds> strategies_{};
  std::mutex mu_;
  std::vector<std::shared_ptr<const ResourceStrategy>> owned_;  // guarded by mu_
};

}  // namespace berth::apiserver
