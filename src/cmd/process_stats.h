#pragma once
// The process's own resource figures, for the benchmark commands.

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

// Starts the peak over (Linux >= 4.0: writing 5 to clear_refs resets VmHWM).
inline void ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

}  // namespace berth::cmd
