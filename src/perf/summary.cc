#include "perf/summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace berth::perf {

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  // The epsilon keeps q * n from rounding up past a whole number (0.99 * 100).
  const double rank = std::ceil(q * static_cast<double>(sorted.size()) - 1e-9);
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

Summary Summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.average =
      std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  s.p50 = Percentile(samples, 0.50);
  s.p90 = Percentile(samples, 0.90);
  s.p95 = Percentile(samples, 0.95);
  s.p99 = Percentile(samples, 0.99);
  return s;
}

}  // namespace berth::perf
