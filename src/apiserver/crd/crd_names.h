#pragma once
// The names a CustomResourceDefinition claims, as kube's apiextensions-apiserver
// decides them:
//
// - its naming controller: a definition's requested names (spec.names) are
//   accepted unless another definition of the same group has accepted them
//   already (status.acceptedNames); NamesAccepted says which conflict stops
//   them (PluralConflict, SingularConflict, ShortNamesConflict, KindConflict,
//   ListKindConflict), and a name once accepted stays accepted;
// - its establishing controller: Established True ("InitialNamesAccepted")
//   once the names are accepted and the kinds are served;
// - the API approval a definition in a community group (k8s.io,
//   kubernetes.io and their subdomains) needs in its annotations.
//
// Pure functions over JSON: the CrdController (crd_controller.h) reads the
// group's definitions and writes what these decide.

#include <boost/json/object.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/conditions.h"
#include "api/object.h"
#include "api/validation/field_errors.h"

namespace berth::apiserver::crd {

// spec.names or status.acceptedNames.
struct Names {
  std::string plural, singular, kind, list_kind;
  std::vector<std::string> short_names, categories;

  // nullptr reads as no names at all.
  static Names From(const boost::json::object* names);
  // kube's JSON: plural and kind always (perhaps ""), the others when set.
  boost::json::object ToJson() const;
  bool operator==(const Names&) const = default;
};

// What the definitions of one group have accepted (this definition's own
// names included, as kube counts them): plurals, singulars and short names
// share one space, kinds and list kinds another.
class GroupNames {
 public:
  void Add(const Names& accepted);
  bool HasResource(std::string_view name) const { return resources_.count(std::string(name)) > 0; }
  bool HasKind(std::string_view name) const { return kinds_.count(std::string(name)) > 0; }

 private:
  std::set<std::string> resources_, kinds_;
};

// kube's naming decision for one definition.
struct NamingDecision {
  Names accepted;
  api::Condition names_accepted;
  // Established as the naming controller leaves it: the previous condition
  // when it was True; False "NotAccepted" while names are refused, False
  // "Installing" once they are accepted (Establish then makes it True).
  api::Condition established;
};
NamingDecision DecideNames(const Names& requested, const Names& accepted,
                           const boost::json::object* status, const GroupNames& taken);

// The naming controller's pass over `status` (the definition's, changed in
// place; acceptedNames and the NamesAccepted and Established conditions).
// Nothing changes when spec.names equal the accepted names (kube skips such
// a definition). Returns true when the accepted names or NamesAccepted
// changed: kube then reconsiders the group's other definitions.
bool ApplyNames(boost::json::object& status, const boost::json::object* spec_names,
                const GroupNames& taken, std::string_view now);
// The establishing controller's pass: Established True "InitialNamesAccepted"
// when NamesAccepted is True and Established is not. Returns true on a change.
bool Establish(boost::json::object& status, std::string_view now);

// kube's handler serves a definition whose names are accepted, or that was
// established before (a later change of names that conflicts keeps it).
bool Servable(const boost::json::object* status);

// The condition of `type` has status True in `status`.
bool ConditionTrue(const boost::json::object* status, std::string_view type);

// Several errors in one message as kube's aggregate error prints them: one
// alone as it is, more as "[a, b]" (each distinct message once).
std::string AggregateMessage(const std::vector<std::string>& messages);

inline constexpr std::string_view kApiApprovedAnnotation = "api-approved.kubernetes.io";
// Groups kube keeps for the community: k8s.io, kubernetes.io and their subdomains.
bool IsProtectedCommunityGroup(std::string_view group);
// kube's validateAPIApproval: a definition in a protected group carries
// api-approved.kubernetes.io, a URL or a reason starting "unapproved";
// an update that keeps the approval's state is never refused for it.
void ValidateApiApproval(const api::Object& crd, const api::Object* old, api::FieldErrors& errors);

}  // namespace berth::apiserver::crd
