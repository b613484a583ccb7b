// Write-ahead log speed: durable (fdatasync'ed, group-committed) appends per
// second from 1, 8 and 64 threads, and how long recovery and snapshots of a
// million entries take. Files go to a fresh directory under /tmp (override
// with BERTH_BENCH_DIR, e.g. to measure another disk).
//
//   build-<you>/wal_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/wal/wal.h"

namespace berth::store::wal {
namespace {

namespace fs = std::filesystem;

std::string FreshDirectory() {
  const char* base = std::getenv("BERTH_BENCH_DIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/berth-wal-bench-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  return pattern;
}

// A record like a small stored object: ~500 bytes in the log.
Record ObjectRecord(int64_t revision, size_t value_bytes) {
  Record r;
  r.type = Record::Type::kPut;
  r.revision = revision;
  r.key = "/core/pods/default/pod-" + std::to_string(revision % 100000);
  r.value = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod"},"spec":{"x":")";
  r.value.append(value_bytes > r.value.size() + 4 ? value_bytes - r.value.size() - 4 : 0, 'x');
  r.value += R"("}})";
  return r;
}

// ---------------------------------------------------------------- durable appends

struct AppendFixture {
  std::string dir;
  std::unique_ptr<LogWriter> writer;
  std::mutex order_mu;  // callers serialise Append to keep revisions in order
  int64_t next_revision = 1;
  std::atomic<int64_t> fsyncs{0};
  std::atomic<int64_t> fsync_nanos{0};
};
AppendFixture* append_fixture = nullptr;

// Argument "fill": 1 fills segments ahead with zeros (the default), 0 grows the file with each
// write.
void OpenLog(const benchmark::State& state) {
  append_fixture = new AppendFixture;
  append_fixture->dir = FreshDirectory();
  LogWriter::Options options;
  options.dir = append_fixture->dir;
  options.sync = true;
  if (state.range(0) == 0) {
    options.fill_ahead = 0;
  }
  options.on_fsync = [](double seconds) {
    append_fixture->fsyncs++;
    append_fixture->fsync_nanos += static_cast<int64_t>(seconds * 1e9);
  };
  auto writer = LogWriter::Open(std::move(options), 1);
  if (!writer.ok()) {
    std::fprintf(stderr, "%s\n", writer.status().message().c_str());
    std::abort();
  }
  append_fixture->writer = std::move(writer).value();
}

void CloseLog(const benchmark::State&) {
  append_fixture->writer->Close();
  fs::remove_all(append_fixture->dir);
  delete append_fixture;
  append_fixture = nullptr;
}

// Each iteration: append one ~500-byte record and wait until it is durable.
void BM_DurableAppend(benchmark::State& state) {
  Record record = ObjectRecord(0, 440);
  const int64_t fsyncs_before = append_fixture->fsyncs.load();
  const int64_t fsync_nanos_before = append_fixture->fsync_nanos.load();
  for (auto _ : state) {
    uint64_t position;
    {
      std::lock_guard<std::mutex> lock(append_fixture->order_mu);
      record.revision = append_fixture->next_revision++;
      position = append_fixture->writer->Append(record);
    }
    append_fixture->writer->WaitDurable(position);
  }
  state.SetItemsProcessed(state.iterations());
  // The loop ends at a barrier, so thread 0 sees every thread's appends here.
  if (state.thread_index() == 0) {
    const auto fsyncs = static_cast<double>(append_fixture->fsyncs.load() - fsyncs_before);
    state.counters["appends_per_fsync"] =
        static_cast<double>(state.iterations()) * state.threads() / std::max(fsyncs, 1.0);
    state.counters["fsync_us"] =
        static_cast<double>(append_fixture->fsync_nanos.load() - fsync_nanos_before) / 1e3 /
        std::max(fsyncs, 1.0);
  }
}
BENCHMARK(BM_DurableAppend)
    ->Setup(OpenLog)
    ->Teardown(CloseLog)
    ->ArgName("fill")
    ->Arg(0)
    ->Arg(1)
    ->Threads(1)
    ->Threads(8)
    ->Threads(64)
    ->UseRealTime()
    ->MinTime(2.0);

// ---------------------------------------------------------------- recovery

constexpr int64_t kRecoverRecords = 1'000'000;
std::string recover_dir;

// 1M records of ~300 bytes in 4 segments, written without fsync (only the
// reading is measured; the files are in the page cache).
void WriteMillionRecords(const benchmark::State&) {
  recover_dir = FreshDirectory();
  LogWriter::Options options;
  options.dir = recover_dir;
  options.sync = false;
  auto writer = LogWriter::Open(std::move(options), 1);
  if (!writer.ok()) {
    std::abort();
  }
  Record record = ObjectRecord(0, 260);
  for (int64_t r = 1; r <= kRecoverRecords; ++r) {
    if (r % 250'000 == 1 && r > 1) {
      (*writer)->Rotate(r);
    }
    record.revision = r;
    record.key = "/core/pods/default/pod-" + std::to_string(r % 100000);
    (*writer)->Append(record);
  }
  (*writer)->Close();
}

void RemoveRecoverDir(const benchmark::State&) { fs::remove_all(recover_dir); }

void BM_RecoverMillionRecords(benchmark::State& state) {
  int64_t bytes = 0;
  for (auto _ : state) {
    int64_t records = 0;
    auto report = Recover(
        recover_dir, RecoverOptions{}, [](SnapshotEntry) {},
        [&](Record&& r) {
          ++records;
          bytes += static_cast<int64_t>(r.key.size() + r.value.size());
        });
    if (!report.ok() || records != kRecoverRecords) {
      state.SkipWithError("recovery failed");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * kRecoverRecords);
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_RecoverMillionRecords)
    ->Setup(WriteMillionRecords)
    ->Teardown(RemoveRecoverDir)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// ---------------------------------------------------------------- snapshots

constexpr size_t kSnapshotEntries = 1'000'000;

void BM_WriteSnapshotMillionEntries(benchmark::State& state) {
  const std::string dir = FreshDirectory();
  std::vector<std::string> keys;
  keys.reserve(kSnapshotEntries);
  for (size_t i = 0; i < kSnapshotEntries; ++i) {
    keys.push_back("/core/pods/ns/pod-" + std::to_string(i));
  }
  const std::string value = ObjectRecord(0, 260).value;
  std::vector<SnapshotEntry> entries;
  entries.reserve(kSnapshotEntries);
  for (size_t i = 0; i < kSnapshotEntries; ++i) {
    entries.push_back({keys[i], static_cast<int64_t>(i + 1), value});
  }
  int64_t revision = static_cast<int64_t>(kSnapshotEntries);
  for (auto _ : state) {
    if (!WriteSnapshot(dir, revision, entries).ok()) {
      state.SkipWithError("snapshot failed");
      break;
    }
    state.PauseTiming();
    fs::remove(dir + "/" + SnapshotFileName(revision));
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kSnapshotEntries));
  fs::remove_all(dir);
}
BENCHMARK(BM_WriteSnapshotMillionEntries)->Unit(benchmark::kMillisecond)->UseRealTime();

std::string snapshot_dir;

void WriteMillionEntrySnapshot(const benchmark::State&) {
  snapshot_dir = FreshDirectory();
  std::vector<std::string> keys;
  for (size_t i = 0; i < kSnapshotEntries; ++i) {
    keys.push_back("/core/pods/ns/pod-" + std::to_string(i));
  }
  const std::string value = ObjectRecord(0, 260).value;
  std::vector<SnapshotEntry> entries;
  for (size_t i = 0; i < kSnapshotEntries; ++i) {
    entries.push_back({keys[i], static_cast<int64_t>(i + 1), value});
  }
  if (!WriteSnapshot(snapshot_dir, static_cast<int64_t>(kSnapshotEntries), entries).ok()) {
    std::abort();
  }
}

void RemoveSnapshotDir(const benchmark::State&) { fs::remove_all(snapshot_dir); }

// Reading a snapshot back: the entries are views into the mapped file, so
// this is the CRC check plus one pass over the entries.
void BM_RecoverSnapshotMillionEntries(benchmark::State& state) {
  for (auto _ : state) {
    int64_t entries = 0;
    auto report = Recover(
        snapshot_dir, RecoverOptions{}, [&](SnapshotEntry) { ++entries; }, [](Record&&) {});
    if (!report.ok() || entries != static_cast<int64_t>(kSnapshotEntries)) {
      state.SkipWithError("recovery failed");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kSnapshotEntries));
}
BENCHMARK(BM_RecoverSnapshotMillionEntries)
    ->Setup(WriteMillionEntrySnapshot)
    ->Teardown(RemoveSnapshotDir)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace berth::store::wal

BENCHMARK_MAIN();
