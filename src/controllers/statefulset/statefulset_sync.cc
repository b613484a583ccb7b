// The StatefulSet controller's step towards the spec (kube's
// updateStatefulSet, processReplica, processCondemned and the rolling
// update), the pods' and claims' writes (kube's StatefulPodControl) and the
// status write.

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <limits>
#include <optional>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "controllers/for_update.h"
#include "controllers/history.h"
#include "controllers/owner_references.h"
#include "controllers/parallel.h"
#include "controllers/statefulset/stateful_pod.h"
#include "controllers/statefulset/statefulset_controller.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

std::string_view Phase(const api::Object& pod) {
  return api::StringAt(api::StatusOf(pod), "phase");
}
bool IsTerminating(const api::Object& pod) { return api::BeingDeleted(pod); }
bool RunningAndReady(const api::ObjectPtr& pod) {
  return pod && Phase(*pod) == "Running" && api::IsPodReady(*pod);
}
bool RunningAndAvailable(const api::ObjectPtr& pod, int64_t min_ready,
                         std::chrono::system_clock::time_point now) {
  return RunningAndReady(pod) && api::IsPodAvailable(*pod, min_ready, now);
}
// kube's isHealthy: running, ready (and available) and not being deleted.
bool Healthy(const api::ObjectPtr& pod, int64_t min_ready,
             std::chrono::system_clock::time_point now) {
  return RunningAndAvailable(pod, min_ready, now) && !IsTerminating(*pod);
}
std::string_view PodRevision(const api::Object& pod) {
  auto hash = pod.labels().Get(kControllerRevisionHashLabel);
  return hash ? *hash : std::string_view();
}
int64_t Ordinal(const api::Object& pod) { return ParseStatefulPodName(pod.name()).ordinal; }

const json::object* UpdateStrategy(const api::Object& set) {
  const json::object* spec = api::Spec(set);
  return spec ? api::ObjectAt(*spec, "updateStrategy") : nullptr;
}
bool IsOnDelete(const api::Object& set) {
  return api::StringAt(UpdateStrategy(set), "type") == "OnDelete";
}
const json::object* RollingUpdateOf(const api::Object& set) {
  const json::object* strategy = UpdateStrategy(set);
  return strategy ? api::ObjectAt(*strategy, "rollingUpdate") : nullptr;
}

// rollingUpdate.maxUnavailable over `replicas` (a percentage rounds down,
// at least 1); 0 when not set (one at a time, kube's default path).
int64_t MaxUnavailable(const api::Object& set, int64_t replicas) {
  const json::object* rolling = RollingUpdateOf(set);
  const json::value* v = rolling ? rolling->if_contains("maxUnavailable") : nullptr;
  if (!v || v->is_null()) return 0;
  int64_t n = 1;
  if (v->is_int64()) {
    n = v->as_int64();
  } else if (v->is_uint64()) {
    n = static_cast<int64_t>(v->as_uint64());
  } else if (v->is_string()) {
    std::string_view text = v->get_string();
    if (text.ends_with('%')) {
      int64_t percent = 0;
      for (char c : text.substr(0, text.size() - 1)) {
        if (c < '0' || c > '9') return 1;
        percent = percent * 10 + (c - '0');
      }
      n = percent * replicas / 100;
    }
  }
  return std::max<int64_t>(n, 1);
}

}  // namespace

// The set's pods as one Update sees them, and what it reads of the spec.
struct StatefulSetController::Members {
  int64_t start = 0;      // the first ordinal
  int64_t min_ready = 0;  // spec.minReadySeconds
  std::chrono::system_clock::time_point now;
  bool monotonic = true;  // podManagementPolicy OrderedReady (not Parallel)
  std::vector<api::ObjectPtr> replicas;   // pods in range by ordinal (nullptr: not created)
  std::vector<api::ObjectPtr> condemned;  // pods out of range, highest ordinal first
  // The unhealthy pod of lowest ordinal (nullptr when it is one not created).
  api::ObjectPtr first_unhealthy;
};

Status StatefulSetController::Update(Sync& s, Counts& counts) {
  const Members m = SortMembers(s, clock_.WallNow(), counts);
  if (api::BeingDeleted(*s.set)) return Status::Ok();  // status only
  if (!m.monotonic) {
    if (std::optional<Status> stop = CreateMissingInParallel(s, m, counts)) return *stop;
  }
  if (std::optional<Status> stop = ProcessReplicas(s, m, counts)) return *stop;
  if (std::optional<Status> stop = DeleteCondemned(s, m, counts)) return *stop;
  if (IsOnDelete(*s.set)) return Status::Ok();  // pods are replaced as users delete them
  return RollingUpdate(s, m, counts);
}

StatefulSetController::Members StatefulSetController::SortMembers(
    const Sync& s, std::chrono::system_clock::time_point now, Counts& counts) const {
  const api::Object& set = *s.set;
  Members m;
  m.start = StartOrdinal(set);
  const int64_t replica_count = std::max<int64_t>(SetReplicas(set), 0);
  m.min_ready = api::IntAt(api::Spec(set), "minReadySeconds");
  m.now = now;
  m.monotonic = api::StringAt(api::Spec(set), "podManagementPolicy") != "Parallel";
  const std::string& current_name = s.current->name();
  const std::string& update_name = s.update->name();

  m.replicas.resize(static_cast<size_t>(replica_count));
  for (const auto& pod : s.pods) {
    ++counts.replicas;
    if (RunningAndReady(pod)) {
      ++counts.ready;
      if (RunningAndAvailable(pod, m.min_ready, now)) ++counts.available;
    }
    if (!IsTerminating(*pod)) {
      counts.current += PodRevision(*pod) == current_name;
      counts.updated += PodRevision(*pod) == update_name;
    }
    int64_t ord = Ordinal(*pod);
    if (ord < 0) continue;  // not a name of this set's: ignored
    if (OrdinalInRange(set, ord)) {
      m.replicas[static_cast<size_t>(ord - m.start)] = pod;
    } else {
      m.condemned.push_back(pod);
    }
  }
  std::sort(m.condemned.begin(), m.condemned.end(),
            [](const auto& a, const auto& b) { return Ordinal(*a) > Ordinal(*b); });
  int64_t first_unhealthy_ordinal = std::numeric_limits<int64_t>::max();
  auto note_unhealthy = [&](const api::ObjectPtr& pod, int64_t ord) {
    if (!Healthy(pod, m.min_ready, now) && ord < first_unhealthy_ordinal) {
      first_unhealthy_ordinal = ord;
      m.first_unhealthy = pod;
    }
  };
  for (int64_t i = 0; i < replica_count; ++i)
    note_unhealthy(m.replicas[static_cast<size_t>(i)], m.start + i);
  for (const auto& pod : m.condemned) note_unhealthy(pod, Ordinal(*pod));
  return m;
}

void StatefulSetController::CountCreated(const Sync& s, int64_t ordinal, Counts& counts) const {
  ++counts.replicas;
  std::string_view revision = PodRevisionFor(s, ordinal);
  counts.current += revision == s.current->name();
  counts.updated += revision == s.update->name();
}

void StatefulSetController::CountDeleted(const Sync& s, const api::Object& pod, Counts& counts) {
  counts.current -= PodRevision(pod) == s.current->name();
  counts.updated -= PodRevision(pod) == s.update->name();
}

// Parallel: every missing pod at once, in slow-start batches.
std::optional<Status> StatefulSetController::CreateMissingInParallel(Sync& s, const Members& m,
                                                                     Counts& counts) {
  std::vector<int64_t> missing;
  for (size_t i = 0; i < m.replicas.size(); ++i) {
    if (!m.replicas[i]) missing.push_back(m.start + static_cast<int64_t>(i));
  }
  int64_t done = 0;
  std::vector<char> created(missing.size(), 0);
  for (int64_t batch = 1; done < static_cast<int64_t>(missing.size()); batch *= 2) {
    int64_t n = std::min<int64_t>(batch, static_cast<int64_t>(missing.size()) - done);
    auto [failed, error] = ParallelFor(n, kCreateParallelism, [&](int64_t i) {
      bool made = false;
      Status st = CreatePod(s, missing[static_cast<size_t>(done + i)], made);
      created[static_cast<size_t>(done + i)] = made;
      return st;
    });
    done += n;
    if (failed > 0) {
      for (size_t i = 0; i < missing.size(); ++i) {
        if (created[i]) CountCreated(s, missing[i], counts);
      }
      return error;
    }
  }
  for (size_t i = 0; i < missing.size(); ++i) {
    if (created[i]) CountCreated(s, missing[i], counts);
  }
  return std::nullopt;
}

// Each replica in ordinal order (kube's processReplica).
std::optional<Status> StatefulSetController::ProcessReplicas(Sync& s, const Members& m,
                                                             Counts& counts) {
  const api::Object& set = *s.set;
  for (size_t i = 0; i < m.replicas.size(); ++i) {
    const int64_t ordinal = m.start + static_cast<int64_t>(i);
    api::ObjectPtr pod = m.replicas[i];
    if (!pod) {
      if (!m.monotonic) continue;  // created above
      bool made = false;
      if (Status st = CreatePod(s, ordinal, made); !st.ok()) return st;
      if (made) CountCreated(s, ordinal, counts);
      return Status::Ok();  // wait for it to be Running and Ready
    }
    std::string_view phase = Phase(*pod);
    if (phase == "Failed" || phase == "Succeeded") {
      if (phase == "Failed") {
        events_.Event(set, "Warning", "RecreatingFailedPod",
                      "StatefulSet " + set.namespace_name() + "/" + set.name() +
                          " is recreating failed Pod " + pod->name());
      } else {
        events_.Event(set, "Normal", "RecreatingTerminatedPod",
                      "StatefulSet " + set.namespace_name() + "/" + set.name() +
                          " is recreating terminated Pod " + pod->name());
      }
      if (!IsTerminating(*pod)) {
        if (Status st = DeletePod(s, pod); !st.ok()) return st;
        CountDeleted(s, *pod, counts);
        --counts.replicas;
      }
      // Created again once the old pod is gone (its deletion wakes the set).
      if (m.monotonic) return Status::Ok();
      continue;
    }
    if (phase == "Pending") {
      bool stale = false;
      if (Status st = CreateClaims(s, ordinal, stale); !st.ok()) return st;
    }
    if (m.monotonic) {
      if (IsTerminating(*pod) || !RunningAndReady(pod)) return Status::Ok();
      if (!RunningAndAvailable(pod, m.min_ready, m.now)) {
        EnqueueAfter(s.key, std::chrono::seconds(m.min_ready));
        return Status::Ok();
      }
    }
    bool claims_match = true;
    if (Status st = FixClaimOwners(s, pod, true, claims_match); !st.ok()) return st;
    if (IdentityMatches(set, *pod) && StorageMatches(set, *pod) && claims_match) continue;
    if (Status st = FixPod(s, pod); !st.ok()) return st;
  }
  return std::nullopt;
}

// Condemned pods: their claims take the owners the policy wants for
// scaled-down pods first, then the pods go, highest ordinal first.
std::optional<Status> StatefulSetController::DeleteCondemned(Sync& s, const Members& m,
                                                             Counts& counts) {
  for (const auto& pod : m.condemned) {
    bool matches = true;
    if (Status st = FixClaimOwners(s, pod, false, matches); !st.ok()) return st;
  }
  for (const auto& pod : m.condemned) {
    if (IsTerminating(*pod)) {
      if (m.monotonic) return Status::Ok();
      continue;
    }
    if (m.monotonic && pod != m.first_unhealthy && !Healthy(pod, m.min_ready, m.now)) {
      if (RunningAndReady(pod)) EnqueueAfter(s.key, std::chrono::seconds(m.min_ready));
      return Status::Ok();
    }
    if (Status st = DeletePod(s, pod); !st.ok()) return st;
    CountDeleted(s, *pod, counts);
    if (m.monotonic) return Status::Ok();
  }
  return std::nullopt;
}

// updateStrategy RollingUpdate: pods at or above the partition not at the
// update revision are deleted, highest ordinal first: up to maxUnavailable
// at once when it is set, else one at a time, waiting for health.
Status StatefulSetController::RollingUpdate(Sync& s, const Members& m, Counts& counts) {
  const api::Object& set = *s.set;
  const int64_t replica_count = static_cast<int64_t>(m.replicas.size());
  const std::string& update_name = s.update->name();
  int64_t update_min = api::IntAt(RollingUpdateOf(set), "partition", 0);
  if (int64_t max_unavailable = MaxUnavailable(set, replica_count); max_unavailable > 0) {
    int64_t unavailable = 0;
    for (const auto& pod : m.replicas) unavailable += !Healthy(pod, m.min_ready, m.now);
    if (unavailable >= max_unavailable) return Status::Ok();
    std::vector<api::ObjectPtr> to_delete;
    for (int64_t target = replica_count - 1; target >= update_min; --target) {
      const auto& pod = m.replicas[static_cast<size_t>(target)];
      if (pod && PodRevision(*pod) != update_name && !IsTerminating(*pod)) to_delete.push_back(pod);
      if (static_cast<int64_t>(to_delete.size()) >= max_unavailable - unavailable) break;
    }
    for (const auto& pod : to_delete) {
      if (Status st = DeletePod(s, pod); !st.ok()) return st;
      --counts.current;
    }
    return Status::Ok();
  }
  for (int64_t target = replica_count - 1; target >= update_min; --target) {
    const auto& pod = m.replicas[static_cast<size_t>(target)];
    if (pod && PodRevision(*pod) != update_name && !IsTerminating(*pod)) {
      Status st = DeletePod(s, pod);
      --counts.current;
      return st;
    }
    if (!Healthy(pod, m.min_ready, m.now)) return Status::Ok();  // wait for it to be updated
  }
  return Status::Ok();
}

std::string_view StatefulSetController::PodRevisionFor(const Sync& s, int64_t ordinal) const {
  // kube's newVersionedStatefulSetPod: below the partition (or, without a
  // rollingUpdate, below the current replicas) the current revision.
  const api::Object& set = *s.set;
  const int64_t start = StartOrdinal(set);
  if (const json::object* rolling = RollingUpdateOf(set)) {
    if (ordinal < start + api::IntAt(rolling, "partition", 0)) return s.current->name();
  } else if (!IsOnDelete(set) &&
             ordinal < start + api::IntAt(api::StatusOf(set), "currentReplicas")) {
    return s.current->name();
  }
  return s.update->name();
}

Status StatefulSetController::CreatePod(Sync& s, int64_t ordinal, bool& created) {
  const api::Object& set = *s.set;
  bool stale = false;
  if (Status st = CreateClaims(s, ordinal, stale); !st.ok() || stale) return st;
  std::string_view revision = PodRevisionFor(s, ordinal);
  const json::object& tmpl = revision == s.current->name() ? s.current_template : s.update_template;
  json::object pod = NewStatefulPod(set, tmpl, ordinal, revision);
  std::string name = StatefulPodName(set.name(), ordinal);
  auto made = client_.Create(api::Kind::kPod, set.namespace_name(), std::move(pod));
  if (made.ok()) {
    created = true;
    events_.Event(set, "Normal", "SuccessfulCreate",
                  "create Pod " + name + " in StatefulSet " + set.name() + " successful");
    return Status::Ok();
  }
  // Made by an earlier sync the cache has not shown yet.
  if (made.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
  events_.Event(set, "Warning", "FailedCreate",
                "create Pod " + name + " in StatefulSet " + set.name() +
                    " failed error: " + made.status().message());
  return made.status();
}

Status StatefulSetController::CreateClaims(Sync& s, int64_t ordinal, bool& stale) {
  const api::Object& set = *s.set;
  const std::string pod_name = StatefulPodName(set.name(), ordinal);
  const ClaimRetention policy = RetentionOf(set);
  for (auto& claim : StatefulClaims(set, ordinal)) {
    std::string name(api::StringAt(api::ObjectAt(claim, "metadata"), "name"));
    if (auto existing = claims_.Get(client::ObjectKey(set.namespace_name(), name))) {
      // kube's PodClaimIsStale: a claim being deleted, or still owned by an
      // earlier pod of this name, must go before the pod is made again.
      const json::array* refs = api::ArrayAt(api::Metadata(*existing), "ownerReferences");
      bool old_pod_owns = refs && std::any_of(refs->begin(), refs->end(), [&](const auto& r) {
                            return r.is_object() &&
                                   api::StringAt(r.get_object(), "kind") == "Pod" &&
                                   api::StringAt(r.get_object(), "name") == pod_name;
                          });
      if (api::BeingDeleted(*existing) || old_pod_owns) stale = true;
      continue;
    }
    // whenDeleted=Delete: the set owns the claim from the start (what the
    // retention pass would otherwise add once the pod exists).
    if (policy.delete_when_deleted) {
      api::MutableObject(claim, "metadata")["ownerReferences"] = json::array{ControllerRef(set)};
    }
    auto made =
        client_.Create(api::Kind::kPersistentVolumeClaim, set.namespace_name(), std::move(claim));
    if (made.ok()) {
      events_.Event(set, "Normal", "SuccessfulCreate",
                    "create Claim " + name + " Pod " + pod_name + " in StatefulSet " + set.name() +
                        " success");
    } else if (made.status().code() != StatusCode::kAlreadyExists) {
      events_.Event(set, "Warning", "FailedCreate",
                    "create Claim " + name + " for Pod " + pod_name + " in StatefulSet " +
                        set.name() + " failed error: " + made.status().message());
      return made.status();
    }
  }
  if (stale) EnqueueAfter(s.key, std::chrono::seconds(1));  // claims are not watched for updates
  return Status::Ok();
}

Status StatefulSetController::DeletePod(Sync& s, const api::ObjectPtr& pod) {
  const api::Object& set = *s.set;
  Status st = client_.Delete(api::Kind::kPod, pod->namespace_name(), pod->name(),
                             {.uid_precondition = pod->uid()});
  if (st.ok()) {
    events_.Event(set, "Normal", "SuccessfulDelete",
                  "delete Pod " + pod->name() + " in StatefulSet " + set.name() + " successful");
    return st;
  }
  if (st.code() == StatusCode::kNotFound) return Status::Ok();
  events_.Event(set, "Warning", "FailedDelete",
                "delete Pod " + pod->name() + " in StatefulSet " + set.name() +
                    " failed error: " + st.message());
  return st;
}

Status StatefulSetController::FixPod(Sync& s, const api::ObjectPtr& pod) {
  const api::Object& set = *s.set;
  bool consistent = true;
  json::object edited = ForUpdate(*pod);
  if (!IdentityMatches(set, *pod)) {
    UpdateIdentity(set, edited);
    consistent = false;
  }
  if (!StorageMatches(set, *pod)) {
    UpdateStorage(set, edited);
    consistent = false;
    bool stale = false;
    if (Status st = CreateClaims(s, Ordinal(*pod), stale); !st.ok()) return st;
  }
  bool matches = true;
  if (Status st = FixClaimOwners(s, pod, false, matches); !st.ok()) return st;
  if (consistent) return Status::Ok();
  auto written = client_.Update(api::Kind::kPod, edited);
  if (written.ok()) {
    events_.Event(set, "Normal", "SuccessfulUpdate",
                  "update Pod " + pod->name() + " in StatefulSet " + set.name() + " successful");
    return Status::Ok();
  }
  if (written.status().code() == StatusCode::kNotFound) return Status::Ok();
  events_.Event(set, "Warning", "FailedUpdate",
                "update Pod " + pod->name() + " in StatefulSet " + set.name() +
                    " failed error: " + written.status().message());
  return written.status();
}

Status StatefulSetController::FixClaimOwners(Sync& s, const api::ObjectPtr& pod, bool only_check,
                                             bool& matches) {
  const api::Object& set = *s.set;
  int64_t ordinal = Ordinal(*pod);
  if (ordinal < 0) return Status::Ok();
  for (const auto& claim : StatefulClaims(set, ordinal)) {
    std::string_view name = api::StringAt(api::ObjectAt(claim, "metadata"), "name");
    auto existing = claims_.Get(client::ObjectKey(set.namespace_name(), name));
    if (!existing || ClaimOwnerUpToDate(*existing, set, *pod)) continue;
    matches = false;
    if (only_check) continue;
    json::object edited = ForUpdate(*existing);
    api::MutableObject(edited, "metadata")["ownerReferences"] =
        ClaimOwnerReferences(*existing, set, *pod);
    auto written = client_.Update(api::Kind::kPersistentVolumeClaim, edited);
    if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
      events_.Event(set, "Warning", "FailedUpdate",
                    "update Claim " + std::string(name) + " for Pod " + pod->name() +
                        " in StatefulSet " + set.name() +
                        " failed error: " + written.status().message());
      return written.status();
    }
  }
  return Status::Ok();
}

Status StatefulSetController::WriteStatus(Sync& s, Counts counts) {
  const api::Object& set = *s.set;
  std::string current_revision = s.current->name();
  // kube's completeRollingUpdate.
  if (!IsOnDelete(set) && counts.updated == counts.replicas && counts.ready == counts.replicas) {
    counts.current = counts.updated;
    current_revision = s.update->name();
  }
  const int64_t generation = api::Generation(set);
  const std::pair<const char*, int64_t> ints[] = {
      {"observedGeneration", generation},    {"replicas", counts.replicas},
      {"readyReplicas", counts.ready},       {"currentReplicas", counts.current},
      {"updatedReplicas", counts.updated},   {"availableReplicas", counts.available},
      {"collisionCount", s.collision_count},
  };
  const std::pair<const char*, std::string> strings[] = {{"currentRevision", current_revision},
                                                         {"updateRevision", s.update->name()}};
  const auto* status = api::StatusOf(set);
  bool same = status && status->contains("collisionCount");
  for (const auto& [field, value] : ints) same = same && api::IntAt(status, field) == value;
  for (const auto& [field, value] : strings) same = same && api::StringAt(status, field) == value;
  int64_t min_ready = api::IntAt(api::Spec(set), "minReadySeconds");
  if (min_ready > 0 && counts.available != counts.ready)
    EnqueueAfter(s.key, std::chrono::seconds(min_ready));
  if (same) return Status::Ok();

  auto write = [&](const api::Object& onto) {
    json::object next = ForUpdate(onto);
    json::object& st = api::MutableObject(next, "status");
    for (const auto& [field, value] : ints) st[field] = value;
    for (const auto& [field, value] : strings) st[field] = value;
    // kube omits these when zero (omitempty).
    for (const char* field :
         {"observedGeneration", "readyReplicas", "currentReplicas", "updatedReplicas"}) {
      if (api::IntAt(&st, field) == 0) st.erase(field);
    }
    return client_.UpdateStatus(api::Kind::kStatefulSet, next);
  };
  auto written = write(set);
  if (!written.ok() && written.status().code() == StatusCode::kConflict) {
    // Most often our own last status write, not yet in the cache: read the
    // set again and retry once if its spec is the one counted.
    auto fresh = client_.Get(api::Kind::kStatefulSet, set.namespace_name(), set.name());
    if (!fresh.ok())
      return fresh.status().code() == StatusCode::kNotFound ? Status::Ok() : fresh.status();
    if (fresh.value()->uid() != set.uid() || api::Generation(*fresh.value()) != generation)
      return written.status();
    written = write(*fresh.value());
  }
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace berth::controllers
