#pragma once
// SchedulingThroughput as scheduler_perf's throughput collector measures it,
// computed from the times at which the measured pods were bound.
//
// The collector starts with the measured op and looks at the count of bound
// pods every `interval` (1 s) until the op's last pod is bound:
//   - ticks while no pod is bound yet take no sample;
//   - the first tick with a bound pod only sets the baseline (that window is
//     skipped: sampling and pod creation start independently);
//   - a window in which no pod was bound takes no sample of its own: the next
//     window that binds some is measured over both (and counted once for each);
//   - the window in progress when the last pod is bound is dropped (no
//     partial window).
// So a phase shorter than about two intervals has no sample at all.

#include <chrono>
#include <vector>

namespace berth::perf {

using SteadyTime = std::chrono::steady_clock::time_point;

// Pods per second, one value per window (unsorted, in time order). `bound`
// need not be sorted; times before `start` count as bound at the start.
std::vector<double> ThroughputWindows(
    SteadyTime start, SteadyTime end, std::vector<SteadyTime> bound,
    std::chrono::steady_clock::duration interval = std::chrono::seconds(1));

}  // namespace berth::perf
