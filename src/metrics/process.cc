#include "metrics/process.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace berth::metrics {

namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// /proc/stat's btime: when the system booted, seconds since the epoch.
double BootTime() {
  static const double boot = [] {
    std::istringstream in(ReadFile("/proc/stat"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("btime ", 0) == 0) return std::stod(line.substr(6));
    }
    return 0.0;
  }();
  return boot;
}

double OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return std::nan("");
  double n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory stream's own descriptor
}

}  // namespace

std::optional<ProcessStats> ParseProcStat(const std::string& stat, double ticks_per_second, double page_size,
                                          double boot_time) {
  // The command name (field 2) is in parentheses and may hold spaces: the
  // fields that follow start after the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || ticks_per_second <= 0) return std::nullopt;
  std::istringstream in(stat.substr(close + 1));
  std::vector<std::string> f;  // f[0] is field 3 (state)
  for (std::string word; in >> word;) f.push_back(word);
  if (f.size() < 22) return std::nullopt;
  try {
    ProcessStats s;
    // Fields 14 utime, 15 stime, 22 starttime (ticks since boot), 23 vsize
    // (bytes), 24 rss (pages); field N is f[N - 3].
    s.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / ticks_per_second;
    s.start_time_seconds = boot_time + std::stod(f[19]) / ticks_per_second;
    s.virtual_bytes = std::stod(f[20]);
    s.resident_bytes = std::stod(f[21]) * page_size;
    return s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<ProcessStats> ReadProcessStats() {
  auto s = ParseProcStat(ReadFile("/proc/self/stat"), static_cast<double>(sysconf(_SC_CLK_TCK)),
                         static_cast<double>(sysconf(_SC_PAGESIZE)), BootTime());
  if (!s) return std::nullopt;
  s->open_fds = OpenFds();
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    s->max_fds = limit.rlim_cur == RLIM_INFINITY ? INFINITY : static_cast<double>(limit.rlim_cur);
  }
  return s;
}

void AddProcessMetrics(Registry& registry) {
  // Each family reads /proc on its own; a scrape reads it six times, which
  // costs tens of microseconds.
  auto one = [](double ProcessStats::*field) {
    return [field] {
      std::vector<Registry::Sample> out;
      if (auto s = ReadProcessStats(); s && !std::isnan((*s).*field)) out.push_back({{}, (*s).*field});
      return out;
    };
  };
  registry.AddCallbackCounter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", {},
                              one(&ProcessStats::cpu_seconds));
  registry.AddCallbackGauge("process_open_fds", "Number of open file descriptors.", {}, one(&ProcessStats::open_fds));
  registry.AddCallbackGauge("process_max_fds", "Maximum number of open file descriptors.", {},
                            one(&ProcessStats::max_fds));
  registry.AddCallbackGauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", {},
                            one(&ProcessStats::virtual_bytes));
  registry.AddCallbackGauge("process_resident_memory_bytes", "Resident memory size in bytes.", {},
                            one(&ProcessStats::resident_bytes));
  registry.AddCallbackGauge("process_start_time_seconds",
                            "Start time of the process since unix epoch in seconds.", {},
                            one(&ProcessStats::start_time_seconds));
}

}  // namespace berth::metrics
