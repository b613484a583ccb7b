#pragma once
// The one summary of a sample the benchmarks report: count, average and the
// percentiles scheduler_perf reports, by scheduler_perf's rule (the
// smallest sample with at least q of the samples at or below it: sorted
// [ceil(n * q) - 1]), so that berth's figures and kube's are read alike.

#include <cstddef>
#include <vector>

namespace berth::perf {

struct Summary {
  size_t count = 0;
  double average = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0;
};

// All zero for an empty sample.
Summary Summarize(std::vector<double> samples);

// The q-quantile (0 < q <= 1) of an ascending sample by the rule above; 0 when
// it is empty. REQUIRES: `sorted` ascending.
double Percentile(const std::vector<double>& sorted, double q);

}  // namespace berth::perf
