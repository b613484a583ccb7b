#include "perf/throughput.h"

#include <algorithm>

namespace berth::perf {

std::vector<double> ThroughputWindows(SteadyTime start, SteadyTime end,
                                      std::vector<SteadyTime> bound,
                                      std::chrono::steady_clock::duration interval) {
  std::vector<double> samples;
  if (interval <= std::chrono::steady_clock::duration::zero()) return samples;
  std::sort(bound.begin(), bound.end());
  auto bound_by = [&](SteadyTime t) {
    return static_cast<size_t>(std::upper_bound(bound.begin(), bound.end(), t) - bound.begin());
  };
  // The count before the collector starts is its baseline too.
  size_t last_count = bound_by(start);
  SteadyTime last_time = start;
  bool started = false;
  int skipped = 0;
  for (SteadyTime tick = start + interval; tick <= end; tick += interval) {
    const size_t count = bound_by(tick);
    if (count == 0) continue;
    if (!started) {
      started = true;
      last_count = count;
      last_time = tick;
      continue;
    }
    if (count == last_count) {
      ++skipped;
      continue;
    }
    const double seconds = std::chrono::duration<double>(tick - last_time).count();
    const double rate = static_cast<double>(count - last_count) / seconds;
    for (int i = 0; i <= skipped; ++i) samples.push_back(rate);
    skipped = 0;
    last_count = count;
    last_time = tick;
  }
  return samples;
}

}  // namespace berth::perf
