#pragma once
// metadata.ownerReferences as controllers write and read them: the one
// reference with controller=true names the object's controller, and the
// garbage collector deletes dependents whose owners are gone.

#include <boost/json/object.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "api/selector.h"
#include "api/status.h"
#include "client/rest_client.h"
#include "client/shared_informer.h"

namespace berth::controllers {

// An ownerReference naming `owner` as the controller (controller and
// blockOwnerDeletion true).
boost::json::object ControllerRef(const api::Object& owner);
// The uid of `o`'s controller ownerReference when it is of `kind`; "" when
// `o` has no controller or another kind controls it.
std::string_view ControllerUid(const api::Object& o, std::string_view kind);
// Whether any ownerReference of `o` has controller=true.
bool HasControllerRef(const api::Object& o);

// The key ("ns/name") of `dependent`'s controller when it is of `kind` and
// `owners` still holds it — the same uid, not a namesake created since; ""
// otherwise.
std::string LiveControllerKey(const api::Object& dependent, std::string_view kind,
                              client::SharedInformer& owners);
// The key `dependent`'s controller of `kind` had, whether or not it still
// exists (a deleted dependent's owner may be gone too); "" when none.
std::string ControllerKeyByName(const api::Object& dependent, std::string_view kind);
// The keys of the owners in `dependent`'s namespace whose selector
// (OwnerSelector) matches its labels: those that may adopt it.
std::vector<std::string> SelectingOwners(const api::Object& dependent, client::SharedInformer& owners);

// The owner's spec.selector; Nothing() when absent, empty or malformed
// (validation rejects all three), so such an owner claims nothing. A
// ReplicationController's is a plain label map, absent or empty meaning its
// template's labels (as kube defaults it).
api::LabelSelector OwnerSelector(const api::Object& owner);

// kube's ControllerRefManager claim, over the objects `informer` caches:
// the objects of the owner's namespace the owner controls that `selector`
// (and `member`, when given) still selects. Orphans it selects (and
// `adoptable` allows, when given: a ReplicaSet adopts only active pods) are
// adopted, and objects it controls but no longer selects are released (its
// reference removed) — neither while the owner is being deleted. A
// `finalizer`, when given, comes with the adoption and goes with the
// release, in the same write (a Job's tracking finalizer). Both writes are
// guarded by the object's resourceVersion, and an object gone meanwhile is
// skipped. Every controller that adopts claims through this.
Result<std::vector<api::ObjectPtr>> ClaimDependents(
    client::RestClient& client, client::SharedInformer& informer, const api::Object& owner,
    const api::LabelSelector& selector,
    const std::function<bool(const api::Object&)>& member = nullptr,
    const std::function<bool(const api::Object&)>& adoptable = nullptr,
    std::string_view finalizer = {});

}  // namespace berth::controllers
