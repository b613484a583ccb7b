#include "apiserver/subresources/log.h"

#include <charconv>
#include <vector>

#include <boost/json.hpp>

#include "api/container/command.h"
#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "apiserver/api_server.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

using TimePoint = std::chrono::system_clock::time_point;

struct Line {
  TimePoint at;
  std::string text;
};

// The kubelet's timestamp format (RFC 3339 with nine fractional digits).
std::string KubeletStamp(TimePoint t) {
  std::string s = api::FormatRfc3339(t);  // ...:SSZ
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count() % 1000000000;
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%09lld", static_cast<long long>(nanos));
  return s.substr(0, s.size() - 1) + frac + "Z";
}

const json::object* FindStatus(const json::array* statuses, std::string_view name) {
  if (!statuses) return nullptr;
  for (const auto& s : *statuses) {
    if (s.is_object() && api::StringAt(s.get_object(), "name") == name) return &s.get_object();
  }
  return nullptr;
}

// Go's %s of a []string.
std::string GoList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

// kube's validateContainer: the container the request means.
Result<std::string> ChooseContainer(const api::Object& pod, const std::string& asked) {
  const json::object* spec = api::Spec(pod);
  std::vector<std::string> all;  // init containers first, as kube lists them
  for (const char* field : {"initContainers", "containers", "ephemeralContainers"}) {
    if (const json::array* list = api::ArrayAt(spec, field)) {
      for (const auto& c : *list) {
        if (c.is_object()) all.emplace_back(api::StringAt(c.get_object(), "name"));
      }
    }
  }
  if (!asked.empty()) {
    for (const auto& n : all) {
      if (n == asked) return asked;
    }
    return Status::BadRequest("container " + asked + " is not valid for pod " + pod.name());
  }
  const json::array* containers = api::ArrayAt(spec, "containers");
  const size_t count = containers ? containers->size() : 0;
  if (count == 1 && containers->at(0).is_object()) {
    return std::string(api::StringAt(containers->at(0).get_object(), "name"));
  }
  if (count == 0) return Status::BadRequest("a container name must be specified for pod " + pod.name());
  return Status::BadRequest("a container name must be specified for pod " + pod.name() +
                            ", choose one of: " + GoList(all));
}

void AppendLines(std::string_view text, TimePoint at, std::vector<Line>& lines) {
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({at, std::string(line)});
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

// The output of one instance of container `name`: its state (running or
// terminated), its image when known, what its command printed (`printed`).
std::vector<Line> InstanceLines(const api::Object& pod, const std::string& name, const json::object& running_or_terminated,
                                bool terminated, std::string_view image, std::string_view printed) {
  std::vector<Line> lines;
  TimePoint started = api::ParseRfc3339(api::StringAt(running_or_terminated, "startedAt")).value_or(TimePoint{});
  std::string first = "berth-sim: started container " + name;
  if (!image.empty()) first += " (image " + std::string(image) + ")";
  lines.push_back({started, std::move(first)});
  AppendLines(api::Annotation(pod, kSimLogAnnotation), started, lines);
  AppendLines(printed, started, lines);
  if (terminated) {
    TimePoint finished = api::ParseRfc3339(api::StringAt(running_or_terminated, "finishedAt")).value_or(started);
    lines.push_back({finished, "berth-sim: container " + name + " exited with code " +
                                   std::to_string(api::IntAt(&running_or_terminated, "exitCode"))});
  }
  return lines;
}

// What container `name`'s command prints, "" when that is not known.
std::string CommandOutput(const api::Object& pod, std::string_view name, const api::container::Sources& sources) {
  const json::object* spec = api::container::ContainerNamed(pod, name);
  // Without a command the image's entrypoint runs: nothing known to print,
  // and no environment to gather.
  if (!spec || !api::ArrayAt(*spec, "command")) return "";
  auto run = api::container::RunCommand(*spec, api::container::ContainerEnvironment(pod, *spec, sources));
  return run ? std::move(run->output) : "";
}

}  // namespace

Result<std::string> RenderPodLog(const api::Object& pod, const PodLogQuery& query,
                                 const api::container::Sources& sources) {
  auto chosen = ChooseContainer(pod, query.container);
  if (!chosen.ok()) return chosen.status();
  const std::string& name = chosen.value();
  // A pod not yet on a node has no output (kube answers it empty).
  if (api::StringAt(api::Spec(pod), "nodeName").empty()) return std::string();
  const json::object* status = api::StatusOf(pod);
  const json::object* cs = FindStatus(api::ArrayAt(status, "containerStatuses"), name);
  if (!cs) cs = FindStatus(api::ArrayAt(status, "initContainerStatuses"), name);
  const std::string where = "container \"" + name + "\" in pod \"" + pod.name() + "\"";
  if (!cs) return Status::BadRequest(where + " is not available");
  const json::object* state = api::ObjectAt(cs, "state");
  const json::object* last = api::ObjectAt(api::ObjectAt(cs, "lastState"), "terminated");
  std::vector<Line> lines;
  if (query.previous) {
    if (!last) return Status::BadRequest("previous terminated " + where + " not found");
    lines = InstanceLines(pod, name, *last, true, "", CommandOutput(pod, name, sources));
  } else if (const json::object* running = api::ObjectAt(state, "running")) {
    lines = InstanceLines(pod, name, *running, false, api::StringAt(cs, "image"), CommandOutput(pod, name, sources));
  } else if (const json::object* terminated = api::ObjectAt(state, "terminated")) {
    lines = InstanceLines(pod, name, *terminated, true, api::StringAt(cs, "image"), CommandOutput(pod, name, sources));
  } else if (last) {
    lines = InstanceLines(pod, name, *last, true, "", CommandOutput(pod, name, sources));
  } else if (const json::object* waiting = api::ObjectAt(state, "waiting")) {
    return Status::BadRequest(where + " is waiting to start: " + std::string(api::StringAt(waiting, "reason")));
  } else {
    return Status::BadRequest(where + " is waiting to start - no logs yet");
  }
  if (query.since) {
    std::erase_if(lines, [&](const Line& l) { return l.at < *query.since; });
  }
  if (query.tail_lines && static_cast<size_t>(*query.tail_lines) < lines.size()) {
    lines.erase(lines.begin(), lines.end() - *query.tail_lines);
  }
  std::string out;
  for (const auto& l : lines) {
    if (query.timestamps) out += KubeletStamp(l.at) + " ";
    out += l.text;
    out += '\n';
  }
  if (query.limit_bytes && static_cast<size_t>(*query.limit_bytes) < out.size()) {
    out.resize(static_cast<size_t>(*query.limit_bytes));
  }
  return out;
}

namespace {

// The objects a container's environment refers to, as the store has them now.
api::container::Sources StoreSources(store::Store& store) {
  api::container::Sources sources;
  sources.get = [&store](api::Kind kind, std::string_view ns, std::string_view name) -> api::ObjectPtr {
    auto object = store.Get(api::StorageKey(kind, ns, name));
    return object.ok() ? object.value() : nullptr;
  };
  sources.list = [&store](api::Kind kind, std::string_view ns) {
    store::ListOptions options;
    options.prefix = api::StoragePrefix(kind, ns);
    auto listed = store.List(options);
    return listed.ok() ? std::move(listed).value().items : std::vector<api::ObjectPtr>{};
  };
  return sources;
}

}  // namespace

LogSubresource::LogSubresource()
    : Subresource({.name = "log", .group = "", .version = "v1", .kind = "Pod", .verbs = {"get"}, .listed = false}) {}

Response LogSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  const api::KindInfo& kind = api::Info(api::Kind::kPod);
  if (request.method != "GET") return MethodNotAllowed();
  auto current = rest.store().Get(api::StorageKey(api::Kind::kPod, info.ns, info.name));
  if (!current.ok()) return ErrorResponse(NotFoundFor(kind, info.name), DetailsFor(kind, info.name));
  // kube's ValidatePodLogOptions.
  std::vector<std::string> errors;
  auto integer = [&](std::string_view key) -> std::optional<int64_t> {
    auto text = request.Query(key);
    if (!text) return std::nullopt;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size()) {
      errors.push_back(std::string(key) + ": Invalid value: \"" + std::string(*text) + "\": must be an integer");
      return std::nullopt;
    }
    return value;
  };
  PodLogQuery query;
  query.container = std::string(request.Query("container").value_or(""));
  query.previous = request.QueryBool("previous");
  query.timestamps = request.QueryBool("timestamps");
  query.tail_lines = integer("tailLines");
  query.limit_bytes = integer("limitBytes");
  auto since_seconds = integer("sinceSeconds");
  if (query.tail_lines && *query.tail_lines < 0) {
    errors.push_back("tailLines: Invalid value: " + std::to_string(*query.tail_lines) +
                     ": must be greater than or equal to 0");
  }
  if (query.limit_bytes && *query.limit_bytes < 1) {
    errors.push_back("limitBytes: Invalid value: " + std::to_string(*query.limit_bytes) + ": must be greater than 0");
  }
  if (since_seconds && *since_seconds < 1) {
    errors.push_back("sinceSeconds: Invalid value: " + std::to_string(*since_seconds) + ": must be greater than 0");
  }
  if (auto since_time = request.Query("sinceTime")) {
    if (since_seconds) errors.push_back("at most one of `sinceTime` or `sinceSeconds` may be specified");
    query.since = api::ParseRfc3339(*since_time);
    if (!query.since) {
      errors.push_back("sinceTime: Invalid value: \"" + std::string(*since_time) + "\": not an RFC 3339 time");
    }
  } else if (since_seconds && *since_seconds > 0) {
    query.since = std::chrono::system_clock::now() - std::chrono::seconds(*since_seconds);
  }
  if (!errors.empty()) {
    std::string message = "PodLogOptions \"" + info.name + "\" is invalid: ";
    for (size_t i = 0; i < errors.size(); ++i) message += (i ? ", " : "") + errors[i];
    return ErrorResponse(Status::Invalid(message));
  }
  // follow: the simulated output is complete as it is; it is sent and the
  // stream ends (kubectl logs -f prints what there is and returns).
  auto text = RenderPodLog(*current.value(), query, StoreSources(rest.store()));
  if (!text.ok()) return ErrorResponse(text.status());
  Response response;
  response.content_type = "text/plain";
  response.body = std::move(text).value();
  return response;
}

}  // namespace berth::apiserver
