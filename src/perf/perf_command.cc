#include "perf/perf_command.h"

#include <algorithm>
#include <boost/json.hpp>

namespace berth::perf {
namespace {

namespace json = boost::json;

json::object Percentiles(const Summary& s, bool with_average) {
  json::object d{{"Perc50", s.p50}, {"Perc90", s.p90}, {"Perc95", s.p95}, {"Perc99", s.p99}};
  if (with_average) d["Average"] = s.average;
  return d;
}

json::object Item(json::object data, const std::string& unit, const std::string& metric,
                  const std::string& name) {
  return json::object{{"data", std::move(data)},
                      {"unit", unit},
                      {"labels", json::object{{"Metric", metric}, {"Name", name}}}};
}

}  // namespace

std::string NoWindowNote(const WorkloadResult& r) {
  if (r.scheduling_throughput.count > 0) return "";
  char text[256];
  std::snprintf(text, sizeof text,
                "SchedulingThroughput: no complete 1 s window (the measured phase, %lld pods, "
                "lasted %.3f s); "
                "PhaseThroughput is the phase's own rate; --measure-scale lengthens the phase",
                static_cast<long long>(r.measured_pods), r.measured_seconds);
  return text;
}

std::string PerfTable(const std::vector<WorkloadResult>& results) {
  std::string text =
      "SchedulingThroughput: kube's statistic, 1 s windows (the first skipped, no partial "
      "window);\n"
      "PhaseThroughput: the measured pods / (phase start → last bound)\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-48s %-30s %12s %16s %12s %12s %8s\n", "workload",
                "SchedulingThroughput pods/s", "Phase pods/s", "phase", "attempt p99",
                "pod sched p99", "RSS MiB");
  text += line;
  for (const auto& r : results) {
    if (!r.unsupported.empty()) {
      text += r.name + std::string(r.name.size() < 48 ? 48 - r.name.size() : 0, ' ') +
              " unsupported: " + r.unsupported + "\n";
      continue;
    }
    if (!r.error.empty()) {
      text += r.name + std::string(r.name.size() < 48 ? 48 - r.name.size() : 0, ' ') +
              " error: " + r.error + "\n";
      continue;
    }
    char windows[64];
    if (r.scheduling_throughput.count > 0) {
      std::snprintf(windows, sizeof windows, "avg %.0f p50 %.0f (%zu windows)",
                    r.scheduling_throughput.average, r.scheduling_throughput.p50,
                    r.scheduling_throughput.count);
    } else {
      std::snprintf(windows, sizeof windows, "no complete 1 s window");
    }
    char phase[64];
    std::snprintf(phase, sizeof phase, "%lld in %.3f s", static_cast<long long>(r.measured_pods),
                  r.measured_seconds);
    std::snprintf(line, sizeof line, "%-48s %-30s %12.0f %16s %9.3f ms %9.3f ms %8.1f\n",
                  r.name.c_str(), windows, r.phase_throughput, phase, r.attempt_ms.p99,
                  r.pod_scheduling_ms.p99, static_cast<double>(r.peak_rss_bytes) / (1 << 20));
    text += line;
  }
  return text;
}

std::string PerfJson(const std::vector<WorkloadResult>& results) {
  json::array items, unsupported, notes;
  for (const auto& r : results) {
    if (!r.unsupported.empty() || !r.error.empty()) {
      unsupported.push_back(
          json::object{{"Name", r.name},
                       {"reason", r.unsupported.empty() ? "error: " + r.error
                                                        : "unsupported: " + r.unsupported}});
      continue;
    }
    if (r.scheduling_throughput.count > 0) {
      items.push_back(Item(Percentiles(r.scheduling_throughput, true), "pods/s",
                           "SchedulingThroughput", r.name));
    } else {
      notes.push_back(json::object{{"Name", r.name}, {"note", NoWindowNote(r)}});
    }
    items.push_back(Item(json::object{{"Value", r.phase_throughput},
                                      {"Pods", static_cast<double>(r.measured_pods)},
                                      {"Seconds", r.measured_seconds}},
                         "pods/s", "PhaseThroughput", r.name));
    items.push_back(Item(Percentiles(r.attempt_ms, false), "ms",
                         "scheduler_scheduling_attempt_duration_seconds", r.name));
    items.push_back(Item(Percentiles(r.pod_scheduling_ms, false), "ms",
                         "scheduler_pod_scheduling_duration_seconds", r.name));
    items.push_back(Item(json::object{{"Value", static_cast<double>(r.peak_rss_bytes)}}, "bytes",
                         "PeakRSS", r.name));
  }
  json::object doc{{"version", "v1"}, {"dataItems", std::move(items)}};
  if (!unsupported.empty()) doc["unsupported"] = std::move(unsupported);
  if (!notes.empty()) doc["notes"] = std::move(notes);
  return json::serialize(doc);
}

int Perf(const PerfFlags& f, std::FILE* out, std::FILE* err) {
  auto fail = [&](const std::string& message) {
    std::fprintf(err, "berth perf: %s\n", message.c_str());
    return 2;
  };
  if (!(f.scale > 0 && f.scale <= 1))
    return fail("--scale " + std::to_string(f.scale) + ": must be in (0, 1]");
  if (!(f.measure_scale >= 1))
    return fail("--measure-scale " + std::to_string(f.measure_scale) + ": must be at least 1");
  if (f.concurrent < 1) return fail("--concurrent must be at least 1");
  auto loaded = LoadWorkloads(f.config);
  if (!loaded.ok()) return fail("--config " + loaded.status().message());
  for (const auto& selector : f.workloads) {
    if (std::none_of(loaded->begin(), loaded->end(),
                     [&](const Workload& w) { return Selects(selector, w); })) {
      return fail("--workload " + selector + ": no such test case or size in " + f.config);
    }
  }
  PerfOptions options;
  options.config = f.config;
  options.scale = f.scale;
  options.measure_scale = f.measure_scale;
  options.concurrent = f.concurrent;
  options.seed = f.seed;
  options.timeout = std::chrono::seconds(f.timeout_seconds);
  std::vector<WorkloadResult> results;
  for (const auto& w : loaded.value()) {
    if (!f.workloads.empty() && std::none_of(f.workloads.begin(), f.workloads.end(),
                                             [&](const std::string& s) { return Selects(s, w); })) {
      continue;
    }
    results.push_back(RunWorkload(options, w));
    const auto& r = results.back();
    if (!f.json && !r.error.empty())
      std::fprintf(err, "%s error: %s\n", r.name.c_str(), r.error.c_str());
  }
  std::fputs(f.json ? (PerfJson(results) + "\n").c_str() : PerfTable(results).c_str(), out);
  return std::any_of(results.begin(), results.end(),
                     [](const WorkloadResult& r) { return !r.error.empty(); })
             ? 1
             : 0;
}

}  // namespace berth::perf
