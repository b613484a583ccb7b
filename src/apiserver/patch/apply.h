#pragma once
// Server-side apply (PATCH with Content-Type application/apply-patch+yaml)
// and the metadata.managedFields bookkeeping every write does, after kube's
// fieldmanager / structured-merge-diff:
//
// - An apply configuration is a partial object. The applier's "Apply" entry
//   becomes exactly the fields it names; fields it applied before and now
//   leaves out are removed from the object unless another manager owns them.
// - Setting a field another manager owns to a different value is a conflict
//   (409, one FieldManagerConflict cause per field) unless forced, which moves
//   the field to the applier.
// - Any other write (create, update, patch) adds the fields it changed to its
//   manager's "Update" entry and takes them from everyone else.
//
// Pure functions over JSON; the caller supplies the time.

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "api/status.h"
#include "apiserver/http.h"
#include "apiserver/patch/field_set.h"
#include "apiserver/registry/registry.h"

namespace berth::apiserver {

// One metadata.managedFields entry.
struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string time;  // RFC 3339
  std::string subresource;
  FieldSet fields;
};

std::vector<ManagedFieldsEntry> ReadManagedFields(const boost::json::object& object);
// Sets metadata.managedFields (removes it when `entries` is empty).
void WriteManagedFields(boost::json::object& object,
                        const std::vector<ManagedFieldsEntry>& entries);

// The ownership rules of a served kind: its status subresource and, for a
// custom resource, its schema's list types. REQUIRES: `strategy` outlives the
// result (ResourceRegistry keeps every strategy it was given).
FieldOwnership OwnershipOf(api::Kind kind, const ResourceStrategy& strategy);

struct ApplyOptions {
  std::string manager;  // the request's fieldManager; required
  bool force = false;   // take conflicting fields instead of failing
  std::string now;      // RFC 3339, recorded as the entry's time
};

// The request body of an apply: YAML or JSON, which must be an object.
Result<boost::json::value> DecodeApplyConfiguration(std::string_view body);

// The object after applying `config` to `live` (nullptr: the object does not
// exist yet and is created from `config`), with its managedFields. A conflict
// is a Conflict status with kube's message and causes. When nothing but the
// entry's time would change, returns `live` itself, so the write is a no-op.
Result<boost::json::value> ServerSideApply(const FieldOwnership& ownership,
                                           const boost::json::object* live,
                                           const boost::json::object& config,
                                           const ApplyOptions& options);

// Records a non-apply write by `manager` that turns `before` (nullptr for a
// create) into `after`: `after` keeps before's managedFields when it carries
// none (kube: a PUT without managedFields keeps them), and the fields that
// changed move to manager's Update entry. A create that carries its own
// managedFields (an apply that creates) keeps them as they are.
void RecordUpdate(const FieldOwnership& ownership, const boost::json::object* before,
                  boost::json::object& after, const std::string& manager, const std::string& now);

// The manager a request writes as: its fieldManager, else kube's default
// (the User-Agent up to its first '/'), else "unknown".
std::string FieldManagerOf(const Request& request);

}  // namespace berth::apiserver
