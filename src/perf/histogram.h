#pragma once
// Percentiles of a Prometheus histogram over one phase, as scheduler_perf
// reads the scheduler's histograms: the buckets of two scrapes (before and
// after the phase) subtracted, then Prometheus' histogram_quantile (linear
// interpolation inside the bucket that holds the rank).

#include <map>
#include <string>

#include "perf/summary.h"

namespace berth::perf {

// le → cumulative count of the histogram `name` in Prometheus text, summed
// over its label sets. Empty when the text does not have it.
std::map<double, double> HistogramBuckets(const std::string& prometheus_text,
                                          const std::string& name);

// p50, p90, p95 and p99 of the observations between the two scrapes, in
// milliseconds (the histogram counts seconds); count is the observations.
// The average is not known from buckets and stays 0.
Summary HistogramSummary(const std::map<double, double>& before,
                         const std::map<double, double>& after);

}  // namespace berth::perf
