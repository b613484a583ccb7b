#include "controllers/simnode/sim_pod_status.h"

#include <algorithm>
#include <charconv>

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/container/command.h"
#include "api/container/environment.h"
#include "api/json_fields.h"
#include "api/time/duration.h"
#include "api/time/rfc3339.h"
#include "controllers/simnode/sim_nodes.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

using TimePoint = std::chrono::system_clock::time_point;

// The most state changes one look simulates (a 1s crash loop catching up
// after a long outage reaches its 5 minute backoff well before this).
constexpr int kMaxSteps = 1000;

std::string_view AnnotationOf(const json::object& pod, std::string_view key) {
  return api::StringAt(api::ObjectAt(api::ObjectAt(pod, "metadata"), "annotations"), key);
}

std::string Stamp(TimePoint t) { return api::FormatRfc3339(t); }

TimePoint ParsedOr(std::string_view text, TimePoint fallback) {
  return api::ParseRfc3339(text).value_or(fallback);
}

// Go's fmt %s of a []string: "[a b]".
std::string GoList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

struct PodFacts {
  std::string name, ns, uid;
  std::string restart_policy;  // Always, OnFailure, Never
};

PodFacts FactsOf(const json::object& pod) {
  const json::object* meta = api::ObjectAt(pod, "metadata");
  PodFacts f{std::string(api::StringAt(meta, "name")), std::string(api::StringAt(meta, "namespace")),
             std::string(api::StringAt(meta, "uid")),
             std::string(api::StringAt(api::ObjectAt(pod, "spec"), "restartPolicy"))};
  if (f.restart_policy.empty()) f.restart_policy = "Always";
  return f;
}

// kube's format.Pod: NAME_NAMESPACE(UID).
std::string PodRef(const PodFacts& f) { return f.name + "_" + f.ns + "(" + f.uid + ")"; }

std::string ContainerId(const PodFacts& f, std::string_view name, int64_t instance) {
  return "sim://" + f.uid + "/" + std::string(name) + "/" + std::to_string(instance);
}

// One container's status, as the kubelet first reports it.
json::object NewContainerStatus(std::string_view name, std::string_view image) {
  return json::object{{"name", name},         {"image", image},  {"imageID", "sim://" + std::string(image)},
                      {"containerID", ""},    {"ready", false},  {"started", false},
                      {"restartCount", 0},    {"lastState", json::object{}},
                      {"state", json::object{{"waiting", json::object{{"reason", "ContainerCreating"}}}}}};
}

class Stepper {
 public:
  Stepper(const PodFacts& facts, TimePoint now, const SimRun& run, CrashBackoffs& backoffs, SimPodStep& step)
      : f_(facts), now_(now), run_(run), backoffs_(backoffs), step_(step) {}

  // Starts a new instance of the container at `at` with `image`; `previous`
  // (the terminated state of the one before, or empty) becomes lastState.
  void StartInstance(json::object& cs, std::string_view image, TimePoint at, json::object previous) {
    int64_t instance = api::IntAt(&cs, "restartCount");
    if (!previous.empty()) {
      ++instance;
      cs["lastState"] = json::object{{"terminated", std::move(previous)}};
    } else if (cs.find("lastState") == cs.end()) {
      cs["lastState"] = json::object{};
    }
    std::string name(api::StringAt(cs, "name"));
    cs["restartCount"] = instance;
    cs["image"] = image;
    cs["imageID"] = "sim://" + std::string(image);
    cs["containerID"] = ContainerId(f_, name, instance);
    cs["ready"] = true;
    cs["started"] = true;
    cs["state"] = json::object{{"running", json::object{{"startedAt", Stamp(at)}}}};
    // What kube's kubelet records as it starts a container (an image that
    // exists is always "present": nothing is pulled).
    Event("Normal", "Pulled", "Container image \"" + std::string(image) + "\" already present on machine");
    Event("Normal", "Created", "Created container " + name);
    Event("Normal", "Started", "Started container " + name);
  }

  // The container's image cannot be pulled (SimImageMissing): it waits
  // instead, as kube's kubelet reports it: ErrImagePull at the first
  // attempt, ImagePullBackOff from the next look on (no retry succeeds);
  // `previous` as for StartInstance. Nothing is recorded again while it
  // already waits so for this image.
  void PullFailed(json::object& cs, std::string_view image, json::object previous) {
    if (!previous.empty()) cs["lastState"] = json::object{{"terminated", std::move(previous)}};
    const bool same_image = api::StringAt(cs, "image") == image;
    const std::string reason(api::StringAt(api::ObjectAt(api::ObjectAt(cs, "state"), "waiting"), "reason"));
    const std::string quoted = "\"" + std::string(image) + "\"";
    cs["image"] = image;
    cs["imageID"] = "";
    cs["ready"] = false;
    cs["started"] = false;
    if (same_image && reason == "ImagePullBackOff") return;
    if (same_image && reason == "ErrImagePull") {
      cs["state"] = json::object{
          {"waiting", json::object{{"reason", "ImagePullBackOff"}, {"message", "Back-off pulling image " + quoted}}}};
      Event("Normal", "BackOff", "Back-off pulling image " + quoted);
      Event("Warning", "Failed", "Error: ImagePullBackOff");
      return;
    }
    const std::string error =
        "rpc error: code = NotFound desc = failed to pull and unpack image " + quoted + ": not found";
    cs["state"] = json::object{{"waiting", json::object{{"reason", "ErrImagePull"}, {"message", error}}}};
    Event("Normal", "Pulling", "Pulling image " + quoted);
    Event("Warning", "Failed", "Failed to pull image " + quoted + ": " + error);
    Event("Warning", "Failed", "Error: ErrImagePull");
    Wake(now_ + std::chrono::seconds(1));
  }

  // What container `c` does once started: the pod's annotations where
  // they say, else what its command does when that is known, else the pod's run.
  SimRun RunOf(const json::object& c) const {
    if (run_.duration_annotated && run_.exit_code_annotated) return run_;
    // Only the container's literal variables: what its duration or status
    // could depend on is never read from other objects.
    auto command = api::container::RunCommand(c, api::container::LiteralEnvironment(c));
    if (!command) return run_;
    SimRun run{.duration = command->duration, .exit_code = command->exit_code};
    if (run_.duration_annotated) run.duration = run_.duration;
    if (run_.exit_code_annotated) run.exit_code = run_.exit_code;
    return run;
  }

  // Moves one container (spec `c`, status `cs`) forward to now.
  void Advance(const json::object& c, json::object& cs) {
    const SimRun run = RunOf(c);
    const std::string name(api::StringAt(c, "name"));
    const std::string image(api::StringAt(c, "image"));
    const bool missing = SimImageMissing(image);
    for (int i = 0; i < kMaxSteps; ++i) {
      const json::object* state = api::ObjectAt(cs, "state");
      if (const json::object* running = api::ObjectAt(state, "running")) {
        const std::string started_at(api::StringAt(running, "startedAt"));
        if (api::StringAt(cs, "image") != image) {
          // The definition changed: kube kills the container and starts it
          // again with the new one, whatever the restart policy. Simulated
          // containers exit at once, cleanly, on SIGTERM.
          Event("Normal", "Killing", "Container " + name + " definition changed, will be restarted");
          if (missing) {
            PullFailed(cs, image, Terminated(cs, 0, started_at, now_));
            return;
          }
          StartInstance(cs, image, now_, Terminated(cs, 0, started_at, now_));
          continue;
        }
        if (!run.duration) return;  // runs for ever
        const TimePoint end = ParsedOr(started_at, now_) + *run.duration;
        if (end > now_) {
          Wake(end);
          return;
        }
        json::object terminated = Terminated(cs, run.exit_code, started_at, end);
        cs["state"] = json::object{{"terminated", std::move(terminated)}};
        cs["ready"] = false;
        cs["started"] = false;
        continue;
      }
      // Terminated, or waiting to be restarted after it terminated.
      const json::object* terminated = api::ObjectAt(state, "terminated");
      const bool waiting = terminated == nullptr;
      if (waiting) terminated = api::ObjectAt(api::ObjectAt(cs, "lastState"), "terminated");
      if (terminated == nullptr) {  // never started
        if (missing) {
          PullFailed(cs, image, {});
          return;
        }
        StartInstance(cs, image, now_, {});
        continue;
      }
      const int64_t code = api::IntAt(terminated, "exitCode");
      const bool restart = f_.restart_policy == "Always" || (f_.restart_policy == "OnFailure" && code != 0);
      if (!restart) return;
      if (missing) {  // the terminated instance stays lastState
        PullFailed(cs, image, {});
        return;
      }
      const TimePoint finished = ParsedOr(api::StringAt(terminated, "finishedAt"), now_);
      // kube's flowcontrol backoff: the first restart at once; each later
      // one waits the backoff after the exit, the backoff doubling (up to 5m)
      // at each restart; an entry older than twice the maximum is forgotten.
      const std::string key = name + "/" + image;
      auto entry = backoffs_.find(key);
      const bool counted = entry != backoffs_.end() && finished - entry->second.last_restart <= 2 * kMaxCrashBackoff;
      // Waiting with no backoff known (a restarted kubelet, a new image): now.
      const TimePoint restart_at = counted ? finished + entry->second.backoff
                                           : (waiting ? now_ : std::min(finished, now_));
      json::object last = *terminated;  // copied: cs changes below
      if (restart_at > now_) {
        if (!waiting) {
          Event("Warning", "BackOff",
                "Back-off restarting failed container " + name + " in pod " + PodRef(f_));
        }
        cs["lastState"] = json::object{{"terminated", std::move(last)}};
        cs["state"] = json::object{
            {"waiting", json::object{{"reason", "CrashLoopBackOff"},
                                     {"message", "back-off " + api::FormatGoDuration(entry->second.backoff) +
                                                     " restarting failed container=" + name +
                                                     " pod=" + PodRef(f_)}}}};
        cs["ready"] = false;
        cs["started"] = false;
        Wake(restart_at);
        return;
      }
      CrashBackoff& b = backoffs_[key];
      b.backoff = counted ? std::min<std::chrono::milliseconds>(2 * b.backoff, kMaxCrashBackoff)
                          : std::chrono::milliseconds(kInitialCrashBackoff);
      b.last_restart = restart_at;
      StartInstance(cs, image, restart_at, std::move(last));
    }
  }

 private:
  json::object Terminated(const json::object& cs, int64_t code, const std::string& started_at, TimePoint end) {
    return json::object{{"exitCode", code},
                        {"reason", code == 0 ? "Completed" : "Error"},
                        {"startedAt", started_at},
                        {"finishedAt", Stamp(end)},
                        {"containerID", api::StringAt(cs, "containerID")}};
  }
  void Wake(TimePoint t) {
    if (!step_.wake || t < *step_.wake) step_.wake = t;
  }
  void Event(std::string type, std::string reason, std::string message) {
    step_.events.push_back({std::move(type), std::move(reason), std::move(message)});
  }

  const PodFacts& f_;
  TimePoint now_;
  const SimRun& run_;
  CrashBackoffs& backoffs_;
  SimPodStep& step_;
};

json::object* FindStatus(json::array& statuses, std::string_view name) {
  for (auto& s : statuses) {
    if (s.is_object() && api::StringAt(s.get_object(), "name") == name) return &s.get_object();
  }
  return nullptr;
}

// kube's getPhase for a pod whose init containers have completed.
std::string PhaseOf(const std::string& restart_policy, const json::array& statuses) {
  int running = 0, waiting = 0, stopped = 0, succeeded = 0;
  for (const auto& v : statuses) {
    if (!v.is_object()) continue;
    const json::object& cs = v.get_object();
    const json::object* state = api::ObjectAt(cs, "state");
    if (api::ObjectAt(state, "running")) {
      ++running;
    } else if (const json::object* t = api::ObjectAt(state, "terminated")) {
      ++stopped;
      if (api::IntAt(t, "exitCode") == 0) ++succeeded;
    } else if (api::ObjectAt(api::ObjectAt(cs, "lastState"), "terminated")) {
      ++stopped;
    } else {
      ++waiting;
    }
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped == 0) return "Pending";
  if (restart_policy == "Always") return "Running";
  if (stopped == succeeded) return "Succeeded";
  if (restart_policy == "Never") return "Failed";
  return "Running";
}

}  // namespace

bool SimImageMissing(std::string_view image) {
  const std::string_view name = image.substr(0, image.find('@'));
  const size_t slash = name.rfind('/');
  const size_t colon = name.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash) &&
      name.substr(colon + 1) == "404") {
    return true;
  }
  // Each part of the reference, split at '/' and ':'.
  std::string_view rest = name;
  while (!rest.empty()) {
    const size_t end = rest.find_first_of("/:");
    const std::string_view part = rest.substr(0, end);
    if (part == "nonexistent" || part == "non-existent" || part == "invalid" || part.starts_with("invalid.")) {
      return true;
    }
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return false;
}

SimRun SimRunOf(const json::object& pod, std::chrono::milliseconds default_duration) {
  SimRun run;
  if (auto d = AnnotationOf(pod, kSimRunDurationAnnotation); !d.empty()) run.duration = api::ParseGoDuration(d);
  run.duration_annotated = run.duration.has_value();
  if (!run.duration && FactsOf(pod).restart_policy != "Always") run.duration = default_duration;
  if (auto code = AnnotationOf(pod, kSimExitCodeAnnotation); !code.empty()) {
    int value = 0;
    auto [end, ec] = std::from_chars(code.data(), code.data() + code.size(), value);
    if (ec == std::errc() && end == code.data() + code.size()) {
      run.exit_code = value;
      run.exit_code_annotated = true;
    }
  }
  return run;
}

SimPodStep StartPodStatus(const json::object& pod, json::object& status, TimePoint now, const SimRun& run,
                          CrashBackoffs& backoffs) {
  const PodFacts f = FactsOf(pod);
  const json::object* spec = api::ObjectAt(pod, "spec");
  const std::string started = Stamp(now);
  status["phase"] = "Running";
  status["startTime"] = started;
  json::array inits;
  if (const json::array* init_containers = api::ArrayAt(spec, "initContainers")) {
    for (const auto& c : *init_containers) {
      if (!c.is_object()) continue;
      std::string name(api::StringAt(c.get_object(), "name"));
      std::string image(api::StringAt(c.get_object(), "image"));
      std::string id = ContainerId(f, name, 0);
      inits.push_back(json::object{
          {"name", name},
          {"image", image},
          {"imageID", "sim://" + image},
          {"containerID", id},
          {"ready", true},
          {"started", false},
          {"restartCount", 0},
          {"lastState", json::object{}},
          {"state", json::object{{"terminated", json::object{{"exitCode", 0},
                                                             {"reason", "Completed"},
                                                             {"startedAt", started},
                                                             {"finishedAt", started},
                                                             {"containerID", id}}}}}});
    }
  }
  std::vector<KubeletEvent> init_events;
  for (const auto& i : inits) {
    std::string name(api::StringAt(i.get_object(), "name"));
    init_events.push_back(
        {"Normal", "Pulled", "Container image \"" + std::string(api::StringAt(i.get_object(), "image")) +
                                 "\" already present on machine"});
    init_events.push_back({"Normal", "Created", "Created container " + name});
    init_events.push_back({"Normal", "Started", "Started container " + name});
  }
  if (!inits.empty()) status["initContainerStatuses"] = std::move(inits);
  json::array statuses;
  if (const json::array* containers = api::ArrayAt(spec, "containers")) {
    for (const auto& c : *containers) {
      if (c.is_object()) {
        statuses.push_back(NewContainerStatus(api::StringAt(c.get_object(), "name"),
                                              api::StringAt(c.get_object(), "image")));
      }
    }
  }
  status["containerStatuses"] = std::move(statuses);
  SimPodStep step = AdvancePodStatus(pod, status, now, run, backoffs);
  step.events.insert(step.events.begin(), init_events.begin(), init_events.end());
  return step;
}

SimPodStep AdvancePodStatus(const json::object& pod, json::object& status, TimePoint now, const SimRun& run,
                            CrashBackoffs& backoffs) {
  SimPodStep step;
  std::string_view phase = api::StringAt(status, "phase");
  if (phase == "Succeeded" || phase == "Failed") return step;
  const PodFacts f = FactsOf(pod);
  Stepper stepper(f, now, run, backoffs, step);
  json::array& statuses = api::MutableArray(status, "containerStatuses");
  if (const json::array* containers = api::ArrayAt(api::ObjectAt(pod, "spec"), "containers")) {
    for (const auto& c : *containers) {
      if (!c.is_object()) continue;
      const json::object& spec_c = c.get_object();
      json::object* cs = FindStatus(statuses, api::StringAt(spec_c, "name"));
      if (!cs) {
        statuses.push_back(NewContainerStatus(api::StringAt(spec_c, "name"), api::StringAt(spec_c, "image")));
        cs = &statuses.back().get_object();
      }
      stepper.Advance(spec_c, *cs);
    }
  }
  std::string next_phase = PhaseOf(f.restart_policy, statuses);
  status["phase"] = next_phase;
  if (next_phase == "Succeeded" || next_phase == "Failed") step.wake.reset();
  SetPodConditions(pod, status, Stamp(now));
  return step;
}

void SetPodConditions(const json::object& pod, json::object& status, const std::string& now) {
  const json::object* spec = api::ObjectAt(pod, "spec");
  const std::string phase(api::StringAt(status, "phase"));
  const bool terminal = phase == "Succeeded" || phase == "Failed";
  const api::ConditionStamps stamps{.null_probe_time = true};
  auto names_where = [](const json::array* specs, const json::array* statuses, bool want_ready) {
    std::vector<std::string> unknown, unready;
    if (!specs) return std::pair{unknown, unready};
    for (const auto& c : *specs) {
      if (!c.is_object()) continue;
      std::string name(api::StringAt(c.get_object(), "name"));
      const json::object* found = nullptr;
      if (statuses) {
        for (const auto& s : *statuses) {
          if (s.is_object() && api::StringAt(s.get_object(), "name") == name) found = &s.get_object();
        }
      }
      if (!found) {
        unknown.push_back(name);
      } else if (want_ready && !api::BoolAt(found, "ready")) {
        unready.push_back(name);
      }
    }
    return std::pair{unknown, unready};
  };
  auto message_of = [](const std::vector<std::string>& unknown, const std::vector<std::string>& bad,
                       std::string_view bad_words) {
    std::string m;
    if (!unknown.empty()) m = "containers with unknown status: " + GoList(unknown);
    if (!bad.empty()) m += (m.empty() ? "" : ", ") + std::string(bad_words) + GoList(bad);
    return m;
  };

  api::SetCondition(status, {"PodReadyToStartContainers", terminal ? "False" : "True", "", ""}, now, stamps);

  auto [init_unknown, init_incomplete] =
      names_where(api::ArrayAt(spec, "initContainers"), api::ArrayAt(status, "initContainerStatuses"), true);
  if (phase == "Succeeded") {
    api::SetCondition(status, {"Initialized", "True", "PodCompleted", ""}, now, stamps);
  } else if (std::string m = message_of(init_unknown, init_incomplete, "containers with incomplete status: ");
             !m.empty()) {
    api::SetCondition(status, {"Initialized", "False", "ContainersNotInitialized", m}, now, stamps);
  } else {
    api::SetCondition(status, {"Initialized", "True", "", ""}, now, stamps);
  }

  api::Condition containers_ready{"ContainersReady", "True", "", ""};
  if (terminal) {
    containers_ready = {"ContainersReady", "False", phase == "Failed" ? "PodFailed" : "PodCompleted", ""};
  } else {
    auto [unknown, unready] =
        names_where(api::ArrayAt(spec, "containers"), api::ArrayAt(status, "containerStatuses"), true);
    if (std::string m = message_of(unknown, unready, "containers with unready status: "); !m.empty()) {
      containers_ready = {"ContainersReady", "False", "ContainersNotReady", m};
    }
  }
  api::Condition ready{"Ready", containers_ready.status, containers_ready.reason, containers_ready.message};
  if (containers_ready.status == "True") {
    // Readiness gates: each named condition must be True in the status.
    std::string m;
    if (const json::array* gates = api::ArrayAt(spec, "readinessGates")) {
      for (const auto& g : *gates) {
        if (!g.is_object()) continue;
        std::string type(api::StringAt(g.get_object(), "conditionType"));
        const json::object* c = api::FindCondition(&status, type);
        std::string one;
        if (!c) {
          one = "corresponding condition of pod readiness gate \"" + type + "\" does not exist.";
        } else if (api::StringAt(c, "status") != "True") {
          one = "the status of pod readiness gate \"" + type + "\" is not \"True\", but " +
                std::string(api::StringAt(c, "status"));
        }
        if (!one.empty()) m += (m.empty() ? "" : ", ") + one;
      }
    }
    if (!m.empty()) ready = {"Ready", "False", "ReadinessGatesNotReady", m};
  }
  api::SetCondition(status, ready, now, stamps);
  api::SetCondition(status, containers_ready, now, stamps);
  api::SetCondition(status, {"PodScheduled", "True", "", ""}, now, stamps);
}

}  // namespace berth::controllers
