#pragma once
// The RBAC objects (Roles, ClusterRoles, RoleBindings, ClusterRoleBindings)
// in memory, kept current by one store watch, so that authorizing a request
// reads no store: kube's informer-backed rule resolver. Also kube's
// ClusterRole aggregation controller: a ClusterRole with an aggregationRule
// gets as its rules the union of the rules of the ClusterRoles its selectors
// select (by name order, repeats dropped), written back to the store.
//
// Thread-safe: readers take a shared lock; the watch thread applies events
// under the exclusive one. Changes are seen a moment after they are written
// (as by kube's informers).

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/selector.h"
#include "apiserver/authz/rbac/policy_rule.h"
#include "store/store.h"

namespace berth::apiserver::rbac {

class PolicyIndex {
 public:
  explicit PolicyIndex(store::Store& store);
  ~PolicyIndex();
  PolicyIndex(const PolicyIndex&) = delete;
  PolicyIndex& operator=(const PolicyIndex&) = delete;

  // Lists the RBAC objects, brings aggregated ClusterRoles up to date and
  // starts following the store. Call once.
  Status Start();
  void Stop();

  // Calls `visit` with each rule that applies to `user` in namespace `ns`
  // ("" : cluster-wide only), with a description of where it comes from
  // (kube's `ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`):
  // ClusterRoleBindings first, then the RoleBindings of `ns`. `visit`
  // returns true to stop. Bindings whose role is missing add kube's NotFound
  // message to `errors` (may be null).
  void VisitRules(const UserInfo& user, std::string_view ns,
                  const std::function<bool(const std::string& source, const PolicyRule&)>& visit,
                  std::vector<std::string>* errors) const;
  // Every rule that applies to `user` in `ns`.
  std::vector<PolicyRule> RulesFor(const UserInfo& user, std::string_view ns,
                                   std::vector<std::string>* errors) const;
  // The rules of the role a binding refers to (`kind` Role or ClusterRole;
  // `ns` for a Role); NotFound with kube's message when absent.
  Result<std::vector<PolicyRule>> RoleRules(std::string_view kind, std::string_view ns,
                                            std::string_view name) const;

  // The roleRef (kind, name) of a RoleBinding (`ns` set) or ClusterRoleBinding.
  std::optional<std::pair<std::string, std::string>> BindingRoleRef(std::string_view ns,
                                                                    std::string_view name) const;

  // Applies one store event (the watch thread does; tests may too).
  void Apply(const store::WatchEvent& event);
  // Computes aggregated ClusterRoles' rules and writes those that changed;
  // returns how many were written.
  int Aggregate();

 private:
  struct ClusterRole {
    std::vector<PolicyRule> rules;
    api::Labels labels;
    std::optional<std::vector<api::LabelSelector>> aggregation;  // set: an aggregationRule
    api::ObjectPtr object;
  };
  struct Binding {
    std::string name, ns, role_kind, role_name;
    std::vector<Subject> subjects;
  };

  void Clear();
  void ApplyLocked(const store::WatchEvent& event);  // REQUIRES: mu_ held exclusively
  Status Relist();
  void Run();

  store::Store& store_;
  std::string prefix_;  // the key prefix of the four kinds
  std::string role_prefix_, cluster_role_prefix_, binding_prefix_, cluster_binding_prefix_;

  mutable std::shared_mutex mu_;
  std::map<std::string, std::vector<PolicyRule>> roles_;  // "ns/name"; guarded by mu_
  std::map<std::string, ClusterRole> cluster_roles_;      // guarded by mu_
  std::map<std::string, Binding> cluster_bindings_;       // by name; guarded by mu_
  std::map<std::string, std::map<std::string, Binding>>
      role_bindings_;  // ns → name; guarded by mu_

  int64_t revision_ = 0;  // watch thread only
  std::mutex watch_mu_;   // guards replacing watch_ (watch thread) against Stop
  std::unique_ptr<store::Watch> watch_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace berth::apiserver::rbac
