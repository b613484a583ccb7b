// berth store bench: flags → perf::EmbeddedStoreBenchOptions →
// perf::EmbeddedStoreBench (src/perf/embedded_store_bench.h).

#include "cmd/commands.h"
#include "perf/embedded_store_bench.h"

namespace berth::cmd {

void AddStoreBenchCommand(CLI::App& store) {
  static perf::EmbeddedStoreBenchOptions options;
  auto* bench = store.add_subcommand("bench", "Measure the embedded store");
  bench->add_option("--data-dir", options.dir, "Scratch directory (removed afterwards)");
  bench->add_option("--writers", options.writers, "Concurrent writers for durable creates")
      ->delimiter(',');
  bench->add_option("--durable-creates", options.durable_creates, "Pods created in the durable section, for each --writers count")
      ->capture_default_str();
  bench->add_option("--memory-ops", options.memory_ops, "Operations of the in-memory section")->capture_default_str();
  bench->add_option("--watchers", options.watchers, "Watchers of the watch fan-out section")->capture_default_str();
  bench->add_option("--watch-events", options.watch_events, "Writes each watcher must see in the watch section")
      ->capture_default_str();
  bench->add_option("--list-pods", options.list_pods, "Pods stored before the list section lists them")
      ->capture_default_str();
  bench->add_option("--recovery-records", options.recovery_records, "Log records the recovery section replays")
      ->capture_default_str();
  bench->add_option("--only", options.only, "Sections to run: durable, memory, watch, list, recovery")
      ->delimiter(',')
      ->check(CLI::IsMember({"durable", "memory", "watch", "list", "recovery"}));
  bench->add_flag("--keep-data", options.keep_data,
                  "Keep the data directory (the recovery section's store) afterwards");
  bench->callback([] { SetExitCode(perf::EmbeddedStoreBench(options)); });
}

}  // namespace berth::cmd
