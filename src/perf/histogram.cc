#include "perf/histogram.h"

#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

namespace berth::perf {

std::map<double, double> HistogramBuckets(const std::string& prometheus_text,
                                          const std::string& name) {
  std::map<double, double> buckets;
  std::istringstream in(prometheus_text);
  std::string line;
  const std::string prefix = name + "_bucket{";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    // The le label ("profile=" also ends in le=, hence the separator).
    auto le = line.find(",le=\"");
    if (le == std::string::npos) le = line.find("{le=\"");
    if (le == std::string::npos) continue;
    le += 5;
    const auto close = line.find('"', le);
    const auto space = line.rfind(' ');
    if (close == std::string::npos || space == std::string::npos || space < close) continue;
    const std::string bound = line.substr(le, close - le);
    const double b = bound == "+Inf" ? INFINITY : std::stod(bound);
    buckets[b] += std::stod(line.substr(space + 1));
  }
  return buckets;
}

Summary HistogramSummary(const std::map<double, double>& before,
                         const std::map<double, double>& after) {
  std::vector<std::pair<double, double>> phase;  // (le, cumulative count within the phase)
  for (const auto& [le, count] : after) {
    auto it = before.find(le);
    phase.emplace_back(le, count - (it == before.end() ? 0 : it->second));
  }
  Summary s;
  if (phase.empty() || phase.back().second <= 0) return s;
  const double total = phase.back().second;
  auto quantile = [&](double q) {
    const double rank = q * total;
    double lower_bound = 0, lower_count = 0;
    for (const auto& [le, count] : phase) {
      if (count >= rank) {
        if (std::isinf(le)) return lower_bound;  // Prometheus: the highest finite bound
        if (count == lower_count) return le;
        return lower_bound + (le - lower_bound) * (rank - lower_count) / (count - lower_count);
      }
      lower_bound = le;
      lower_count = count;
    }
    return lower_bound;
  };
  s.count = static_cast<size_t>(total);
  s.p50 = quantile(0.50) * 1000;
  s.p90 = quantile(0.90) * 1000;
  s.p95 = quantile(0.95) * 1000;
  s.p99 = quantile(0.99) * 1000;
  return s;
}

}  // namespace berth::perf
