#pragma once
// Admission as kube-apiserver runs it: a named, ordered chain of plugins that
// every write passes. Mutating plugins (Admit) run before the kind's own
// preparation and validation, validating plugins (Validate) after it, just
// before the store write. The plugins have kube's names and kube's defaults
// (--enable-admission-plugins / --disable-admission-plugins choose them);
// each says which kinds it is about, so a write meets only those that care.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/status.h"

namespace berth::store {
class Store;
}

namespace berth::apiserver {

struct AdmissionOptions {
  // DefaultTolerationSeconds: the tolerationSeconds of the not-ready and
  // unreachable tolerations added to every pod.
  int64_t default_not_ready_toleration_seconds = 300;
  int64_t default_unreachable_toleration_seconds = 300;
  // kube-apiserver's --enable-admission-plugins / --disable-admission-plugins:
  // plugins turned on besides the defaults, and defaults turned off (as
  // scheduler_perf runs kube-apiserver without Priority).
  std::vector<std::string> enable;
  std::vector<std::string> disable;
};

struct Request;

enum class AdmissionOperation { kCreate, kUpdate, kDelete };
// kube's name of the operation: "CREATE", "UPDATE", "DELETE".
std::string_view OperationName(AdmissionOperation op);

// What admission did besides changing the object, for the write to act on.
struct AdmissionEffects {
  // A webhook's patch changed the object: the kind's defaults apply again
  // (kube decodes a mutated object, defaulting it).
  bool patched = false;
  // For the client's Warning headers (webhooks' response.warnings).
  std::vector<std::string> warnings;
};

// What a plugin sees of a write.
struct AdmissionAttributes {
  AdmissionOperation operation;
  const api::KindInfo& kind;
  std::string_view subresource;  // "" for the object itself
  std::string_view ns;
  std::string_view name;  // may be empty on create (generateName)
  // Create, update: the object to be written.
  const boost::json::object* object = nullptr;
  // Update, delete: the stored object.
  const boost::json::object* old = nullptr;
  bool dry_run = false;
  // The request (its user and groups); nullptr for the server's own writes.
  const Request* request = nullptr;
  // Where plugins report what they did; may be nullptr.
  AdmissionEffects* effects = nullptr;
};

class AdmissionPlugin {
 public:
  virtual ~AdmissionPlugin() = default;
  virtual std::string_view Name() const = 0;
  // The kinds the plugin is about; empty: every kind (built-in and custom).
  virtual std::vector<api::Kind> Kinds() const { return {}; }
  // Mutating phase: `object` is a.object, to change (nullptr on delete). An
  // error refuses the write (kube: Forbidden, mostly).
  virtual Status Admit(const AdmissionAttributes&, boost::json::object* /*object*/) { return Status::Ok(); }
  // Validating phase: after the kind's validation, before the write.
  virtual Status Validate(const AdmissionAttributes&) { return Status::Ok(); }
  // Whether admitting a write may now wait on something outside the server
  // (a webhook call), so that the write must not run on an io thread.
  virtual bool MayCallOut() { return false; }
};

// kube-apiserver 1.32's admission plugins in their fixed order (the chain
// runs in it) and its default set. Which of them berth has is the registry's
// to say (plugins.h: InTreeAdmissionPlugins).
struct KubeAdmissionPlugin {
  std::string_view name;
  bool on_by_default;  // kube's default set
};
const std::vector<KubeAdmissionPlugin>& KubeAdmissionOrder();

// The --enable-admission-plugins help: kube's syntax and the plugins berth has.
std::string AdmissionPluginsHelp();

// BadRequest naming the flag when `options` name an unknown plugin, one berth
// does not have, or one both enabled and disabled.
Status CheckAdmissionOptions(const AdmissionOptions& options);

class AdmissionChain {
 public:
  // The plugins `options` turn on, in kube's order, built from the
  // registry. Error: an unknown name, or a plugin berth does not have.
  static Result<std::unique_ptr<AdmissionChain>> Make(const AdmissionOptions& options, store::Store& store);

  // Runs Admit of every plugin about `a.kind`, in order, on `object`
  // (a.object's mutable self; nullptr on delete); the first error wins.
  Status Admit(const AdmissionAttributes& a, boost::json::object* object) const;
  // Runs Validate of every plugin about `a.kind`, in order.
  Status Validate(const AdmissionAttributes& a) const;
  // The names of the plugins on, in order.
  std::vector<std::string> Enabled() const;
  // Whether any plugin may now call out of the server (AdmissionPlugin::MayCallOut).
  bool MayCallOut() const;

 private:
  std::vector<std::unique_ptr<AdmissionPlugin>> plugins_;
  // Per built-in kind: the plugins about it, in order. Custom kinds: every_kind_.
  std::vector<std::vector<AdmissionPlugin*>> by_kind_;
  std::vector<AdmissionPlugin*> every_kind_;
};

// Moves the warnings admission gathered to the request's Warning headers.
void TakeWarnings(AdmissionEffects& effects, Request& request);

// "pods \"x\" is forbidden: <why>", kube's admission refusal.
Status AdmissionForbidden(const AdmissionAttributes& a, std::string_view why);

}  // namespace berth::apiserver
