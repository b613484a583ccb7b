#pragma once
// A process's resource figures for the benchmarks, from getrusage and /proc.
// Each returns 0 when the figure cannot be read (no /proc).

#include <sys/types.h>

#include <cstdint>

namespace berth::perf {

// This process's peak resident set size (VmHWM) in bytes.
int64_t PeakRssBytes();
// Starts this process's peak over (Linux >= 4.0: clear_refs 5 resets VmHWM).
void ResetPeakRss();
// CPU time (user + system, every thread) this process has used so far, in seconds.
double ProcessCpuSeconds();
// CPU time (user + system) another process has used so far, in seconds.
double ProcessCpuSecondsOf(pid_t pid);
// Another process's current resident set size (VmRSS) in bytes.
int64_t RssBytesOf(pid_t pid);

}  // namespace berth::perf
