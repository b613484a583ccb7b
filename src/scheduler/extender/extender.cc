#include "scheduler/extender/extender.h"

#include <algorithm>
#include <boost/json.hpp>
#include <future>
#include <unordered_map>

#include "scheduler/parallelizer.h"

namespace berth::scheduler {

namespace json = boost::json;

namespace {

constexpr std::string_view kVerbLabels[] = {"filter", "prioritize", "bind", "preempt"};

// Finds nodes by name in `nodes`: at the same position first (extenders
// usually answer in the order they were asked), else through a map built on
// first need.
class NodeFinder {
 public:
  explicit NodeFinder(std::span<const NodeInfo* const> nodes) : nodes_(nodes) {}
  // The index of `name` in the nodes, or -1.
  ptrdiff_t Find(std::string_view name, size_t position_hint) {
    if (position_hint < nodes_.size() && nodes_[position_hint]->name() == name) {
      return static_cast<ptrdiff_t>(position_hint);
    }
    if (by_name_.empty()) {
      for (size_t i = 0; i < nodes_.size(); ++i) by_name_.emplace(nodes_[i]->name(), i);
    }
    auto it = by_name_.find(name);
    return it == by_name_.end() ? -1 : static_cast<ptrdiff_t>(it->second);
  }

 private:
  std::span<const NodeInfo* const> nodes_;
  std::unordered_map<std::string_view, size_t> by_name_;
};

bool NamesAny(const json::object& container, std::string_view field,
              const std::vector<ExtenderManagedResource>& managed) {
  auto resources = container.find("resources");
  if (resources == container.end() || !resources->value().is_object()) return false;
  auto list = resources->value().get_object().find(field);
  if (list == resources->value().get_object().end() || !list->value().is_object()) return false;
  for (const auto& entry : list->value().get_object()) {
    for (const auto& m : managed) {
      if (entry.key() == m.name) return true;
    }
  }
  return false;
}

}  // namespace

Extender::Extender(ExtenderConfig config, std::unique_ptr<ExtenderClient> client)
    : config_(std::move(config)), client_(std::move(client)) {}

Result<std::unique_ptr<Extender>> Extender::Create(const ExtenderConfig& config,
                                                   metrics::Family<metrics::Histogram>& durations) {
  auto timeout = config.http_timeout.count() > 0 ? config.http_timeout : kDefaultExtenderTimeout;
  auto client =
      ExtenderClient::Create(config.url_prefix, config.enable_https, config.tls_config, timeout);
  if (!client.ok()) return client.status();
  std::unique_ptr<Extender> e(new Extender(config, std::move(client).value()));
  for (int v = 0; v < kVerbCount; ++v) {
    e->durations_[v][0] =
        &durations.WithLabels({config.url_prefix, std::string(kVerbLabels[v]), "success"});
    e->durations_[v][1] =
        &durations.WithLabels({config.url_prefix, std::string(kVerbLabels[v]), "error"});
  }
  return e;
}

bool Extender::IsInterested(const PodInfo& pod) const {
  if (config_.managed_resources.empty()) return true;
  const json::object& object = pod.object->json();
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->value().is_object()) return false;
  for (std::string_view list : {"containers", "initContainers"}) {
    auto containers = spec->value().get_object().find(list);
    if (containers == spec->value().get_object().end() || !containers->value().is_array()) continue;
    for (const auto& c : containers->value().get_array()) {
      if (!c.is_object()) continue;
      if (NamesAny(c.get_object(), "requests", config_.managed_resources) ||
          NamesAny(c.get_object(), "limits", config_.managed_resources)) {
        return true;
      }
    }
  }
  return false;
}

Result<std::string> Extender::Call(Verb verb, std::string_view body) const {
  const std::string& name = verb == kFilter       ? config_.filter_verb
                            : verb == kPrioritize ? config_.prioritize_verb
                            : verb == kBind       ? config_.bind_verb
                                                  : config_.preempt_verb;
  auto start = std::chrono::steady_clock::now();
  Result<std::string> answer = client_->Post(name, body);
  durations_[verb][answer.ok() ? 0 : 1]->Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return answer;
}

Result<Extender::FilterResult> Extender::Filter(const PodInfo& pod,
                                                std::span<const NodeInfo* const> nodes) const {
  auto answer = Call(kFilter, EncodeExtenderArgs(*pod.object, nodes, config_.node_cache_capable));
  if (!answer.ok()) return answer.status();
  auto decoded = DecodeExtenderFilterResult(*answer);
  if (!decoded.ok()) return decoded.status();
  ExtenderFilterResult& r = *decoded;
  if (!r.error.empty()) return Status::Internal(r.error);
  FilterResult result;
  // kube reads NodeNames from a node-cache-capable extender, else Nodes;
  // neither means no node passed.
  const std::optional<std::vector<std::string>>& kept =
      config_.node_cache_capable && r.node_names ? r.node_names : r.nodes;
  if (kept) {
    NodeFinder finder(nodes);
    result.feasible.reserve(kept->size());
    for (size_t i = 0; i < kept->size(); ++i) {
      ptrdiff_t at = finder.Find((*kept)[i], i);
      if (at < 0) {
        return Status::Internal("extender \"" + name() + "\" claims a filtered node \"" +
                                (*kept)[i] + "\" which is not found in the input node list");
      }
      result.feasible.push_back(nodes[at]);
    }
  }
  result.failed = std::move(r.failed_nodes);
  result.failed_and_unresolvable = std::move(r.failed_and_unresolvable_nodes);
  return result;
}

Result<std::vector<HostPriority>> Extender::Prioritize(
    const PodInfo& pod, std::span<const NodeInfo* const> nodes) const {
  auto answer =
      Call(kPrioritize, EncodeExtenderArgs(*pod.object, nodes, config_.node_cache_capable));
  if (!answer.ok()) return answer.status();
  return DecodeHostPriorityList(*answer);
}

Status Extender::Bind(const PodInfo& pod, const std::string& node) const {
  auto answer = Call(kBind, EncodeExtenderBindingArgs(*pod.object, node));
  if (!answer.ok()) return answer.status();
  auto error = DecodeExtenderBindingResult(*answer);
  if (!error.ok()) return error.status();
  if (!error->empty()) return Status::Internal(*error);
  return Status::Ok();
}

Result<std::vector<std::pair<std::string, PreemptionVictims>>> Extender::ProcessPreemption(
    const PodInfo& pod, std::span<const std::pair<std::string, PreemptionVictims>> candidates,
    const Snapshot& snapshot) const {
  auto answer = Call(
      kPreempt, EncodeExtenderPreemptionArgs(*pod.object, candidates, config_.node_cache_capable));
  if (!answer.ok()) return answer.status();
  auto decoded = DecodeExtenderPreemptionResult(*answer);
  if (!decoded.ok()) return decoded.status();
  std::vector<std::pair<std::string, PreemptionVictims>> out;
  for (auto& [node_name, meta] : *decoded) {
    const NodeInfo* node = snapshot.Get(node_name);
    if (!node) return Status::Internal("nodeinfo not found for node name \"" + node_name + "\"");
    PreemptionVictims victims;
    victims.pdb_violations = meta.pdb_violations;
    for (const auto& uid : meta.pod_uids) {
      auto it = std::find_if(node->pods().begin(), node->pods().end(),
                             [&](const PodInfoPtr& p) { return p->uid() == uid; });
      if (it == node->pods().end()) {
        return Status::Internal("extender: " + name() + " claims to preempt pod (UID: " + uid +
                                ") on node: " + node_name +
                                ", but the pod is not found on that node");
      }
      victims.pods.push_back(*it);
    }
    out.emplace_back(node_name, std::move(victims));
  }
  return out;
}

// ---- Extenders ----

Result<std::unique_ptr<Extenders>> Extenders::Create(const std::vector<ExtenderConfig>& configs,
                                                     metrics::Registry& registry) {
  auto list = std::make_unique<Extenders>();
  if (configs.empty()) return list;
  auto& durations = registry.AddHistogram("scheduler_extender_request_duration_seconds",
                                          "Latency of calls to scheduler extenders in seconds, by "
                                          "extender (its urlPrefix), verb (filter, prioritize, "
                                          "bind, preempt) and result (success, or error for a "
                                          "failed call: no connection, a timeout or a status other "
                                          "than 200).",
                                          metrics::ExponentialBuckets(0.0001, 2, 18),
                                          {"extender", "verb", "result"});
  for (size_t i = 0; i < configs.size(); ++i) {
    auto e = Extender::Create(configs[i], durations);
    if (!e.ok())
      return Status::BadRequest("extenders[" + std::to_string(i) + "]." + e.status().message());
    list->extenders_.push_back(std::move(e).value());
  }
  list->prioritizing_ = &GoroutinesFamily(registry).WithLabels({"prioritizing_extender"});
  return list;
}

bool Extenders::HasFilters() const {
  return std::any_of(extenders_.begin(), extenders_.end(),
                     [](const auto& e) { return e->IsFilter(); });
}

bool Extenders::HasPrioritizers() const {
  return std::any_of(extenders_.begin(), extenders_.end(),
                     [](const auto& e) { return e->IsPrioritizer(); });
}

std::vector<std::string> Extenders::IgnoredResources() const {
  std::vector<std::string> out;
  for (const auto& e : extenders_) {
    for (const auto& r : e->config().managed_resources) {
      if (r.ignored_by_scheduler) out.push_back(r.name);
    }
  }
  return out;
}

Status Extenders::Filter(const PodInfo& pod, const Snapshot& snapshot,
                         std::vector<const NodeInfo*>& feasible,
                         std::vector<NodeStatus>& rejected) const {
  for (const auto& e : extenders_) {
    if (feasible.empty()) break;
    if (!e->IsFilter() || !e->IsInterested(pod)) continue;
    auto result = e->Filter(pod, feasible);
    if (!result.ok()) {
      if (e->ignorable()) continue;
      return result.status();
    }
    // A node's status from an extender replaces what it had.
    auto set = [&](const std::string& node_name, PluginStatus status) {
      for (auto& r : rejected) {
        if (r.node->name() == node_name) {
          r.status = std::move(status);
          return;
        }
      }
      if (const NodeInfo* node = snapshot.Get(node_name))
        rejected.push_back({node, std::move(status)});
    };
    for (auto& [node, reason] : result->failed_and_unresolvable)
      set(node, PluginStatus::Unresolvable(reason));
    for (auto& [node, reason] : result->failed) {
      // A node in both maps is unresolvable.
      if (std::none_of(result->failed_and_unresolvable.begin(),
                       result->failed_and_unresolvable.end(),
                       [&](const auto& u) { return u.first == node; })) {
        set(node, PluginStatus::Unschedulable(reason));
      }
    }
    feasible = std::move(result->feasible);
  }
  return Status::Ok();
}

void Extenders::Prioritize(const PodInfo& pod, std::span<const NodeInfo* const> feasible,
                           std::span<int64_t> totals) const {
  std::vector<const Extender*> callers;
  for (const auto& e : extenders_) {
    if (e->IsPrioritizer() && e->IsInterested(pod)) callers.push_back(e.get());
  }
  if (callers.empty()) return;
  // All at once: the first on this thread, the others on their own.
  prioritizing_->Add(static_cast<double>(callers.size()));
  std::vector<std::future<Result<std::vector<HostPriority>>>> others;
  for (size_t i = 1; i < callers.size(); ++i) {
    others.push_back(std::async(std::launch::async,
                                [&, e = callers[i]] { return e->Prioritize(pod, feasible); }));
  }
  std::vector<Result<std::vector<HostPriority>>> answers;
  answers.push_back(callers[0]->Prioritize(pod, feasible));
  for (auto& f : others) answers.push_back(f.get());
  prioritizing_->Add(-static_cast<double>(callers.size()));
  NodeFinder finder(feasible);
  for (size_t i = 0; i < callers.size(); ++i) {
    if (!answers[i].ok()) continue;  // the others' and the plugins' scores decide
    const int64_t scale = callers[i]->config().weight * (kMaxNodeScore / kMaxExtenderPriority);
    const auto& scores = *answers[i];
    for (size_t j = 0; j < scores.size(); ++j) {
      ptrdiff_t at = finder.Find(scores[j].host, j);
      if (at >= 0) totals[at] += scores[j].score * scale;
    }
  }
}

std::optional<Status> Extenders::Bind(const PodInfo& pod, const std::string& node) const {
  for (const auto& e : extenders_) {
    if (e->IsBinder() && e->IsInterested(pod)) return e->Bind(pod, node);
  }
  return std::nullopt;
}

Status Extenders::NarrowPreemptionCandidates(
    const PodInfo& pod, const Snapshot& snapshot,
    std::vector<std::pair<std::string, PreemptionVictims>>& candidates) const {
  for (const auto& e : extenders_) {
    if (candidates.empty()) break;
    if (!e->SupportsPreemption() || !e->IsInterested(pod)) continue;
    auto result = e->ProcessPreemption(pod, candidates, snapshot);
    if (!result.ok()) {
      if (e->ignorable()) continue;
      return result.status();
    }
    std::vector<std::pair<std::string, PreemptionVictims>> kept;
    for (auto& [node, victims] : *result) {
      if (victims.pods.empty()) {
        if (e->ignorable()) continue;
        return Status::Internal("expected at least one victim pod on node \"" + node + "\"");
      }
      kept.emplace_back(std::move(node), std::move(victims));
    }
    candidates = std::move(kept);
  }
  return Status::Ok();
}

}  // namespace berth::scheduler
