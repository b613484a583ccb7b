// berth perf: runs kube-scheduler's own benchmark workloads (scheduler_perf's
// performance-config.yaml and its templates, unchanged) against a fresh
// in-process berth per workload — the API server's create semantics over a
// durable store, and the scheduler; no kubelets, as in scheduler_perf — and
// reports what scheduler_perf reports: SchedulingThroughput over 1-second
// windows and the scheduling attempt / pod scheduling duration percentiles,
// as a table or as scheduler_perf's JSON document.
//
// An op or field berth does not support makes its workload report
// "unsupported: <what>" instead of a number.

#include <pthread.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <boost/json.hpp>
#include <yaml-cpp/yaml.h>

#include "apiserver/api_server.h"
#include "cmd/commands.h"
#include "cmd/process_stats.h"
#include "cluster/in_process_cluster.h"
#include "store/memory/memory_store.h"

namespace berth::cmd {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct PerfOptions {
  std::string config;
  std::vector<std::string> workloads;  // NAME or NAME/SIZE (SIZE may be a prefix, e.g. 500Nodes)
  bool json_output = false;
  double scale = 1.0;
  int concurrent = 2;
  uint64_t seed = 1;
  int timeout_seconds = 600;
};

struct Op {
  std::string opcode;
  YAML::Node node;
  int index = 0;
};

struct Workload {
  std::string test_case, size;
  std::string default_pod_template;
  std::vector<Op> ops;
  std::map<std::string, int64_t> params;
  std::string Name() const { return test_case + "/" + size; }
};

struct Percentiles {
  double average = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0;
};

struct Result_ {
  std::string name;
  std::string unsupported;  // set: no figures
  std::string error;
  Percentiles throughput;
  Percentiles attempt_ms, pod_scheduling_ms;
  int64_t measured_pods = 0;
  double measured_seconds = 0;
  int64_t peak_rss_bytes = 0;
};

// YAML → JSON as Kubernetes reads manifests: quoted scalars are strings,
// plain ones become bools, integers, numbers or null when they look like it.
json::value YamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json::object o;
      for (const auto& kv : n) o[kv.first.as<std::string>()] = YamlToJson(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json::array a;
      for (const auto& e : n) a.push_back(YamlToJson(e));
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return json::string(s);  // quoted
      if (s == "true" || s == "True") return true;
      if (s == "false" || s == "False") return false;
      if (s == "null" || s == "~") return nullptr;
      char* end = nullptr;
      long long i = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && end && *end == '\0') return static_cast<int64_t>(i);
      double d = std::strtod(s.c_str(), &end);
      if (!s.empty() && end && *end == '\0') return d;
      return json::string(s);
    }
    default:
      return nullptr;
  }
}



Percentiles Summarize(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  p.average = sum / static_cast<double>(v.size());
  auto at = [&](double q) {
    size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
    return v[std::min(i, v.size() - 1)];
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p95 = at(0.95);
  p.p99 = at(0.99);
  return p;
}

// A histogram's buckets summed over label sets, from the Prometheus text.
std::map<double, double> HistogramBuckets(const std::string& text, const std::string& name) {
  std::map<double, double> buckets;  // le → cumulative count
  std::istringstream in(text);
  std::string line;
  std::string prefix = name + "_bucket{";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    // The le label ("profile=" also ends in le=, hence the separator).
    auto le = line.find(",le=\"");
    if (le == std::string::npos) le = line.find("{le=\"");
    if (le == std::string::npos) continue;
    le += 1;
    auto close = line.find('"', le + 4);
    auto space = line.rfind(' ');
    if (close == std::string::npos || space == std::string::npos) continue;
    std::string bound = line.substr(le + 4, close - le - 4);
    double b = bound == "+Inf" ? INFINITY : std::stod(bound);
    buckets[b] += std::stod(line.substr(space + 1));
  }
  return buckets;
}

// Prometheus' histogram_quantile over the difference of two scrapes (what
// scheduler_perf does with the scheduler's histograms), in milliseconds.
Percentiles HistogramPercentiles(const std::map<double, double>& before, const std::map<double, double>& after) {
  std::vector<std::pair<double, double>> b;  // (le, count in the phase)
  for (const auto& [le, count] : after) {
    auto it = before.find(le);
    b.emplace_back(le, count - (it == before.end() ? 0 : it->second));
  }
  Percentiles p;
  if (b.empty() || b.back().second <= 0) return p;
  double total = b.back().second;
  auto quantile = [&](double q) {
    double rank = q * total;
    double lower_bound = 0, lower_count = 0;
    for (const auto& [le, count] : b) {
      if (count >= rank) {
        if (std::isinf(le)) return lower_bound;
        if (count == lower_count) return le;
        return lower_bound + (le - lower_bound) * (rank - lower_count) / (count - lower_count);
      }
      lower_bound = le;
      lower_count = count;
    }
    return lower_bound;
  };
  p.p50 = quantile(0.50) * 1000;
  p.p90 = quantile(0.90) * 1000;
  p.p95 = quantile(0.95) * 1000;
  p.p99 = quantile(0.99) * 1000;
  return p;
}

class Runner {
 public:
  Runner(const PerfOptions& o, const Workload& w, const fs::path& dir) : o_(o), w_(w), dir_(dir) {}

  // Checks the workload for what berth cannot run; "" when it can.
  std::string Unsupported() {
    for (const auto& op : w_.ops) {
      static const std::set<std::string> kOps = {"createNodes", "createNamespaces", "createPods", "barrier", "sleep"};
      if (!kOps.count(op.opcode)) return "op " + op.opcode;
      for (const auto& kv : op.node) {
        std::string key = kv.first.as<std::string>();
        static const std::set<std::string> kKnown = {
            "opcode", "count", "countParam", "nodeTemplatePath", "uniqueNodeLabelStrategy",
            "labelNodePrepareStrategy", "prefix", "namespaceTemplatePath", "podTemplatePath", "namespace",
            "collectMetrics", "skipWaitToCompletion", "duration"};
        if (key == "persistentVolumeTemplatePath" || key == "persistentVolumeClaimTemplatePath") {
          return op.opcode + "." + key + " (volume binding is not in berth's scheduler yet)";
        }
        if (!kKnown.count(key)) return op.opcode + "." + key;
      }
      if (op.opcode == "createPods") {
        auto tmpl = Template(PodTemplatePath(op));
        if (!tmpl.ok()) return tmpl.status().message();
        const auto* spec = tmpl.value().as_object().if_contains("spec");
        if (spec && spec->is_object() && (spec->as_object().contains("priority") ||
                                          spec->as_object().contains("priorityClassName"))) {
          return "pod priority (preemption is not in berth's scheduler yet)";
        }
      }
    }
    return "";
  }

  Result_ Run() {
    Result_ r;
    r.name = w_.Name();
    ResetPeakRss();
    cluster::ClusterOptions options;
    options.data_dir = (dir_ / "data").string();
    options.watch_history = 1'000'000;
    options.api.seed = o_.seed;
    options.scheduler_options.concurrent = o_.concurrent;
    options.scheduler_options.seed = o_.seed;
    options.controllers.controllers.clear();  // scheduler_perf runs no controllers
    auto created = cluster::InProcessCluster::Create(std::move(options));
    if (!created.ok()) return Fail(r, created.status().message());
    cluster_ = std::move(created).value();
    api_ = &cluster_->api();
    if (Status s = cluster_->Start(); !s.ok()) return Fail(r, s.message());
    rng_.seed(o_.seed);

    Status status;
    for (const auto& op : w_.ops) {
      status = RunOp(op, r);
      if (!status.ok()) break;
    }
    cluster_->Stop();
    r.peak_rss_bytes = PeakRssBytes();
    if (!status.ok()) return Fail(r, status.message());
    return r;
  }

 private:
  Result_ Fail(Result_& r, const std::string& message) {
    r.error = message;
    if (cluster_) cluster_->Stop();
    return r;
  }

  std::string PodTemplatePath(const Op& op) const {
    return op.node["podTemplatePath"] ? op.node["podTemplatePath"].as<std::string>() : w_.default_pod_template;
  }

  // Template paths in the file read "config/x.yaml" (relative to kube's test
  // directory): tried beside the config file as written, then by base name.
  Result<json::value> Template(const std::string& path) {
    if (path.empty()) return Status::BadRequest("no pod template (podTemplatePath or defaultPodTemplatePath)");
    auto cached = templates_.find(path);
    if (cached != templates_.end()) return cached->second;
    fs::path base = fs::path(o_.config).parent_path();
    fs::path found;
    for (const fs::path& p : {base / path, base / fs::path(path).filename()}) {
      if (fs::exists(p)) {
        found = p;
        break;
      }
    }
    if (found.empty()) return Status::NotFound(o_.config + ": template " + path + " not found");
    try {
      json::value v = YamlToJson(YAML::LoadFile(found.string()));
      if (!v.is_object()) return Status::BadRequest(found.string() + ": not a map");
      templates_[path] = v;
      return v;
    } catch (const YAML::Exception& e) {
      return Status::BadRequest(found.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
  }

  Result<int64_t> Count(const Op& op) const {
    int64_t count = 0;
    if (op.node["countParam"]) {
      std::string param = op.node["countParam"].as<std::string>();
      if (param.empty() || param[0] != '$') return Status::BadRequest("countParam " + param + ": expected $name");
      auto it = w_.params.find(param.substr(1));
      if (it == w_.params.end()) return Status::BadRequest("countParam " + param + ": no such param in " + w_.size);
      count = it->second;
    } else if (op.node["count"]) {
      count = op.node["count"].as<int64_t>();
    } else {
      return Status::BadRequest(op.opcode + ": count or countParam is required");
    }
    // --scale shrinks every count (CI smoke runs); never below one.
    return std::max<int64_t>(1, static_cast<int64_t>(std::llround(static_cast<double>(count) * o_.scale)));
  }

  Status Post(const std::string& path, const json::value& body) {
    apiserver::Request request;
    request.method = "POST";
    request.path = path;
    request.content_type = "application/json";
    request.accept = "application/json";
    request.body = json::serialize(body);
    request.trusted = true;
    auto response = api_->Handle(request);
    if (response.status != 201 && response.status != 200) {
      return Status::Internal("POST " + path + ": HTTP " + std::to_string(response.status) + ": " +
                              response.body.substr(0, 300));
    }
    return Status::Ok();
  }

  // Creates objects from 16 threads, as scheduler_perf's createPodsRapidly
  // does: a durable store commits concurrent writes together, so creation
  // keeps ahead of the scheduler instead of pacing it.
  Status PostMany(int64_t n, const std::function<Status(int64_t)>& post) {
    std::atomic<int64_t> next{0};
    std::mutex mu;
    Status first;
    auto work = [&] {
      for (int64_t i; (i = next.fetch_add(1)) < n;) {
        Status s = post(i);
        if (!s.ok()) {
          std::lock_guard lock(mu);
          if (first.ok()) first = s;
          next = n;
        }
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t) {
      threads.emplace_back([&] {
        pthread_setname_np(pthread_self(), "perf-create");
        work();
      });
    }
    for (auto& t : threads) t.join();
    return first;
  }

  Status EnsureNamespace(const std::string& ns, const json::value* tmpl = nullptr) {
    if (namespaces_.count(ns)) return Status::Ok();
    json::object body = tmpl ? tmpl->as_object() : json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}};
    json::value& meta = body["metadata"];
    if (!meta.is_object()) meta = json::object();
    meta.as_object()["name"] = ns;
    meta.as_object().erase("generateName");
    Status s = Post("/api/v1/namespaces", body);
    if (!s.ok() && s.message().find("HTTP 409") == std::string::npos) return s;
    namespaces_.insert(ns);
    return Status::Ok();
  }

  Status WaitScheduled(uint64_t target, const std::string& what) {
    auto deadline = Clock::now() + std::chrono::seconds(o_.timeout_seconds);
    auto& sched = *cluster_->scheduler();
    while (sched.stats().scheduled < target) {
      if (Clock::now() > deadline) {
        return Status::Internal(what + ": " + std::to_string(sched.stats().scheduled) + " of " +
                                std::to_string(target) + " pods scheduled after " +
                                std::to_string(o_.timeout_seconds) + " s");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return Status::Ok();
  }

  Status RunOp(const Op& op, Result_& r) {
    if (op.opcode == "sleep") {
      std::string d = op.node["duration"] ? op.node["duration"].as<std::string>() : "0s";
      std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(std::stod(d) * 1000)));
      return Status::Ok();
    }
    if (op.opcode == "barrier") return WaitScheduled(expected_scheduled_, "barrier");
    auto count = Count(op);
    if (!count.ok()) return count.status();
    if (op.opcode == "createNamespaces") {
      std::string prefix = op.node["prefix"] ? op.node["prefix"].as<std::string>() : "namespace";
      json::value tmpl;
      if (op.node["namespaceTemplatePath"]) {
        auto t = Template(op.node["namespaceTemplatePath"].as<std::string>());
        if (!t.ok()) return t.status();
        tmpl = t.value();
      }
      // Namespace counts are part of a workload's shape: never scaled.
      int64_t n = op.node["count"] ? op.node["count"].as<int64_t>() : count.value();
      for (int64_t i = 0; i < n; ++i) {
        if (Status s = EnsureNamespace(prefix + "-" + std::to_string(i), tmpl.is_null() ? nullptr : &tmpl); !s.ok()) {
          return s;
        }
      }
      return Status::Ok();
    }
    if (op.opcode == "createNodes") {
      std::string path = op.node["nodeTemplatePath"] ? op.node["nodeTemplatePath"].as<std::string>()
                                                     : "config/node-default.yaml";
      auto tmpl = Template(path);
      if (!tmpl.ok()) return tmpl.status();
      std::string unique_key, label_key;
      std::vector<std::string> label_values;
      if (auto u = op.node["uniqueNodeLabelStrategy"]) unique_key = u["labelKey"].as<std::string>();
      if (auto l = op.node["labelNodePrepareStrategy"]) {
        label_key = l["labelKey"].as<std::string>();
        label_values = l["labelValues"].as<std::vector<std::string>>();
        if (label_values.empty()) return Status::BadRequest("labelNodePrepareStrategy.labelValues is empty");
      }
      std::vector<json::value> nodes;
      for (int64_t i = 0; i < count.value(); ++i) {
        json::value node = tmpl.value();
        json::value& meta = node.as_object()["metadata"];
        if (!meta.is_object()) meta = json::object();
        json::value& labels = meta.as_object()["labels"];
        if (!labels.is_object()) labels = json::object();
        if (!unique_key.empty()) labels.as_object()[unique_key] = "node-" + std::to_string(nodes_++);
        if (!label_key.empty()) {
          labels.as_object()[label_key] = label_values[std::uniform_int_distribution<size_t>(
              0, label_values.size() - 1)(rng_)];
        }
        nodes.push_back(std::move(node));
      }
      return PostMany(count.value(), [&](int64_t i) { return Post("/api/v1/nodes", nodes[static_cast<size_t>(i)]); });
    }
    // createPods
    auto tmpl = Template(PodTemplatePath(op));
    if (!tmpl.ok()) return tmpl.status();
    std::string ns = op.node["namespace"] ? op.node["namespace"].as<std::string>()
                                          : "namespace-" + std::to_string(op.index);
    if (Status s = EnsureNamespace(ns); !s.ok()) return s;
    bool measure = op.node["collectMetrics"] && op.node["collectMetrics"].as<bool>();
    bool wait = !(op.node["skipWaitToCompletion"] && op.node["skipWaitToCompletion"].as<bool>());
    auto& sched = *cluster_->scheduler();
    uint64_t target = sched.stats().scheduled + static_cast<uint64_t>(count.value());

    std::string before;
    std::atomic<bool> sampling{false};
    std::vector<double> samples;
    std::thread sampler;
    Clock::time_point start;
    if (measure) {
      // Settle what earlier ops started, then measure this op alone.
      sched.WaitForIdle(Clock::now() + std::chrono::seconds(o_.timeout_seconds));
      before = sched.RenderMetrics();
      start = Clock::now();
      sampling = true;
      // One sample per 1-second window, as scheduler_perf's throughput
      // collector takes them; the last, partial window counts too (a phase
      // berth finishes in a fraction of a second would otherwise be one
      // window reading "pods per whole second").
      sampler = std::thread([&] {
        uint64_t last = sched.stats().scheduled;
        auto tick = Clock::now();
        auto sample = [&](Clock::time_point now) {
          uint64_t scheduled = sched.stats().scheduled;
          samples.push_back(static_cast<double>(scheduled - last) / std::chrono::duration<double>(now - tick).count());
          last = scheduled;
          tick = now;
        };
        while (sampling) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          auto now = Clock::now();
          if (now - tick >= std::chrono::seconds(1)) sample(now);
        }
        auto now = Clock::now();
        if (samples.empty() || now - tick >= std::chrono::milliseconds(100)) sample(now);
      });
    }
    const std::string path = "/api/v1/namespaces/" + ns + "/pods";
    Status status = PostMany(count.value(), [&](int64_t) { return Post(path, tmpl.value()); });
    if (status.ok() && wait) status = WaitScheduled(target, "createPods");
    if (wait) expected_scheduled_ = std::max<uint64_t>(expected_scheduled_, target);
    if (measure) {
      sampling = false;
      sampler.join();
      double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (!status.ok()) return status;
      r.throughput = Summarize(samples);
      r.measured_pods = count.value();
      r.measured_seconds = seconds;
      std::string after = sched.RenderMetrics();
      r.attempt_ms = HistogramPercentiles(HistogramBuckets(before, "scheduler_scheduling_attempt_duration_seconds"),
                                          HistogramBuckets(after, "scheduler_scheduling_attempt_duration_seconds"));
      r.pod_scheduling_ms = HistogramPercentiles(HistogramBuckets(before, "scheduler_pod_scheduling_duration_seconds"),
                                                 HistogramBuckets(after, "scheduler_pod_scheduling_duration_seconds"));
    }
    return status;
  }

  const PerfOptions& o_;
  const Workload& w_;
  fs::path dir_;
  std::unique_ptr<cluster::InProcessCluster> cluster_;
  apiserver::ApiServer* api_ = nullptr;
  std::map<std::string, json::value> templates_;
  std::set<std::string> namespaces_{"default", "kube-system", "kube-public", "kube-node-lease"};
  std::mt19937_64 rng_;
  int64_t nodes_ = 0;
  uint64_t expected_scheduled_ = 0;
};

Result<std::vector<Workload>> LoadConfig(const PerfOptions& o) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(o.config);
  } catch (const YAML::BadFile&) {
    return Status::NotFound("--config " + o.config + ": cannot be read");
  } catch (const YAML::Exception& e) {
    return Status::BadRequest("--config " + o.config + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsSequence()) return Status::BadRequest("--config " + o.config + ": expected a list of test cases");
  std::vector<Workload> out;
  try {
    for (const auto& tc : root) {
      auto at = [&](const YAML::Node& n) { return o.config + ":" + std::to_string(n.Mark().line + 1) + ": "; };
      if (!tc["name"] || !tc["workloadTemplate"] || !tc["workloads"]) {
        return Status::BadRequest(at(tc) + "a test case needs name, workloadTemplate and workloads");
      }
      std::vector<Op> ops;
      int index = 0;
      for (const auto& op : tc["workloadTemplate"]) {
        if (!op["opcode"]) return Status::BadRequest(at(op) + "an op needs an opcode");
        ops.push_back({op["opcode"].as<std::string>(), op, index++});
      }
      for (const auto& w : tc["workloads"]) {
        Workload workload;
        workload.test_case = tc["name"].as<std::string>();
        workload.size = w["name"].as<std::string>();
        workload.default_pod_template = tc["defaultPodTemplatePath"] ? tc["defaultPodTemplatePath"].as<std::string>() : "";
        workload.ops = ops;
        if (w["params"]) {
          for (const auto& p : w["params"]) workload.params[p.first.as<std::string>()] = p.second.as<int64_t>();
        }
        out.push_back(std::move(workload));
      }
    }
  } catch (const YAML::Exception& e) {
    return Status::BadRequest("--config " + o.config + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return out;
}

bool Selected(const PerfOptions& o, const Workload& w) {
  if (o.workloads.empty()) return true;
  for (const auto& sel : o.workloads) {
    auto slash = sel.find('/');
    if (sel.substr(0, slash) != w.test_case) continue;
    if (slash == std::string::npos || w.size.rfind(sel.substr(slash + 1), 0) == 0) return true;
  }
  return false;
}

json::object Items(const Percentiles& p, bool with_average) {
  json::object d{{"Perc50", p.p50}, {"Perc90", p.p90}, {"Perc95", p.p95}, {"Perc99", p.p99}};
  if (with_average) d["Average"] = p.average;
  return d;
}

int Perf(const PerfOptions& o) {
  if (o.scale <= 0 || o.scale > 1) {
    std::fprintf(stderr, "berth perf: --scale %g: must be in (0, 1]\n", o.scale);
    return 2;
  }
  auto loaded = LoadConfig(o);
  if (!loaded.ok()) {
    std::fprintf(stderr, "berth perf: %s\n", loaded.status().message().c_str());
    return 2;
  }
  std::vector<const Workload*> selected;
  for (const auto& w : loaded.value()) {
    if (Selected(o, w)) selected.push_back(&w);
  }
  for (const auto& sel : o.workloads) {
    bool any = std::any_of(loaded.value().begin(), loaded.value().end(), [&](const Workload& w) {
      PerfOptions one = o;
      one.workloads = {sel};
      return Selected(one, w);
    });
    if (!any) {
      std::fprintf(stderr, "berth perf: --workload %s: no such test case or size in %s\n", sel.c_str(),
                   o.config.c_str());
      return 2;
    }
  }
  std::vector<Result_> results;
  for (const Workload* w : selected) {
    char dir_template[] = "/tmp/berth-perf-XXXXXX";
    if (!mkdtemp(dir_template)) {
      std::fprintf(stderr, "berth perf: cannot create a temporary directory\n");
      return 1;
    }
    Runner runner(o, *w, dir_template);
    std::string unsupported = runner.Unsupported();
    if (!unsupported.empty()) {
      Result_ r;
      r.name = w->Name();
      r.unsupported = unsupported;
      results.push_back(r);
    } else {
      results.push_back(runner.Run());
    }
    std::error_code ec;
    fs::remove_all(dir_template, ec);
    if (!o.json_output) {
      const auto& r = results.back();
      if (!r.unsupported.empty()) {
        std::fprintf(stderr, "%-60s unsupported: %s\n", r.name.c_str(), r.unsupported.c_str());
      } else if (!r.error.empty()) {
        std::fprintf(stderr, "%-60s error: %s\n", r.name.c_str(), r.error.c_str());
      }
    }
  }
  int status = 0;
  if (o.json_output) {
    json::array items, unsupported;
    for (const auto& r : results) {
      if (!r.unsupported.empty() || !r.error.empty()) {
        unsupported.push_back(json::object{{"Name", r.name},
                                           {"reason", r.unsupported.empty() ? "error: " + r.error
                                                                            : "unsupported: " + r.unsupported}});
        continue;
      }
      items.push_back(json::object{{"data", Items(r.throughput, true)},
                                   {"unit", "pods/s"},
                                   {"labels", json::object{{"Metric", "SchedulingThroughput"}, {"Name", r.name}}}});
      items.push_back(json::object{
          {"data", Items(r.attempt_ms, false)},
          {"unit", "ms"},
          {"labels", json::object{{"Metric", "scheduler_scheduling_attempt_duration_seconds"}, {"Name", r.name}}}});
      items.push_back(json::object{
          {"data", Items(r.pod_scheduling_ms, false)},
          {"unit", "ms"},
          {"labels", json::object{{"Metric", "scheduler_pod_scheduling_duration_seconds"}, {"Name", r.name}}}});
      items.push_back(json::object{{"data", json::object{{"Value", r.peak_rss_bytes}}},
                                   {"unit", "bytes"},
                                   {"labels", json::object{{"Metric", "PeakRSS"}, {"Name", r.name}}}});
    }
    json::object doc{{"version", "v1"}, {"dataItems", std::move(items)}};
    if (!unsupported.empty()) doc["unsupported"] = std::move(unsupported);
    std::printf("%s\n", json::serialize(doc).c_str());
  } else {
    std::printf("%-52s %9s %9s %9s %12s %12s %9s\n", "workload", "avg pod/s", "p50 pod/s", "p99 pod/s",
                "attempt p99", "e2e p99 ms", "RSS MiB");
    for (const auto& r : results) {
      if (!r.unsupported.empty()) {
        std::printf("%-52s unsupported: %s\n", r.name.c_str(), r.unsupported.c_str());
      } else if (!r.error.empty()) {
        std::printf("%-52s error: %s\n", r.name.c_str(), r.error.c_str());
      } else {
        std::printf("%-52s %9.0f %9.0f %9.0f %9.3f ms %12.3f %9.1f\n", r.name.c_str(), r.throughput.average,
                    r.throughput.p50, r.throughput.p99, r.attempt_ms.p99, r.pod_scheduling_ms.p99,
                    static_cast<double>(r.peak_rss_bytes) / (1 << 20));
      }
    }
  }
  for (const auto& r : results) {
    if (!r.error.empty()) status = 1;
  }
  return status;
}

}  // namespace

void AddPerfCommand(CLI::App& app) {
  static PerfOptions o;
  auto* perf = app.add_subcommand("perf", "Run kube-scheduler's scheduler_perf workloads against berth");
  perf->add_option("--config", o.config, "scheduler_perf's performance-config.yaml (templates beside it)")
      ->required();
  perf->add_option("--workload", o.workloads,
                   "TESTCASE or TESTCASE/SIZE (a size prefix such as 500Nodes matches 500Nodes/200InitPods); "
                   "repeatable; default: all");
  perf->add_flag("--json", o.json_output, "Print scheduler_perf's JSON document ({\"version\":\"v1\",\"dataItems\":…})");
  perf->add_option("--scale", o.scale, "Multiply every node and pod count (smoke runs)")->capture_default_str();
  perf->add_option("--concurrent", o.concurrent, "Scheduling cycles at once")->capture_default_str();
  perf->add_option("--seed", o.seed, "Seed for names, label choices and scheduling")->capture_default_str();
  perf->add_option("--timeout", o.timeout_seconds, "Give up on a wait after this many seconds")->capture_default_str();
  perf->callback([] { SetExitCode(Perf(o)); });
}

}  // namespace berth::cmd
