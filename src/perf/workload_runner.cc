#include "perf/workload_runner.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "api/time/duration.h"
#include "cluster/in_process_cluster.h"
#include "perf/histogram.h"
#include "perf/process_stats.h"
#include "perf/temporary_directory.h"
#include "perf/throughput.h"

namespace berth::perf {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

constexpr char kAttemptDuration[] = "scheduler_scheduling_attempt_duration_seconds";
constexpr char kPodSchedulingDuration[] = "scheduler_pod_scheduling_duration_seconds";
constexpr int kCreateThreads = 16;  // scheduler_perf's createPodsRapidly uses 16 workers
constexpr int kVolumeCreateThreads = 30;  // its CreatePodWithPersistentVolume, 30

class Runner {
 public:
  Runner(const PerfOptions& o, const Workload& w) : o_(o), w_(w), templates_(o.config) {
    rng_.seed(o.seed);
  }

  WorkloadResult Run() {
    WorkloadResult r;
    r.name = w_.Name();
    r.unsupported = Unsupported(w_, templates_);
    if (!r.unsupported.empty()) return r;
    ResetPeakRss();
    auto dir = TemporaryDirectory::Create("berth-perf-");
    if (!dir.ok()) return Fail(r, dir.status().message());
    cluster::ClusterOptions options;
    options.data_dir = dir.value().path() + "/data";
    options.watch_history = 1'000'000;
    options.api.seed = o_.seed;
    // scheduler_perf's API server runs without the Priority admission plugin
    // (its workloads set spec.priority directly: PreemptionBasic) and without
    // ServiceAccount (no serviceaccount controller runs).
    options.api.admission.disable = {"Priority", "ServiceAccount"};
    options.scheduler_options.concurrent = o_.concurrent;
    options.scheduler_options.seed = o_.seed;
    options.scheduler_options.record_bound_pods = true;
    options.controllers.controllers.clear();  // scheduler_perf runs no controllers
    auto created = cluster::InProcessCluster::Create(std::move(options));
    if (!created.ok()) return Fail(r, created.status().message());
    cluster_ = std::move(created).value();
    if (Status s = cluster_->Start(); !s.ok()) return Fail(r, s.message());
    Status status;
    for (const auto& op : w_.ops) {
      status = RunOp(op, r);
      if (!status.ok()) break;
      if (o_.after_op) o_.after_op(op, *cluster_);
    }
    cluster_->Stop();
    r.peak_rss_bytes = PeakRssBytes();
    if (!status.ok()) return Fail(r, status.message());
    return r;
  }

 private:
  WorkloadResult Fail(WorkloadResult& r, const std::string& message) {
    r.error = message;
    if (cluster_) cluster_->Stop();
    return r;
  }

  scheduler::Scheduler& Sched() { return *cluster_->scheduler(); }

  Result<int64_t> Count(const Op& op) const {
    int64_t count = 0;
    if (op.node["countParam"]) {
      const std::string param = op.node["countParam"].as<std::string>();
      if (param.empty() || param[0] != '$')
        return Status::BadRequest("countParam " + param + ": expected $name");
      auto it = w_.params.find(param.substr(1));
      if (it == w_.params.end())
        return Status::BadRequest("countParam " + param + ": no such param in " + w_.size);
      count = it->second;
    } else if (op.node["count"]) {
      count = op.node["count"].as<int64_t>();
    } else {
      return Status::BadRequest(op.opcode + ": count or countParam is required");
    }
    // --scale shrinks every count (smoke runs); never below one.
    return std::max<int64_t>(1, std::llround(static_cast<double>(count) * o_.scale));
  }

  // A write through the API server's handler; `created`, when given, gets the
  // object the server answered with.
  Status Send(const std::string& method, const std::string& path, const json::value& body,
              const std::string& content_type = "application/json", json::value* created = nullptr) {
    apiserver::Request request;
    request.method = method;
    request.path = path;
    request.content_type = content_type;
    request.accept = "application/json";
    request.body = json::serialize(body);
    request.trusted = true;
    auto response = cluster_->api().Handle(request);
    if (response.status != 201 && response.status != 200) {
      return Status::Internal(method + " " + path + ": HTTP " + std::to_string(response.status) + ": " +
                              response.body.substr(0, 300));
    }
    if (created) {
      boost::system::error_code ec;
      *created = api::ParseJson(response.body, ec);
      if (ec) return Status::Internal(method + " " + path + ": the answer is not JSON");
    }
    return Status::Ok();
  }

  Status Post(const std::string& path, const json::value& body, json::value* created = nullptr) {
    return Send("POST", path, body, "application/json", created);
  }

  // Creates objects from several threads, as scheduler_perf does: a durable
  // store commits concurrent writes together, so creation keeps ahead of the
  // scheduler instead of pacing it.
  Status PostMany(int64_t n, const std::function<Status(int64_t)>& post, int create_threads = kCreateThreads) {
    std::atomic<int64_t> next{0};
    std::mutex mu;
    Status first;
    std::vector<std::thread> threads;
    for (int t = 0; t < create_threads; ++t) {
      threads.emplace_back([&] {
        pthread_setname_np(pthread_self(), "perf-create");
        for (int64_t i; (i = next.fetch_add(1)) < n;) {
          Status s = post(i);
          if (!s.ok()) {
            std::lock_guard lock(mu);
            if (first.ok()) first = s;
            next = n;
          }
        }
      });
    }
    for (auto& t : threads) t.join();
    return first;
  }

  Status EnsureNamespace(const std::string& ns, const json::value* tmpl = nullptr) {
    if (namespaces_.count(ns)) return Status::Ok();
    json::object body =
        tmpl ? tmpl->as_object() : json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}};
    json::value& meta = body["metadata"];
    if (!meta.is_object()) meta = json::object();
    meta.as_object()["name"] = ns;
    meta.as_object().erase("generateName");
    Status s = Post("/api/v1/namespaces", body);
    if (!s.ok() && s.message().find("HTTP 409") == std::string::npos) return s;
    namespaces_.insert(ns);
    return Status::Ok();
  }

  // Moves the scheduler's bound-pod records into bound_, by namespace.
  // Returns the scheduler's bound count read before taking them (so that
  // every binding it counts is in bound_).
  uint64_t Refresh() {
    const uint64_t scheduled = Sched().stats().scheduled;
    for (auto& b : Sched().TakeBoundPods()) {
      bound_[b.key.substr(0, b.key.find('/'))].push_back(b.bound);
    }
    return scheduled;
  }

  size_t Bound(const std::string& ns) const {
    auto it = bound_.find(ns);
    return it == bound_.end() ? 0 : it->second.size();
  }

  // Until every pod created in `namespaces` is bound.
  Status WaitBound(const std::vector<std::string>& namespaces, const std::string& what) {
    const auto deadline = Clock::now() + o_.timeout;
    while (true) {
      const uint64_t scheduled = Refresh();
      uint64_t missing = 0;
      for (const auto& ns : namespaces) {
        const int64_t want = expected_[ns];
        missing +=
            static_cast<uint64_t>(std::max<int64_t>(0, want - static_cast<int64_t>(Bound(ns))));
      }
      if (missing == 0) return Status::Ok();
      if (Clock::now() >= deadline) {
        std::string detail;
        for (const auto& ns : namespaces) {
          detail += (detail.empty() ? "" : ", ") + ns + ": " + std::to_string(Bound(ns)) + " of " +
                    std::to_string(expected_[ns]);
        }
        return Status::Internal(what + ": pods still unbound after " +
                                std::to_string(o_.timeout.count()) +
                                " s (bound by namespace: " + detail + ")");
      }
      // The scheduler wakes this waiter only when its count reaches the
      // target, so waiting costs its threads nothing.
      Sched().WaitForScheduled(scheduled + missing,
                               std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
    }
  }

  Status RunOp(const Op& op, WorkloadResult& r) {
    if (op.opcode == "sleep") {
      const std::string text = op.node["duration"] ? op.node["duration"].as<std::string>() : "0";
      const auto duration = api::ParseGoDuration(text);
      if (!duration)
        return Status::BadRequest("sleep.duration " + text +
                                  ": expected a duration such as 500ms or 5s");
      std::this_thread::sleep_for(*duration);
      return Status::Ok();
    }
    if (op.opcode == "barrier") {
      std::vector<std::string> namespaces;
      for (const auto& [ns, count] : expected_) namespaces.push_back(ns);
      return WaitBound(namespaces, "barrier");
    }
    auto count = Count(op);
    if (!count.ok()) return count.status();
    if (op.opcode == "createNamespaces") return CreateNamespaces(op, count.value());
    if (op.opcode == "createNodes") return CreateNodes(op, count.value());
    return CreatePods(op, count.value(), r);
  }

  Status CreateNamespaces(const Op& op, int64_t count) {
    const std::string prefix =
        op.node["prefix"] ? op.node["prefix"].as<std::string>() : "namespace";
    json::value tmpl;
    if (op.node["namespaceTemplatePath"]) {
      auto t = templates_.Load(op.node["namespaceTemplatePath"].as<std::string>());
      if (!t.ok()) return t.status();
      tmpl = t.value();
    }
    // Namespace counts are part of a workload's shape: never scaled.
    const int64_t n = op.node["count"] ? op.node["count"].as<int64_t>() : count;
    for (int64_t i = 0; i < n; ++i) {
      if (Status s =
              EnsureNamespace(prefix + "-" + std::to_string(i), tmpl.is_null() ? nullptr : &tmpl);
          !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  }

  Status CreateNodes(const Op& op, int64_t count) {
    const std::string path = op.node["nodeTemplatePath"]
                                 ? op.node["nodeTemplatePath"].as<std::string>()
                                 : "config/node-default.yaml";
    auto tmpl = templates_.Load(path);
    if (!tmpl.ok()) return tmpl.status();
    std::string unique_key, label_key;
    std::vector<std::string> label_values;
    if (auto u = op.node["uniqueNodeLabelStrategy"]) unique_key = u["labelKey"].as<std::string>();
    if (auto l = op.node["labelNodePrepareStrategy"]) {
      label_key = l["labelKey"].as<std::string>();
      label_values = l["labelValues"].as<std::vector<std::string>>();
      if (label_values.empty())
        return Status::BadRequest("labelNodePrepareStrategy.labelValues is empty");
    }
    std::vector<json::value> nodes;
    for (int64_t i = 0; i < count; ++i) {
      json::value node = tmpl.value();
      json::value& meta = node.as_object()["metadata"];
      if (!meta.is_object()) meta = json::object();
      json::value& labels = meta.as_object()["labels"];
      if (!labels.is_object()) labels = json::object();
      if (!unique_key.empty()) labels.as_object()[unique_key] = "node-" + std::to_string(nodes_++);
      if (!label_key.empty()) {
        labels.as_object()[label_key] =
            label_values[std::uniform_int_distribution<size_t>(0, label_values.size() - 1)(rng_)];
      }
      nodes.push_back(std::move(node));
    }
    const YAML::Node allocatable = op.node["nodeAllocatableStrategy"];
    if (allocatable) {
      if (Status s = ApplyNodeAllocatable(allocatable, nodes); !s.ok()) return s;
    }
    return PostMany(count, [&](int64_t i) {
      json::value created;
      Status s = Post("/api/v1/nodes", nodes[static_cast<size_t>(i)], allocatable ? &created : nullptr);
      if (!s.ok() || !allocatable) return s;
      return CreateCSINode(allocatable, created);
    });
  }

  // kube's NodeAllocatableStrategy: extra allocatable on every node (beside
  // what its capacity gives it) ...
  Status ApplyNodeAllocatable(const YAML::Node& strategy, std::vector<json::value>& nodes) {
    for (json::value& node : nodes) {
      json::object& status = api::MutableObject(node.as_object(), "status");
      if (!status.contains("allocatable") && status.contains("capacity")) status["allocatable"] = status["capacity"];
      json::object& allocatable = api::MutableObject(status, "allocatable");
      if (const YAML::Node extra = strategy["nodeAllocatable"]) {
        for (const auto& kv : extra) allocatable[kv.first.as<std::string>()] = kv.second.as<std::string>();
      }
    }
    return Status::Ok();
  }

  // ... and a CSINode per node: each driver of csiNodeAllocatable with its
  // count, migratedPlugins in kube's storage.alpha.kubernetes.io/migrated-plugins.
  Status CreateCSINode(const YAML::Node& strategy, const json::value& node) {
    const std::string name(api::StringAt(api::ObjectAt(node.as_object(), "metadata"), "name"));
    json::array drivers;
    if (const YAML::Node csi = strategy["csiNodeAllocatable"]) {
      for (const auto& kv : csi) {
        json::object driver{{"name", kv.first.as<std::string>()}, {"nodeID", name}};
        if (kv.second["count"]) driver["allocatable"] = json::object{{"count", kv.second["count"].as<int64_t>()}};
        drivers.push_back(std::move(driver));
      }
    }
    json::object metadata{{"name", name}};
    if (const YAML::Node migrated = strategy["migratedPlugins"]) {
      std::string joined;
      for (const auto& p : migrated) joined += (joined.empty() ? "" : ",") + p.as<std::string>();
      metadata["annotations"] = json::object{{"storage.alpha.kubernetes.io/migrated-plugins", joined}};
    }
    return Post("/apis/storage.k8s.io/v1/csinodes",
                json::object{{"apiVersion", "storage.k8s.io/v1"},
                             {"kind", "CSINode"},
                             {"metadata", std::move(metadata)},
                             {"spec", json::object{{"drivers", std::move(drivers)}}}});
  }

  Status CreatePods(const Op& op, int64_t count, WorkloadResult& r) {
    auto tmpl = templates_.Load(PodTemplatePath(w_, op));
    if (!tmpl.ok()) return tmpl.status();
    const std::string ns = op.node["namespace"] ? op.node["namespace"].as<std::string>()
                                                : "namespace-" + std::to_string(op.index);
    if (Status s = EnsureNamespace(ns); !s.ok()) return s;
    const bool measure = op.node["collectMetrics"] && op.node["collectMetrics"].as<bool>();
    const bool wait =
        !(op.node["skipWaitToCompletion"] && op.node["skipWaitToCompletion"].as<bool>());
    if (measure)
      count = std::max<int64_t>(1, std::llround(static_cast<double>(count) * o_.measure_scale));

    // The phase starts before its pods are created, as kube's collectors do;
    // nothing earlier is waited for (skipWaitToCompletion pods keep being
    // attempted meanwhile).
    std::string before;
    if (measure) {
      Refresh();
      before = Sched().RenderMetrics();
    }
    const Clock::time_point start = Clock::now();
    const size_t bound_before = Bound(ns);
    expected_[ns] += count;
    const std::string path = "/api/v1/namespaces/" + ns + "/pods";
    json::value pv_tmpl, pvc_tmpl;
    if (op.node["persistentVolumeTemplatePath"] || op.node["persistentVolumeClaimTemplatePath"]) {
      if (!op.node["persistentVolumeTemplatePath"] || !op.node["persistentVolumeClaimTemplatePath"]) {
        return Status::BadRequest(
            "createPods: persistentVolumeTemplatePath and persistentVolumeClaimTemplatePath go together");
      }
      auto pv = templates_.Load(op.node["persistentVolumeTemplatePath"].as<std::string>());
      if (!pv.ok()) return pv.status();
      auto pvc = templates_.Load(op.node["persistentVolumeClaimTemplatePath"].as<std::string>());
      if (!pvc.ok()) return pvc.status();
      pv_tmpl = pv.value();
      pvc_tmpl = pvc.value();
    }
    Status status = PostMany(
        count,
        [&](int64_t i) {
          if (pv_tmpl.is_null()) return Post(path, tmpl.value());
          return CreatePodWithVolume(ns, i, tmpl.value(), pv_tmpl, pvc_tmpl);
        },
        pv_tmpl.is_null() ? kCreateThreads : kVolumeCreateThreads);
    if (!status.ok()) return status;
    // A measured op is waited for even with skipWaitToCompletion: its phase
    // ends with its last pod.
    if (wait || measure) status = WaitBound({ns}, "createPods in " + ns);
    if (!status.ok() || !measure) return status;

    const std::string after = Sched().RenderMetrics();
    std::vector<Clock::time_point> bound(
        bound_[ns].begin() + static_cast<std::ptrdiff_t>(bound_before), bound_[ns].end());
    const Clock::time_point end =
        bound.empty() ? start : *std::max_element(bound.begin(), bound.end());
    r.throughput_windows = ThroughputWindows(start, end, bound);
    r.scheduling_throughput = Summarize(r.throughput_windows);
    r.measured_pods = count;
    r.measured_seconds = std::chrono::duration<double>(end - start).count();
    if (r.measured_seconds > 0)
      r.phase_throughput = static_cast<double>(count) / r.measured_seconds;
    r.attempt_ms = HistogramSummary(HistogramBuckets(before, kAttemptDuration),
                                    HistogramBuckets(after, kAttemptDuration));
    r.pod_scheduling_ms = HistogramSummary(HistogramBuckets(before, kPodSchedulingDuration),
                                           HistogramBuckets(after, kPodSchedulingDuration));
    return Status::Ok();
  }

  // scheduler_perf's CreatePodWithPersistentVolume (bindVolume true): claim
  // "pvc-<i>" and volume "<namespace>-vol-<i>" bound to each other from the
  // start (claim spec.volumeName, volume claimRef, phases Bound written as
  // status), and the pod using the claim as its only volume, "vol"; in that
  // order, per pod, by 30 threads. The volume's CSI volumeHandle is its name,
  // an EBS volumeID "vol-<i>".
  Status CreatePodWithVolume(const std::string& ns, int64_t i, const json::value& pod_tmpl, const json::value& pv_tmpl,
                             const json::value& pvc_tmpl) {
    const std::string claim = "pvc-" + std::to_string(i);
    const std::string volume_id = "vol-" + std::to_string(i);
    const std::string volume = ns + "-" + volume_id;
    json::object pvc = pvc_tmpl.as_object();
    api::MutableObject(pvc, "metadata")["name"] = claim;
    api::MutableObject(pvc, "spec")["volumeName"] = volume;
    json::object pv = pv_tmpl.as_object();
    api::MutableObject(pv, "metadata")["name"] = volume;
    json::object& pv_spec = api::MutableObject(pv, "spec");
    if (pv_spec.contains("csi")) api::MutableObject(pv_spec, "csi")["volumeHandle"] = volume;
    if (pv_spec.contains("awsElasticBlockStore")) api::MutableObject(pv_spec, "awsElasticBlockStore")["volumeID"] = volume_id;
    pv_spec["claimRef"] = json::object{
        {"kind", "PersistentVolumeClaim"}, {"namespace", ns}, {"name", claim}, {"apiVersion", "v1"}};
    const json::object bound{{"status", json::object{{"phase", "Bound"}}}};
    // The claim first: the volume refers to it.
    const std::string claims = "/api/v1/namespaces/" + ns + "/persistentvolumeclaims";
    if (Status s = Post(claims, pvc); !s.ok()) return s;
    if (Status s = Send("PATCH", claims + "/" + claim + "/status", bound, "application/merge-patch+json"); !s.ok()) {
      return s;
    }
    if (Status s = Post("/api/v1/persistentvolumes", pv); !s.ok()) return s;
    if (Status s = Send("PATCH", "/api/v1/persistentvolumes/" + volume + "/status", bound,
                        "application/merge-patch+json");
        !s.ok()) {
      return s;
    }
    json::object pod = pod_tmpl.as_object();
    api::MutableObject(pod, "spec")["volumes"] =
        json::array{json::object{{"name", "vol"}, {"persistentVolumeClaim", json::object{{"claimName", claim}}}}};
    return Post("/api/v1/namespaces/" + ns + "/pods", pod);
  }

  const PerfOptions& o_;
  const Workload& w_;
  Templates templates_;
  std::unique_ptr<cluster::InProcessCluster> cluster_;
  std::set<std::string> namespaces_{"default", "kube-system", "kube-public", "kube-node-lease"};
  std::map<std::string, int64_t> expected_;                      // namespace → pods created
  std::map<std::string, std::vector<Clock::time_point>> bound_;  // namespace → bound times
  std::mt19937_64 rng_;
  int64_t nodes_ = 0;
};

}  // namespace

WorkloadResult RunWorkload(const PerfOptions& options, const Workload& workload) {
  return Runner(options, workload).Run();
}

}  // namespace berth::perf
