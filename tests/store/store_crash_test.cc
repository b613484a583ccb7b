// Crash safety: a child process writes as fast as it can and records each
// acknowledged write; we SIGKILL it at random moments, reopen the store, and
// check that every acknowledged write is there and the store is consistent.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "store/memory/memory_store.h"

namespace berth::store {
namespace {

namespace fs = std::filesystem;

struct Acked {
  char op;
  int64_t revision;
  int count = 0;  // acknowledged operations on this key so far
};

// Keys are "s<base>-<thread>-<i>"; the writer deletes every fourth one after
// its two updates.
bool DeletedAfterUpdates(const std::string& key) {
  auto dash = key.rfind('-');
  return dash != std::string::npos && std::stoll(key.substr(dash + 1)) % 4 == 0;
}

TEST(StoreCrash, EveryAcknowledgedWriteSurvivesSigkill) {
  fs::path dir = fs::temp_directory_path() / ("berth-crash-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string data = (dir / "data").string();
  const std::string acks = (dir / "acks").string();
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> delay_ms(20, 250);
  constexpr int kRounds = 25;
  int64_t total_acked = 0;

  for (int round = 0; round < kRounds; ++round) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::execl(BERTH_BINARY, BERTH_BINARY, "store", "stress-writer", "--data-dir", data.c_str(),
              "--ack-file", acks.c_str(), "--threads", "8", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited on its own in round " << round
                                     << " (status " << status << ")";

    // The last acknowledged operation per key, from all rounds so far.
    std::map<std::string, Acked> last;
    int64_t max_acked = 0;
    std::ifstream in(acks);
    std::string line;
    int64_t lines = 0;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      char op;
      std::string key;
      int64_t rev;
      if (!(fields >> op >> key >> rev)) continue;  // a line cut by the kill
      int count = last[key].count + 1;
      last[key] = {op, rev, count};
      max_acked = std::max(max_acked, rev);
      ++lines;
    }
    total_acked = lines;

    MemoryStore::Options options;
    options.data_dir = data;
    auto opened = MemoryStore::Open(options);
    ASSERT_TRUE(opened.ok()) << "round " << round << ": " << opened.status().ToString();
    auto& store = *opened.value();
    EXPECT_GE(store.CurrentRevision(), max_acked) << "round " << round;
    for (const auto& [key, acked] : last) {
      auto got = store.Get(key);
      if (acked.op == 'D') {
        EXPECT_EQ(got.status().code(), StatusCode::kNotFound) << key << " round " << round;
      } else if (!got.ok() && acked.count == 3 && DeletedAfterUpdates(key)) {
        // The delete that follows the second update was durable but the kill
        // came before its acknowledgement: allowed.
        EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
      } else {
        ASSERT_TRUE(got.ok()) << key << " acked at " << acked.revision << " is missing in round "
                              << round;
        EXPECT_GE(got.value()->resource_version(), acked.revision) << key;
      }
    }
    // Consistency: every listed object is readable at its own revision, and no
    // revision is beyond the store's.
    auto list = store.List({.prefix = "/"});
    ASSERT_TRUE(list.ok());
    for (const auto& object : list->items) {
      EXPECT_LE(object->resource_version(), store.CurrentRevision());
      auto got = store.Get(object->StorageKey());
      ASSERT_TRUE(got.ok());
      EXPECT_EQ(got.value()->resource_version(), object->resource_version());
    }
  }
  EXPECT_GT(total_acked, 1000) << "the writer should get real work done between kills";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace berth::store
