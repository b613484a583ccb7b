#pragma once
// `berth store bench`: the embedded store's throughput and latency figures
// (durable creates with concurrent writers, in-memory operations, watch
// fan-out, large lists, recovery), printed on stdout as a table, one row per
// figure. Recovery is timed twice: in a new process (`berth store check
// --no-parse`, run from /proc/self/exe) and in this one.
//
// A store that cannot be opened or a check that fails ends the process
// (exit status 1, the error on stderr); a figure that comes out wrong (a
// create refused, a list short of pods) aborts it.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace berth::perf {

struct EmbeddedStoreBenchOptions {
  std::string dir = "/tmp/berth-store-bench";  // scratch, removed afterwards
  std::vector<int> writers = {1, 8, 64};
  int64_t durable_creates = 50'000;
  int64_t memory_ops = 1'000'000;
  int watchers = 100;
  int64_t watch_events = 20'000;
  int64_t list_pods = 100'000;
  int64_t recovery_records = 1'000'000;
  // Sections to run (durable, memory, watch, list, recovery); empty: all.
  std::vector<std::string> only;
  // Leave the recovery section's data directory in place (to profile `berth store check` on it).
  bool keep_data = false;

  bool Runs(const std::string& section) const {
    return only.empty() || std::find(only.begin(), only.end(), section) != only.end();
  }
};

// Runs the sections `options` selects, in the order above, then prints the
// process's peak RSS. Returns the exit status (0).
int EmbeddedStoreBench(const EmbeddedStoreBenchOptions& options);

}  // namespace berth::perf
