// The embedded store when its disk misbehaves (faults injected in the log's
// file layer): a failed fsync stops writes for good and says why, reads go
// on, and a restart recovers; a full disk refuses writes until space returns,
// then completes the write it held, losing nothing.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "api/kinds.h"
#include "store/memory/memory_store.h"
#include "test_objects.h"

namespace berth::store {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::MakePod;

class StoreFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("berth-faults-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<MemoryStore> Open(bool inject) {
    MemoryStore::Options options;
    options.data_dir = dir_.string();
    options.snapshot_every = 0;
    if (inject) {
      options.inject_fault = [this](std::string_view call) {
        if (call == "fdatasync") return fsync_error_.load();
        if (call == "write") return write_error_.load();
        return 0;
      };
    }
    auto store = MemoryStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  static std::string Key(const std::string& name) { return api::StorageKey(api::Kind::kPod, "ns", name); }

  fs::path dir_;
  std::atomic<int> fsync_error_{0};
  std::atomic<int> write_error_{0};
};

TEST_F(StoreFaults, FailedFsyncStopsWritesUntilRestart) {
  {
    auto store = Open(/*inject=*/true);
    ASSERT_TRUE(store->Create(MakePod("ns", "before")).ok());
    EXPECT_TRUE(store->Health().ok());
    fsync_error_ = EIO;
    auto failed = store->Create(MakePod("ns", "during"));
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.status().code(), StatusCode::kInternal);
    EXPECT_NE(failed.status().message().find("fdatasync"), std::string::npos) << failed.status().message();
    EXPECT_NE(failed.status().message().find("Input/output error"), std::string::npos);
    // Never retried as if nothing happened: a working fsync does not bring writes back.
    fsync_error_ = 0;
    auto after = store->Create(MakePod("ns", "after"));
    ASSERT_FALSE(after.ok());
    EXPECT_NE(after.status().message().find("until it is restarted"), std::string::npos);
    EXPECT_FALSE(store->Update(MakePod("ns", "before", R"({"v":"2"})"), 0).ok());
    EXPECT_FALSE(store->Delete(Key("before")).ok());
    EXPECT_FALSE(store->Health().ok());
    // Reads go on, and never show the write that failed.
    EXPECT_TRUE(store->Get(Key("before")).ok());
    EXPECT_EQ(store->Get(Key("during")).status().code(), StatusCode::kNotFound);
    ListOptions pods;
    pods.prefix = "/core/pods/";
    auto list = store->List(pods);
    ASSERT_TRUE(list.ok());
    EXPECT_EQ(list->items.size(), 1u);
    EXPECT_FALSE(store->Snapshot().ok());
  }
  auto store = Open(/*inject=*/false);
  EXPECT_TRUE(store->Health().ok());
  EXPECT_TRUE(store->Get(Key("before")).ok());
  EXPECT_EQ(store->Get(Key("after")).status().code(), StatusCode::kNotFound);
  // "during" reached the file before its fsync failed: it may or may not be
  // there (its writer was told it failed); either way the store writes again.
  EXPECT_TRUE(store->Create(MakePod("ns", "again")).ok());
}

TEST_F(StoreFaults, DeferredWriteIsAnsweredWithTheFailure) {
  auto store = Open(/*inject=*/true);
  fsync_error_ = EIO;
  int64_t revision = 0;
  {
    DeferAcknowledgement defer;
    ASSERT_TRUE(store->Create(MakePod("ns", "deferred")).ok());
    revision = defer.revision();
  }
  ASSERT_GT(revision, 0);
  std::promise<void> called;
  store->WhenVisible(revision, [&] { called.set_value(); });
  ASSERT_EQ(called.get_future().wait_for(20s), std::future_status::ready);
  Status s = store->WriteStatus(revision);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("fdatasync"), std::string::npos);
}

TEST_F(StoreFaults, FullDiskRefusesWritesUntilSpaceReturns) {
  {
    auto store = Open(/*inject=*/true);
    ASSERT_TRUE(store->Create(MakePod("ns", "before")).ok());
    write_error_ = ENOSPC;
    // The write that meets the full disk waits for space; it is not lost.
    auto held = std::async(std::launch::async, [&] { return store->Create(MakePod("ns", "held")); });
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (store->Health().ok() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
    Status health = store->Health();
    ASSERT_FALSE(health.ok());
    EXPECT_NE(health.message().find("No space left on device"), std::string::npos) << health.message();
    auto refused = store->Create(MakePod("ns", "refused"));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInternal);
    EXPECT_NE(refused.status().message().find("out of space"), std::string::npos);
    EXPECT_EQ(held.wait_for(50ms), std::future_status::timeout);
    EXPECT_TRUE(store->Get(Key("before")).ok());  // reads go on
    write_error_ = 0;  // space returns
    ASSERT_EQ(held.wait_for(20s), std::future_status::ready);
    auto held_result = held.get();
    EXPECT_TRUE(held_result.ok()) << held_result.status().ToString();
    EXPECT_TRUE(store->Health().ok());
    EXPECT_TRUE(store->Create(MakePod("ns", "after")).ok());
  }
  auto store = Open(/*inject=*/false);
  for (const char* name : {"before", "held", "after"}) EXPECT_TRUE(store->Get(Key(name)).ok()) << name;
  EXPECT_EQ(store->Get(Key("refused")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace berth::store
