#include "controllers/deployment/deployment_controller.h"

#include <algorithm>
#include <cmath>

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/selector.h"
#include "api/time/rfc3339.h"
#include "controllers/deployment/deployment_progress.h"
#include "controllers/deployment/deployment_sync.h"
#include "controllers/for_update.h"
#include "controllers/owner_references.h"

namespace berth::controllers {

namespace json = boost::json;

using deployment::IsRecreate;
using deployment::kDesiredReplicas;
using deployment::kKind;
using deployment::kMaxReplicas;
using deployment::SpecReplicas;
using deployment::StatusInt;

namespace {

constexpr std::string_view kHashLabel = "pod-template-hash";
constexpr std::string_view kRevision = "deployment.kubernetes.io/revision";
constexpr std::string_view kRevisionHistory = "deployment.kubernetes.io/revision-history";

int64_t RevisionOf(const api::Object& o) {
  return deployment::IntAnnotation(o, kRevision).value_or(0);
}

// kube's DeploymentComplete, over the status the sync started from: every
// replica updated and available, and the current spec observed.
bool DeploymentComplete(const api::Object& d) {
  const int64_t replicas = SpecReplicas(d);
  return StatusInt(d, "updatedReplicas") == replicas && StatusInt(d, "replicas") == replicas &&
         StatusInt(d, "availableReplicas") == replicas &&
         StatusInt(d, "observedGeneration") >= api::Generation(d);
}

const json::object* TemplateOf(const api::Object& o) {
  const auto* spec = api::Spec(o);
  return spec ? api::ObjectAt(*spec, "template") : nullptr;
}

// null members are absent members, as when Go decodes JSON into a struct
// (kubectl sends "creationTimestamp": null in templates it re-encodes).
void StripNulls(json::value& v) {
  if (v.is_object()) {
    auto& o = v.get_object();
    for (auto it = o.begin(); it != o.end();) {
      if (it->value().is_null()) {
        it = o.erase(it);
      } else {
        StripNulls(it->value());
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (auto& e : v.get_array()) StripNulls(e);
  }
}

// The template without the pod-template-hash label (kube's EqualIgnoreHash).
json::value TemplateIgnoringHash(const json::object* tmpl) {
  json::value copy = tmpl ? json::value(*tmpl) : json::value(json::object());
  StripNulls(copy);
  if (auto* meta = copy.get_object().if_contains("metadata"); meta && meta->is_object()) {
    if (auto* labels = meta->get_object().if_contains("labels"); labels && labels->is_object()) {
      labels->get_object().erase(kHashLabel);
    }
  }
  return copy;
}

void CanonicalJson(const json::value& v, std::string& out) {
  switch (v.kind()) {
    case json::kind::object: {
      std::vector<std::pair<std::string_view, const json::value*>> members;
      for (const auto& [k, val] : v.get_object()) members.emplace_back(k, &val);
      std::sort(members.begin(), members.end());
      out += '{';
      for (size_t i = 0; i < members.size(); ++i) {
        if (i) out += ',';
        out += json::serialize(json::string(members[i].first));
        out += ':';
        CanonicalJson(*members[i].second, out);
      }
      out += '}';
      break;
    }
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out += ',';
        first = false;
        CanonicalJson(e, out);
      }
      out += ']';
      break;
    }
    default:
      out += json::serialize(v);
  }
}

std::string_view Condition(const api::Object& o, std::string_view type, std::string_view field) {
  const auto* c = api::FindCondition(api::StatusOf(o), type);
  return c ? api::StringAt(*c, field) : std::string_view();
}

}  // namespace

DeploymentController::DeploymentController(const ControllerContext& context, int workers)
    : Controller("deployment", context, workers),
      deployments_(context.informers.For(api::Kind::kDeployment)),
      replicasets_(context.informers.For(api::Kind::kReplicaSet)),
      pods_(context.informers.For(api::Kind::kPod)),
      events_(context.events, {"deployment-controller", ""}) {
  auto enqueue = [this](const api::ObjectPtr& d) { Enqueue(client::ObjectKey(*d)); };
  deployments_.AddHandlers({enqueue, enqueue, enqueue});
  // A ReplicaSet's change wakes its Deployment; an orphan's wakes those
  // selecting it, which may adopt it.
  auto changed = [this](const api::ObjectPtr& rs) {
    if (std::string owner = ControllerKeyByName(*rs, kKind); !owner.empty()) {
      Enqueue(owner);
    } else if (!HasControllerRef(*rs) && !api::BeingDeleted(*rs)) {
      for (const auto& key : SelectingOwners(*rs, deployments_)) Enqueue(key);
    }
  };
  auto deleted = [this](const api::ObjectPtr& rs) {
    if (std::string owner = ControllerKeyByName(*rs, kKind); !owner.empty()) Enqueue(owner);
  };
  replicasets_.AddHandlers({changed, changed, deleted});
  // Recreate waits for old pods to be gone: their deletion wakes the Deployment.
  pods_.AddHandlers({nullptr, nullptr, [this](const api::ObjectPtr& pod) {
                       std::string_view rs_uid = ControllerUid(*pod, "ReplicaSet");
                       if (rs_uid.empty()) return;
                       for (const auto& rs : replicasets_.ByIndex(client::kNamespaceIndex, pod->namespace_name())) {
                         if (rs->uid() != rs_uid) continue;
                         for (const auto& d : deployments_.ByIndex(client::kNamespaceIndex, rs->namespace_name())) {
                           if (ControllerUid(*rs, kKind) == d->uid()) Enqueue(client::ObjectKey(*d));
                         }
                       }
                     }});
}

std::string DeploymentController::PodTemplateHash(const json::object& pod_template, int64_t collision_count) {
  std::string text;
  CanonicalJson(pod_template, text);
  if (collision_count > 0) text += std::to_string(collision_count);
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  // kube's rand.SafeEncodeString over the decimal digits: no vowels, no
  // look-alikes, so the hash never spells words.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (char c : std::to_string(h)) out += kAlphabet[static_cast<unsigned char>(c) % kAlphabet.size()];
  return out;
}

Result<int64_t> DeploymentController::ResolveIntOrPercent(const json::value* value, int64_t total, bool round_up,
                                                          int64_t fallback_percent) {
  if (!value || value->is_null()) {
    double v = static_cast<double>(fallback_percent) * static_cast<double>(total) / 100.0;
    return static_cast<int64_t>(round_up ? std::ceil(v) : std::floor(v));
  }
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return static_cast<int64_t>(value->get_uint64());
  if (value->is_string()) {
    std::string_view s = value->get_string();
    if (!s.empty() && s.back() == '%') {
      int64_t percent = 0;
      for (char c : s.substr(0, s.size() - 1)) {
        if (c < '0' || c > '9') return Status::Invalid("invalid value for IntOrString: " + std::string(s));
        percent = percent * 10 + (c - '0');
      }
      double v = static_cast<double>(percent) * static_cast<double>(total) / 100.0;
      return static_cast<int64_t>(round_up ? std::ceil(v) : std::floor(v));
    }
  }
  return Status::Invalid("invalid value for IntOrString: " + json::serialize(*value));
}

Status DeploymentController::Reconcile(const std::string& key) {
  api::ObjectPtr d = deployments_.Get(key);
  if (!d) return Status::Ok();
  State s;
  s.d = d;
  s.key = key;
  s.replicas = SpecReplicas(*d);
  if (Status claimed = ClaimReplicaSets(s); !claimed.ok()) return claimed;
  if (Status limits = ResolveRollingLimits(s); !limits.ok()) return limits;
  if (api::BeingDeleted(*d)) return SyncStatus(s);
  if (api::BoolAt(api::Spec(*d), "paused") || IsScalingEvent(s)) return SyncScale(s);
  if (IsRecreate(*d)) return RolloutRecreate(s);
  return Rollout(s);
}

Status DeploymentController::ClaimReplicaSets(State& s) {
  auto claimed = ClaimDependents(client_, replicasets_, *s.d, OwnerSelector(*s.d));
  if (!claimed.ok()) return claimed.status();
  s.owned = std::move(claimed).value();
  std::sort(s.owned.begin(), s.owned.end(), [](const api::ObjectPtr& a, const api::ObjectPtr& b) {
    return deployment::CreatedBefore(*a, *b);
  });
  // The new ReplicaSet: the oldest whose template equals the Deployment's.
  const json::value want = TemplateIgnoringHash(TemplateOf(*s.d));
  for (const auto& rs : s.owned) {
    if (!s.new_rs && TemplateIgnoringHash(TemplateOf(*rs)) == want) {
      s.new_rs = rs;
    } else {
      s.old.push_back(rs);
    }
  }
  return Status::Ok();
}

// kube's MaxSurge and MaxUnavailable: both 0 for Recreate; for RollingUpdate
// resolved against replicas (surge rounds up, unavailable down), both 0
// meaning maxUnavailable 1, and maxUnavailable at most replicas.
Status DeploymentController::ResolveRollingLimits(State& s) {
  if (IsRecreate(*s.d)) return Status::Ok();
  const json::object* ru =
      api::ObjectAt(api::ObjectAt(api::Spec(*s.d), "strategy"), "rollingUpdate");
  auto surge = ResolveIntOrPercent(ru ? ru->if_contains("maxSurge") : nullptr, s.replicas, true, 25);
  auto unavailable = ResolveIntOrPercent(ru ? ru->if_contains("maxUnavailable") : nullptr, s.replicas, false, 25);
  if (!surge.ok()) return surge.status();
  if (!unavailable.ok()) return unavailable.status();
  s.max_surge = surge.value();
  s.max_unavailable = unavailable.value();
  if (s.max_surge == 0 && s.max_unavailable == 0) s.max_unavailable = 1;
  if (s.max_unavailable > s.replicas) s.max_unavailable = s.replicas;
  return Status::Ok();
}

Result<api::ObjectPtr> DeploymentController::EnsureNewReplicaSet(State& s, bool create) {
  int64_t max_old_revision = 0;
  for (const auto& rs : s.old) max_old_revision = std::max(max_old_revision, RevisionOf(*rs));
  int64_t new_revision = max_old_revision + 1;
  const api::Object& d = *s.d;
  std::string revision = std::to_string(new_revision);

  if (s.new_rs) {
    // kube's getNewReplicaSet: its revision brought up to date (a reused old
    // ReplicaSet, a rollback, gets the new one and keeps the old in its
    // revision history) and its minReadySeconds the Deployment's. Its
    // replica annotations change only when it is scaled: until then they
    // tell a scaling event from a rollout.
    const api::Object& rs = *s.new_rs;
    int64_t current = RevisionOf(rs);
    const int64_t min_ready = api::IntAt(api::Spec(d), "minReadySeconds");
    if (current >= new_revision && api::IntAt(api::Spec(rs), "minReadySeconds") == min_ready) {
      return s.new_rs;
    }
    json::object next = ForUpdate(rs);
    api::MutableObject(next, "spec")["minReadySeconds"] = min_ready;
    json::object& annotations = api::MutableObject(api::MutableObject(next, "metadata"), "annotations");
    if (current < new_revision) {
      if (current > 0) {
        std::string history(api::Annotation(rs, kRevisionHistory));
        annotations[kRevisionHistory] = history.empty() ? std::to_string(current) : history + "," + std::to_string(current);
      }
      annotations[kRevision] = revision;
    }
    auto written = client_.Update(api::Kind::kReplicaSet, next);
    if (!written.ok()) return written.status();
    s.new_rs = written.value();
    return s.new_rs;
  }
  if (!create) return api::ObjectPtr();

  // A new ReplicaSet named by the template's hash.
  int64_t collisions = api::IntAt(api::StatusOf(d), "collisionCount");
  const json::object* tmpl = TemplateOf(d);
  json::object pod_template = tmpl ? *tmpl : json::object();
  std::string hash = PodTemplateHash(TemplateIgnoringHash(tmpl).get_object(), collisions);
  json::object& tmeta = api::MutableObject(pod_template, "metadata");
  api::MutableObject(tmeta, "labels")[kHashLabel] = hash;

  const auto* spec = api::Spec(d);
  json::value selector = spec && spec->contains("selector") ? spec->at("selector") : json::value(json::object());
  if (!selector.is_object()) selector = json::object();
  api::MutableObject(selector.get_object(), "matchLabels")[kHashLabel] = hash;

  json::object annotations;
  if (const auto* meta = api::Metadata(d); meta && api::ObjectAt(*meta, "annotations")) {
    for (const auto& [k, v] : *api::ObjectAt(*meta, "annotations")) {
      if (k == kRevision || k == kRevisionHistory || k == kDesiredReplicas || k == kMaxReplicas ||
          k == "kubectl.kubernetes.io/last-applied-configuration") {
        continue;
      }
      annotations[k] = v;
    }
  }
  annotations[kRevision] = revision;
  annotations[kDesiredReplicas] = std::to_string(s.replicas);
  annotations[kMaxReplicas] = std::to_string(s.replicas + s.max_surge);

  // Rolling: start at what maxSurge allows; Recreate: all at once (old ones are gone by now).
  int64_t initial = s.replicas;
  if (s.max_surge > 0 || s.max_unavailable > 0) {
    int64_t current = 0;
    for (const auto& rs : s.old) current += SpecReplicas(*rs);
    initial = std::clamp<int64_t>(s.replicas + s.max_surge - current, 0, s.replicas);
  }
  json::object labels;
  if (const auto* l = api::ObjectAt(tmeta, "labels")) labels = *l;
  json::object rs{{"metadata", json::object{{"name", d.name() + "-" + hash},
                                            {"namespace", d.namespace_name()},
                                            {"labels", labels},
                                            {"annotations", std::move(annotations)},
                                            {"ownerReferences", json::array{ControllerRef(d)}}}},
                  {"spec", json::object{{"replicas", initial},
                                        {"minReadySeconds", api::IntAt(spec, "minReadySeconds")},
                                        {"selector", std::move(selector)},
                                        {"template", std::move(pod_template)}}}};
  auto created = client_.Create(api::Kind::kReplicaSet, d.namespace_name(), std::move(rs));
  if (!created.ok()) {
    if (created.status().code() == StatusCode::kAlreadyExists) {
      // Not in the cache yet (most often: created by this controller a
      // moment ago, and the informer is behind): try again once it is —
      // counting a collision here would make a second ReplicaSet for the
      // same template.
      auto existing = replicasets_.Get(client::ObjectKey(d.namespace_name(), d.name() + "-" + hash));
      if (!existing) return created.status();
      // A namesake that is not this Deployment's, or has another template:
      // count the collision so the next hash differs (kube's collisionCount).
      if (ControllerUid(*existing, kKind) != d.uid() ||
          TemplateIgnoringHash(TemplateOf(*existing)) != TemplateIgnoringHash(TemplateOf(d))) {
        json::object next = ForUpdate(d);
        api::MutableObject(next, "status")["collisionCount"] = collisions + 1;
        auto written = client_.UpdateStatus(api::Kind::kDeployment, next);
        if (!written.ok()) return written.status();
      }
    }
    return created.status();
  }
  s.new_rs = created.value();
  if (initial > 0) {
    events_.Event(*s.d, "Normal", "ScalingReplicaSet",
                  "Scaled up replica set " + s.new_rs->name() + " to " + std::to_string(initial));
  }
  s.progressed = true;
  s.progress_reason = "NewReplicaSetCreated";
  s.progress_message = "Created new replica set \"" + s.new_rs->name() + "\"";
  return s.new_rs;
}

Status DeploymentController::ScaleReplicaSet(State& s, api::ObjectPtr& rs, int64_t replicas) {
  std::string desired = std::to_string(s.replicas);
  std::string max = std::to_string(s.replicas + s.max_surge);
  if (SpecReplicas(*rs) == replicas && api::Annotation(*rs, kDesiredReplicas) == desired &&
      api::Annotation(*rs, kMaxReplicas) == max) {
    return Status::Ok();
  }
  const int64_t before = SpecReplicas(*rs);
  bool scaling = before != replicas;
  json::object next = ForUpdate(*rs);
  api::MutableObject(next, "spec")["replicas"] = replicas;
  json::object& annotations = api::MutableObject(api::MutableObject(next, "metadata"), "annotations");
  annotations[kDesiredReplicas] = desired;
  annotations[kMaxReplicas] = max;
  auto written = client_.Update(api::Kind::kReplicaSet, next);
  if (!written.ok()) return written.status();
  rs = written.value();
  if (scaling) {
    events_.Event(*s.d, "Normal", "ScalingReplicaSet",
                  std::string("Scaled ") + (replicas > before ? "up" : "down") + " replica set " +
                      rs->name() + " to " + std::to_string(replicas) + " from " +
                      std::to_string(before));
    s.progressed = true;
  }
  return Status::Ok();
}

Status DeploymentController::Rollout(State& s) {
  auto created = EnsureNewReplicaSet(s, true);
  if (!created.ok()) return created.status();
  api::ObjectPtr& new_rs = s.new_rs;

  // Scale the new ReplicaSet up (within maxSurge) or down to replicas.
  int64_t new_replicas = SpecReplicas(*new_rs);
  if (new_replicas > s.replicas) {
    if (Status st = ScaleReplicaSet(s, new_rs, s.replicas); !st.ok()) return st;
    return SyncStatus(s);
  }
  if (new_replicas < s.replicas) {
    int64_t total = new_replicas;
    for (const auto& rs : s.old) total += SpecReplicas(*rs);
    int64_t max_total = s.replicas + s.max_surge;
    if (total < max_total) {
      int64_t up = std::min(max_total - total, s.replicas - new_replicas);
      if (Status st = ScaleReplicaSet(s, new_rs, new_replicas + up); !st.ok()) return st;
      return SyncStatus(s);
    }
  }

  // Scale old ReplicaSets down while availability allows.
  int64_t old_pods = 0, all_pods = SpecReplicas(*new_rs);
  for (const auto& rs : s.old) old_pods += SpecReplicas(*rs);
  all_pods += old_pods;
  if (old_pods > 0) {
    int64_t min_available = s.replicas - s.max_unavailable;
    int64_t new_unavailable = SpecReplicas(*new_rs) - StatusInt(*new_rs, "availableReplicas");
    int64_t max_scale_down = all_pods - min_available - new_unavailable;
    bool scaled = false;
    if (max_scale_down > 0) {
      // First the old pods that are not available anyway.
      int64_t cleaned = 0;
      for (auto& rs : s.old) {
        if (cleaned >= max_scale_down) break;
        int64_t unhealthy = SpecReplicas(*rs) - StatusInt(*rs, "availableReplicas");
        if (SpecReplicas(*rs) == 0 || unhealthy <= 0) continue;
        int64_t down = std::min(unhealthy, max_scale_down - cleaned);
        if (Status st = ScaleReplicaSet(s, rs, SpecReplicas(*rs) - down); !st.ok()) return st;
        cleaned += down;
        scaled = true;
      }
      // Then available ones, keeping minAvailable.
      int64_t available = StatusInt(*new_rs, "availableReplicas");
      for (const auto& rs : s.old) available += std::min(StatusInt(*rs, "availableReplicas"), SpecReplicas(*rs));
      int64_t budget = std::min(available - min_available, max_scale_down - cleaned);
      for (auto& rs : s.old) {
        if (budget <= 0) break;
        int64_t down = std::min(SpecReplicas(*rs), budget);
        if (down <= 0) continue;
        if (Status st = ScaleReplicaSet(s, rs, SpecReplicas(*rs) - down); !st.ok()) return st;
        budget -= down;
        scaled = true;
      }
    }
    if (scaled) return SyncStatus(s);
  }
  if (DeploymentComplete(*s.d)) {
    if (Status st = Cleanup(s); !st.ok()) return st;
  }
  return SyncStatus(s);
}

Status DeploymentController::RolloutRecreate(State& s) {
  s.max_surge = 0;
  s.max_unavailable = 0;
  auto found = EnsureNewReplicaSet(s, false);
  if (!found.ok()) return found.status();
  bool scaled = false;
  for (auto& rs : s.old) {
    if (SpecReplicas(*rs) == 0) continue;
    if (Status st = ScaleReplicaSet(s, rs, 0); !st.ok()) return st;
    scaled = true;
  }
  if (scaled) return SyncStatus(s);
  // Wait until no pod of an old ReplicaSet is left running (kube's oldPodsRunning).
  for (const auto& rs : s.old) {
    if (StatusInt(*rs, "replicas") > 0) return SyncStatus(s);
    for (const auto& pod : pods_.ByIndex(client::kOwnerUidIndex, rs->uid())) {
      std::string_view phase = api::StringAt(api::StatusOf(*pod), "phase");
      if (phase != "Succeeded" && phase != "Failed") return SyncStatus(s);
    }
  }
  if (!s.new_rs) {
    auto created = EnsureNewReplicaSet(s, true);
    if (!created.ok()) return created.status();
  }
  if (Status st = ScaleReplicaSet(s, s.new_rs, s.replicas); !st.ok()) return st;
  if (DeploymentComplete(*s.d)) {
    if (Status st = Cleanup(s); !st.ok()) return st;
  }
  return SyncStatus(s);
}

// kube's cleanupDeployment: the old ReplicaSets beyond revisionHistoryLimit,
// lowest revisions first, are deleted — those of them that are idle (no
// replicas wanted or left, their spec observed).
Status DeploymentController::Cleanup(State& s) {
  const int64_t limit = api::IntAt(api::Spec(*s.d), "revisionHistoryLimit", 10);
  std::vector<api::ObjectPtr> alive;
  for (const auto& rs : s.old) {
    if (!api::BeingDeleted(*rs)) alive.push_back(rs);
  }
  const int64_t diff = static_cast<int64_t>(alive.size()) - limit;
  if (diff <= 0) return Status::Ok();
  // s.old is oldest first: of equal revisions the older goes first.
  std::stable_sort(alive.begin(), alive.end(), [](const api::ObjectPtr& a, const api::ObjectPtr& b) {
    return RevisionOf(*a) < RevisionOf(*b);
  });
  for (int64_t i = 0; i < diff; ++i) {
    const api::Object& rs = *alive[static_cast<size_t>(i)];
    if (StatusInt(rs, "replicas") != 0 || SpecReplicas(rs) != 0 ||
        api::Generation(rs) > StatusInt(rs, "observedGeneration")) {
      continue;
    }
    Status st = client_.Delete(api::Kind::kReplicaSet, rs.namespace_name(), rs.name(),
                               {.uid_precondition = rs.uid()});
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
  }
  return Status::Ok();
}

Status DeploymentController::SyncStatus(State& s) {
  const api::Object& d = *s.d;
  int64_t replicas = 0, updated = 0, ready = 0, available = 0, wanted = 0;
  for (const auto& rs : s.owned) {
    replicas += StatusInt(*rs, "replicas");
    ready += StatusInt(*rs, "readyReplicas");
    available += StatusInt(*rs, "availableReplicas");
  }
  // What the ReplicaSets are asked for now, this sync's scaling included.
  for (const auto& rs : s.old) wanted += SpecReplicas(*rs);
  if (s.new_rs) wanted += SpecReplicas(*s.new_rs);
  if (s.new_rs) updated = StatusInt(*s.new_rs, "replicas");
  int64_t generation = api::Generation(d);
  const auto wall = clock_.WallNow();
  std::string now = api::FormatRfc3339(wall);

  json::object next = ForUpdate(d);
  // The Deployment carries its newest revision. (Before `st` is taken: adding
  // to `next` may move its members.)
  json::object& meta = api::MutableObject(next, "metadata");
  bool annotate = false;
  if (s.new_rs && api::Annotation(*s.new_rs, kRevision) != api::Annotation(d, kRevision)) {
    api::MutableObject(meta, "annotations")[kRevision] = std::string(api::Annotation(*s.new_rs, kRevision));
    annotate = true;
  }
  json::object& st = api::MutableObject(next, "status");
  st["observedGeneration"] = generation;
  st["replicas"] = replicas;
  st["updatedReplicas"] = updated;
  st["readyReplicas"] = ready;
  st["availableReplicas"] = available;
  // kube's calculateStatus: what the ReplicaSets want less what is available.
  st["unavailableReplicas"] = std::max<int64_t>(0, wanted - available);
  for (const char* field : {"replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"}) {
    if (api::IntAt(&st, field) == 0) st.erase(field);
  }

  int64_t max_unavailable = s.max_unavailable;
  bool min_available = available >= s.replicas - max_unavailable;
  api::SetCondition(st,
                    {"Available", min_available ? "True" : "False",
                     min_available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                     min_available ? "Deployment has minimum availability."
                                   : "Deployment does not have minimum availability."},
                    now);
  // kube's conditions carry lastUpdateTime too.
  auto touch = [&](std::string_view type) {
    for (auto& c : api::MutableArray(st, "conditions")) {
      if (c.is_object() && api::StringAt(c.get_object(), "type") == type) c.get_object()["lastUpdateTime"] = now;
    }
  };
  // The Progressing condition and when to look at the deadline again.
  const auto* status_before = api::StatusOf(d);
  ProgressInput progress;
  progress.deployment = d.name();
  progress.new_replica_set = s.new_rs ? s.new_rs->name() : "";
  progress.created_new_replica_set = s.progress_reason == "NewReplicaSetCreated";
  progress.paused = api::BoolAt(api::Spec(d), "paused");
  progress.spec_replicas = s.replicas;
  progress.deadline_seconds = ProgressDeadline(api::Spec(d));
  progress.before = {api::IntAt(status_before, "replicas"), api::IntAt(status_before, "updatedReplicas"),
                     api::IntAt(status_before, "readyReplicas"), api::IntAt(status_before, "availableReplicas")};
  progress.now = {replicas, updated, ready, available};
  if (auto recheck = UpdateProgressing(st, progress, wall)) EnqueueAfter(s.key, *recheck);
  // Keep the Available condition's lastUpdateTime current when it was just written.
  if (Condition(d, "Available", "status") != (min_available ? "True" : "False")) touch("Available");

  if (json::value(st) == (status_before ? json::value(*status_before) : json::value()) && !annotate) {
    return Status::Ok();
  }
  if (annotate) {
    // The annotation lives in metadata: a main-resource update (it keeps status), then status.
    auto written = client_.Update(api::Kind::kDeployment, next);
    if (!written.ok()) return written.status();
    json::object again = ForUpdate(*written.value());
    again["status"] = st;
    auto status_written = client_.UpdateStatus(api::Kind::kDeployment, again);
    return status_written.ok() || status_written.status().code() == StatusCode::kNotFound ? Status::Ok()
                                                                                            : status_written.status();
  }
  auto written = client_.UpdateStatus(api::Kind::kDeployment, next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace berth::controllers
