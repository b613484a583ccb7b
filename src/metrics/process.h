#pragma once
// The process_* metrics Prometheus' client libraries export, read from /proc
// at scrape time: process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_open_fds, process_max_fds,
// process_start_time_seconds.

#include <optional>
#include <string>

#include "metrics/metrics.h"

namespace berth::metrics {

struct ProcessStats {
  double cpu_seconds = 0;          // user + system
  double resident_bytes = 0;
  double virtual_bytes = 0;
  double start_time_seconds = 0;   // since the Unix epoch
  double open_fds = 0;
  double max_fds = 0;              // the soft limit; +Inf when unlimited
};

// This process's figures; nullopt where /proc cannot be read.
std::optional<ProcessStats> ReadProcessStats();

// Parses /proc/<pid>/stat's text (exposed for tests). `ticks_per_second`,
// `page_size` and `boot_time` (seconds since the epoch) come from the system.
std::optional<ProcessStats> ParseProcStat(const std::string& stat, double ticks_per_second, double page_size,
                                          double boot_time);

// Registers the six families on `registry`, each computed when it is rendered.
void AddProcessMetrics(Registry& registry);

}  // namespace berth::metrics
