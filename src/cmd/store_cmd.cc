// berth store …: inspect, roll back and exercise the embedded store's data directory.

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "api/kinds.h"
#include "apiserver/crd/crd_controller.h"
#include "cmd/commands.h"
#include "perf/synthetic.h"
#include "store/memory/memory_store.h"
#include "store/wal/dir_lock.h"
#include "store/wal/wal.h"

namespace berth::cmd {
namespace {

int exit_code = 0;
// --encryption-provider-config of check and restore: the one serve uses, to read
// (and for restore, write) resources encrypted at rest.
std::string encryption_config;

// Sets options->encryption from --encryption-provider-config; false (printed) when it cannot be used.
bool LoadEncryption(store::MemoryStore::Options* options, std::string* error) {
  if (encryption_config.empty()) return true;
  auto loaded = store::Encryption::LoadFile(encryption_config);
  if (!loaded.ok()) {
    *error = loaded.status().message();
    return false;
  }
  options->encryption = std::move(loaded).value();
  return true;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth: %s\n", message.c_str());
  return 1;
}

// "/core/pods/" → "pods"; "/apps/deployments/" → "deployments.apps".
std::string ResourceName(const std::string& prefix) {
  for (const auto& info : api::AllKinds()) {
    if (api::StoragePrefix(info.kind) == prefix) {
      return info.group.empty() ? std::string(info.resource)
                                : std::string(info.resource) + "." + std::string(info.group);
    }
  }
  return prefix;
}

int Check(const std::string& dir, bool parse) {
  store::MemoryStore::Options options;
  options.data_dir = dir;
  options.read_only = true;
  if (std::string error; !LoadEncryption(&options, &error)) return Fail(error);
  const auto start = std::chrono::steady_clock::now();
  auto opened = store::MemoryStore::Open(options);
  if (!opened.ok()) return Fail("store check " + dir + ": " + opened.status().message());
  const std::chrono::duration<double> recovery = std::chrono::steady_clock::now() - start;
  auto& store = *opened.value();
  const auto& report = store.recovery_report();
  std::printf("data directory: %s\n", dir.c_str());
  std::printf("revision: %lld\n", static_cast<long long>(store.CurrentRevision()));
  if (report.snapshot_revision > 0) {
    std::printf("recovered from: snapshot at revision %lld + %lld log records\n",
                static_cast<long long>(report.snapshot_revision),
                static_cast<long long>(report.records_replayed));
  } else {
    std::printf("recovered from: %lld log records (no snapshot)\n",
                static_cast<long long>(report.records_replayed));
  }
  int64_t total = 0;
  auto counts = store.CountByResource();
  for (const auto& [prefix, n] : counts) total += n;
  std::printf("objects: %lld\n", static_cast<long long>(total));
  for (const auto& [prefix, n] : counts) {
    std::printf("  %-32s %lld\n", ResourceName(prefix).c_str(), static_cast<long long>(n));
  }
  auto files = store::wal::ListFiles(dir);
  if (!files.ok()) return Fail(files.status().message());
  int64_t log_bytes = 0, snapshot_bytes = 0;
  std::printf("files:\n");
  for (const auto& f : files.value()) {
    std::printf("  %-32s %12lld bytes\n", f.name.c_str(), static_cast<long long>(f.bytes));
    (f.snapshot ? snapshot_bytes : log_bytes) += f.bytes;
  }
  std::printf("log bytes: %lld\nsnapshot bytes: %lld\n", static_cast<long long>(log_bytes),
              static_cast<long long>(snapshot_bytes));
  for (const auto& note : report.notes) std::printf("note: %s (not repaired: check is read-only)\n", note.c_str());
  std::printf("recovery: %.3f s\n", recovery.count());
  if (!parse) {
    std::printf("status: ok (stored objects not parsed)\n");
    return 0;
  }
  const auto parse_start = std::chrono::steady_clock::now();
  // Objects of custom resources decode once their definitions' kinds are known.
  if (Status kinds = apiserver::crd::RegisterStoredKinds(store); !kinds.ok()) {
    return Fail("store check " + dir + ": " + kinds.message());
  }
  auto undecodable = store.CheckObjects();
  const std::chrono::duration<double> parse_time = std::chrono::steady_clock::now() - parse_start;
  std::printf("parsing every stored object: %.3f s\n", parse_time.count());
  for (const auto& line : undecodable) std::printf("does not decode: %s\n", line.c_str());
  if (!undecodable.empty()) {
    std::printf("status: %zu stored objects do not decode\n", undecodable.size());
    return 1;
  }
  std::printf("status: ok\n");
  return 0;
}

int Restore(const std::string& dir, int64_t revision) {
  namespace fs = std::filesystem;
  if (revision <= 0) return Fail("--to-revision must be a positive revision");
  // Moving the directory under a running server would lose its writes.
  auto owned = store::wal::DirLock::Acquire(dir);
  if (!owned.ok()) return Fail("store restore " + dir + ": " + owned.status().message());
  store::MemoryStore::Options options;
  options.data_dir = dir;
  options.recover_to_revision = revision;
  if (std::string error; !LoadEncryption(&options, &error)) return Fail(error);
  auto opened = store::MemoryStore::Open(options);
  if (!opened.ok()) return Fail("store restore " + dir + ": " + opened.status().message());
  (void)apiserver::crd::RegisterStoredKinds(*opened.value());
  if (auto undecodable = opened.value()->CheckObjects(); !undecodable.empty()) {
    return Fail("store restore " + dir + ": " + std::to_string(undecodable.size()) +
                " stored objects do not decode, the first: " + undecodable.front());
  }

  // Build the restored directory beside the old one, then swap, keeping the old as a backup.
  fs::path path = fs::absolute(dir).lexically_normal();
  if (path.has_filename() == false) path = path.parent_path();
  auto stamp = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  fs::path staging = path.string() + ".restoring";
  fs::path backup = path.string() + ".backup-" + std::to_string(stamp);
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) return Fail("cannot create " + staging.string() + ": " + ec.message());
  Status s = opened.value()->ExportSnapshot(staging.string());
  if (!s.ok()) return Fail("writing the restored snapshot: " + s.message());
  fs::rename(path, backup, ec);
  if (ec) return Fail("cannot move " + path.string() + " to " + backup.string() + ": " + ec.message());
  fs::rename(staging, path, ec);
  if (ec) return Fail("cannot move " + staging.string() + " to " + path.string() + ": " + ec.message());
  std::printf("restored %s to revision %lld; the previous data is in %s\n", path.c_str(),
              static_cast<long long>(revision), backup.c_str());
  return 0;
}

// Writes sample objects into the data directory and shows what is stored:
// the main job of `make run` until the API server exists.
int Demo(const std::string& dir) {
  store::MemoryStore::Options options;
  options.data_dir = dir;
  auto opened = store::MemoryStore::Open(options);
  if (!opened.ok()) return Fail("store " + dir + ": " + opened.status().message());
  auto& store = *opened.value();
  std::printf("opened %s at revision %lld\n", dir.c_str(),
              static_cast<long long>(store.CurrentRevision()));
  int created = 0;
  for (int i = 0; i < 16; ++i) {
    if (store.Create(perf::SyntheticNode(perf::SyntheticNodeName(i), i, perf::NodeShape{"4", "16Gi", 110})).ok()) ++created;
  }
  for (int i = 0; i < 100; ++i) {
    if (store.Create(perf::SyntheticPod("default", "web-" + std::to_string(i), perf::PodShape{"100m", "128Mi"})).ok()) {
      ++created;
    }
  }
  std::printf("created %d objects; revision now %lld\n", created,
              static_cast<long long>(store.CurrentRevision()));
  store.Close();
  return Check(dir, /*parse=*/true);
}

// Used by the crash test: writes as fast as it can from several threads and
// appends a line to the ack file after each acknowledged write:
//   C <key> <rev>   U <key> <rev>   D <key> <rev>
// Each thread owns its keys; each key is created, updated twice, and every
// fourth key deleted.
int StressWriter(const std::string& dir, const std::string& ack_file, int threads) {
  store::MemoryStore::Options options;
  options.data_dir = dir;
  options.snapshot_every = 5000;
  auto opened = store::MemoryStore::Open(options);
  if (!opened.ok()) return Fail("store " + dir + ": " + opened.status().message());
  auto& store = *opened.value();
  int fd = ::open(ack_file.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return Fail("cannot open " + ack_file);
  const int64_t base = store.CurrentRevision();
  auto ack = [fd](char op, const std::string& key, int64_t rev) {
    std::string line = std::string(1, op) + " " + key + " " + std::to_string(rev) + "\n";
    if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) std::abort();
  };
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int64_t i = 0;; ++i) {
        std::string name = "s" + std::to_string(base) + "-" + std::to_string(t) + "-" + std::to_string(i);
        auto pod = perf::SyntheticPod("crash", name, perf::PodShape{"10m", "1Mi"});
        auto created = store.Create(pod);
        if (!created.ok()) std::abort();
        ack('C', pod->StorageKey(), created.value()->resource_version());
        for (int u = 0; u < 2; ++u) {
          auto updated = store.Update(pod, 0);
          if (!updated.ok()) std::abort();
          ack('U', pod->StorageKey(), updated.value()->resource_version());
        }
        if (i % 4 == 0) {
          auto deleted = store.Delete(pod->StorageKey());
          if (!deleted.ok()) std::abort();
          ack('D', pod->StorageKey(), deleted.value()->resource_version());
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  return 0;
}

}  // namespace

int ExitCode() { return exit_code; }
void SetExitCode(int code) { exit_code = code; }

void AddStoreCommands(CLI::App& app) {
  auto* store = app.add_subcommand("store", "Inspect, roll back and measure the embedded store");
  store->require_subcommand(1);

  static std::string dir;
  static int64_t revision = 0;
  static std::string ack_file;
  static int threads = 4;

  auto* check = store->add_subcommand(
      "check", "Integrity report: revision, object counts by kind, log and snapshot sizes");
  check->add_option("--data-dir", dir, "The store's data directory")->required();
  static bool no_parse = false;
  check->add_flag("--no-parse", no_parse,
                  "Only recover (read and CRC-check the files); skip parsing every stored object");
  check->add_option("--encryption-provider-config", encryption_config,
                    "The EncryptionConfiguration serve uses (to read resources encrypted at rest)");
  check->callback([] { SetExitCode(Check(dir, !no_parse)); });

  auto* restore = store->add_subcommand(
      "restore", "Roll the store back to a past revision (the current data is kept as a backup)");
  restore->add_option("--data-dir", dir, "The store's data directory")->required();
  restore->add_option("--to-revision", revision, "The revision to restore")->required();
  restore->add_option("--encryption-provider-config", encryption_config,
                      "The EncryptionConfiguration serve uses (resources encrypted at rest stay so)");
  restore->callback([] { SetExitCode(Restore(dir, revision)); });

  auto* demo = store->add_subcommand("demo", "Write sample objects and print the store report");
  demo->add_option("--data-dir", dir, "The store's data directory")->required();
  demo->callback([] { SetExitCode(Demo(dir)); });

  auto* stress = store->add_subcommand("stress-writer", "Write until killed (crash test helper)");
  stress->group("");  // hidden
  stress->add_option("--data-dir", dir, "The store's data directory")->required();
  stress->add_option("--ack-file", ack_file, "Where each acknowledged write is appended")->required();
  stress->add_option("--threads", threads, "Writer threads")->capture_default_str();
  stress->callback([] { SetExitCode(StressWriter(dir, ack_file, threads)); });

  AddStoreBenchCommand(*store);
}

}  // namespace berth::cmd
