#pragma once
// The process's own resource figures, for the benchmark commands.

#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace berth::cmd {

// Peak resident set size (VmHWM) in bytes; 0 when /proc is unavailable.
inline int64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

// CPU time (user + system) the whole process has used so far, in seconds.
inline double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Starts the peak over (Linux >= 4.0: writing 5 to clear_refs resets VmHWM).
inline void ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

}  // namespace berth::cmd
