// The embedded store with a data directory: restarts, snapshots, the history
// window after recovery, and the store check / restore commands.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>

#include "api/kinds.h"
#include "store/memory/memory_store.h"
#include "store/wal/wal.h"
#include "test_objects.h"

namespace berth::store {
namespace {

namespace fs = std::filesystem;
using testing::MakeNode;
using testing::MakePod;

class DurableStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("berth-durable-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    for (const auto& entry : fs::directory_iterator(dir_.parent_path())) {
      if (entry.path().string().starts_with(dir_.string() + ".backup-")) fs::remove_all(entry.path());
    }
  }
  std::unique_ptr<MemoryStore> Open(int64_t snapshot_every = 0, int64_t history = 1000) {
    MemoryStore::Options options;
    options.data_dir = dir_.string();
    options.snapshot_every = snapshot_every;
    options.history = history;
    auto store = MemoryStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  std::string Run(const std::string& args, int* status) {
    std::string command = std::string(BERTH_BINARY) + " " + args + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string out;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    *status = ::pclose(pipe);
    return out;
  }
  fs::path dir_;
};

TEST_F(DurableStore, RestartKeepsEveryAcknowledgedWrite) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Create(MakePod("ns", "a", R"({"v":"1"})")).ok());
    ASSERT_TRUE(store->Update(MakePod("ns", "a", R"({"v":"2"})"), 1).ok());
    ASSERT_TRUE(store->Create(MakePod("ns", "b")).ok());
    ASSERT_TRUE(store->Delete(api::StorageKey(api::Kind::kPod, "ns", "b")).ok());
    ASSERT_TRUE(store->Create(MakeNode("n1")).ok());
  }
  auto store = Open();
  EXPECT_EQ(store->CurrentRevision(), 5);
  auto a = store->Get(api::StorageKey(api::Kind::kPod, "ns", "a"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value()->labels().Get("v"), "2");
  EXPECT_EQ(a.value()->resource_version(), 2);
  EXPECT_EQ(store->Get(api::StorageKey(api::Kind::kPod, "ns", "b")).status().code(),
            StatusCode::kNotFound);
  // New writes continue the revision sequence.
  auto c = store->Create(MakePod("ns", "c"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value()->resource_version(), 6);
}

TEST_F(DurableStore, WatchResumesAcrossRestartFromLastSeenRevision) {
  int64_t last_seen;
  {
    auto store = Open();
    auto w = std::move(store->WatchFrom({.prefix = "/core/pods/"})).value();
    ASSERT_TRUE(store->Create(MakePod("ns", "a")).ok());
    auto events = w->Next(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    ASSERT_EQ(events.size(), 1u);
    last_seen = events[0].revision;
    // Written after the watcher's last event, before the restart.
    ASSERT_TRUE(store->Create(MakePod("ns", "b")).ok());
    ASSERT_TRUE(store->Delete(api::StorageKey(api::Kind::kPod, "ns", "a")).ok());
  }
  auto store = Open();
  auto w = store->WatchFrom({.prefix = "/core/pods/", .resource_version = last_seen});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto events = w.value()->Poll();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, EventType::kAdded);
  EXPECT_EQ(events[0].object->name(), "b");
  EXPECT_EQ(events[1].type, EventType::kDeleted);
  EXPECT_EQ(events[1].object->name(), "a");
}

TEST_F(DurableStore, SnapshotsBoundTheLogAndRecoveryUsesThem) {
  {
    auto store = Open(/*snapshot_every=*/0);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
    ASSERT_TRUE(store->Snapshot().ok());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Delete(api::StorageKey(api::Kind::kPod, "ns", "p" + std::to_string(i))).ok());
    ASSERT_TRUE(store->Snapshot().ok());
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(store->Create(MakeNode("n" + std::to_string(i))).ok());
    ASSERT_TRUE(store->Snapshot().ok());
    ASSERT_TRUE(store->Create(MakeNode("last")).ok());
  }
  auto files = wal::ListFiles(dir_.string());
  ASSERT_TRUE(files.ok());
  int snapshots = 0;
  for (const auto& f : files.value()) snapshots += f.snapshot;
  EXPECT_EQ(snapshots, 2) << "the newest snapshot and the one before it are kept";

  auto store = Open();
  EXPECT_EQ(store->recovery_report().snapshot_revision, 65);
  EXPECT_EQ(store->recovery_report().records_replayed, 1);
  EXPECT_EQ(store->CurrentRevision(), 66);
  EXPECT_EQ(store->List({.prefix = "/core/pods/"})->items.size(), 40u);
  EXPECT_EQ(store->List({.prefix = "/core/nodes/"})->items.size(), 6u);
}

TEST_F(DurableStore, AutomaticSnapshotsKeepStateIntact) {
  {
    auto store = Open(/*snapshot_every=*/100);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
  }
  auto store = Open();
  EXPECT_EQ(store->CurrentRevision(), 1000);
  EXPECT_EQ(store->List({.prefix = "/core/pods/"})->items.size(), 1000u);
  EXPECT_GT(store->recovery_report().snapshot_revision, 0);
}

TEST_F(DurableStore, CheckReportsRevisionCountsAndFiles) {
  {
    auto store = Open();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
    ASSERT_TRUE(store->Create(MakeNode("n")).ok());
  }
  int status = 0;
  std::string out = Run("store check --data-dir " + dir_.string(), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("revision: 4"), std::string::npos) << out;
  EXPECT_NE(out.find("objects: 4"), std::string::npos) << out;
  EXPECT_NE(out.find("pods"), std::string::npos) << out;
  EXPECT_NE(out.find("wal-"), std::string::npos) << out;
}

// Recovered objects are kept as the text the store served before the restart
// (parsed on first use): the same bytes, the same fields.
TEST_F(DurableStore, RecoveredObjectsServeTheSameTextAndFields) {
  std::map<std::string, std::string> before;
  {
    auto store = Open();
    ASSERT_TRUE(store->Create(MakePod("ns", "a", R"({"app":"web"})")).ok());
    ASSERT_TRUE(store->Update(MakePod("ns", "a", R"({"app":"db"})"), 1).ok());
    ASSERT_TRUE(store->Create(MakeNode("n1")).ok());
    ASSERT_TRUE(store->Snapshot().ok());
    ASSERT_TRUE(store->Create(MakePod("ns", "b", R"({"app":"web"})")).ok());
    auto list = store->List({.prefix = "/"});
    ASSERT_TRUE(list.ok());
    for (const auto& o : list->items) before[o->StorageKey()] = o->Encoded();
  }
  auto store = Open();
  auto list = store->List({.prefix = "/"});
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), before.size());
  for (const auto& o : list->items) {
    EXPECT_EQ(o->Encoded(), before[o->StorageKey()]) << o->StorageKey();
  }
  EXPECT_TRUE(store->CheckObjects().empty());
  auto a = store->Get(api::StorageKey(api::Kind::kPod, "ns", "a"));  // from the snapshot
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value()->resource_version(), 2);
  EXPECT_EQ(a.value()->labels().Get("app"), "db");
  auto b = store->Get(api::StorageKey(api::Kind::kPod, "ns", "b"));  // from the log
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value()->resource_version(), 4);
  EXPECT_EQ(b.value()->name(), "b");
  EXPECT_NE(b.value()->Encoded().find(R"("resourceVersion":"4")"), std::string::npos);
  // Selectors parse what they need.
  ListOptions web{.prefix = "/core/pods/"};
  web.predicate = [](const api::Object& o) { return o.labels().Get("app") == "web"; };
  auto webs = store->List(web);
  ASSERT_TRUE(webs.ok());
  ASSERT_EQ(webs->items.size(), 1u);
  EXPECT_EQ(webs->items[0]->name(), "b");
  // Updating a recovered object works from its parsed form.
  ASSERT_TRUE(store->Update(MakePod("ns", "b", R"({"app":"cache"})"), 4).ok());
  EXPECT_EQ(store->Get(api::StorageKey(api::Kind::kPod, "ns", "b")).value()->labels().Get("app"),
            "cache");
}

// Records written before they carried their revision's text (type kPut) are
// still read: decoded at recovery, with the record's revision.
TEST_F(DurableStore, OlderPutRecordsAreDecodedWithTheirRevision) {
  fs::create_directories(dir_);
  {
    auto log = wal::LogWriter::Open({.dir = dir_.string(), .sync = false}, 1);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    auto pod = MakePod("ns", "old", R"({"v":"1"})");
    uint64_t position = log.value()->Append(
        {wal::Record::Type::kPut, 1, pod->StorageKey(), std::string(pod->Encoded())});
    log.value()->WaitDurable(position);
  }
  auto store = Open();
  auto old = store->Get(api::StorageKey(api::Kind::kPod, "ns", "old"));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old.value()->resource_version(), 1);
  EXPECT_EQ(old.value()->labels().Get("v"), "1");
  EXPECT_NE(old.value()->Encoded().find(R"("resourceVersion":"1")"), std::string::npos);
}

// A record whose text does not decode (not something berth writes) is named
// by store check, and restore refuses to carry it over.
TEST_F(DurableStore, CheckNamesStoredObjectsThatDoNotDecode) {
  fs::create_directories(dir_);
  {
    auto log = wal::LogWriter::Open({.dir = dir_.string(), .sync = false}, 1);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    auto good = MakePod("ns", "good");
    log.value()->Append({wal::Record::Type::kPutAtRevision, 1, good->StorageKey(),
                         good->EncodeForRevision().At(1)});
    uint64_t position = log.value()->Append({wal::Record::Type::kPutAtRevision, 2,
                                              api::StorageKey(api::Kind::kPod, "ns", "bad"),
                                              R"({"apiVersion":"v1","kind":"Pod",)"});
    log.value()->WaitDurable(position);
  }
  int status = 0;
  std::string out = Run("store check --data-dir " + dir_.string(), &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("does not decode: /core/pods/ns/bad at revision 2: invalid JSON"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("/core/pods/ns/good at"), std::string::npos) << out;
  out = Run("store restore --data-dir " + dir_.string() + " --to-revision 2", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("do not decode"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir_ / wal::SegmentFileName(1)));
}

TEST_F(DurableStore, CheckRefusesCorruptLogNamingFileAndOffset) {
  {
    auto store = Open();
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
  }
  auto files = wal::ListFiles(dir_.string());
  ASSERT_TRUE(files.ok());
  fs::path log = dir_ / files.value().front().name;
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);  // inside an early record, with valid records after it
    char c;
    f.seekg(200);
    f.get(c);
    f.seekp(200);
    f.put(static_cast<char>(c ^ 0x5a));
  }
  int status = 0;
  std::string out = Run("store check --data-dir " + dir_.string(), &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find(files.value().front().name), std::string::npos) << out;
  EXPECT_NE(out.find("offset"), std::string::npos) << out;
  // The store refuses to open too, and the file is left as it was.
  MemoryStore::Options options;
  options.data_dir = dir_.string();
  EXPECT_FALSE(MemoryStore::Open(options).ok());
}

TEST_F(DurableStore, RestoreRollsBackToAPastRevisionAndKeepsABackup) {
  {
    auto store = Open();
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
    ASSERT_TRUE(store->Snapshot().ok());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Delete(api::StorageKey(api::Kind::kPod, "ns", "p" + std::to_string(i))).ok());
  }
  int status = 0;
  std::string out = Run("store restore --data-dir " + dir_.string() + " --to-revision 7", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("backup"), std::string::npos) << out;
  {
    auto store = Open();
    EXPECT_EQ(store->CurrentRevision(), 7);
    EXPECT_EQ(store->List({.prefix = "/core/pods/"})->items.size(), 7u);
    auto p6 = store->Get(api::StorageKey(api::Kind::kPod, "ns", "p6"));
    ASSERT_TRUE(p6.ok());
    EXPECT_EQ(p6.value()->resource_version(), 7);
    ASSERT_TRUE(store->Create(MakeNode("after")).ok());
    EXPECT_EQ(store->CurrentRevision(), 8);
  }
  // A revision beyond the log is refused and changes nothing.
  out = Run("store restore --data-dir " + dir_.string() + " --to-revision 500", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_EQ(Open()->CurrentRevision(), 8);
}

// Under a DeferAcknowledgement a write returns before its fsync; it is
// published (readers, watchers, WhenVisible) only once durable, by the log.
TEST_F(DurableStore, DeferredWritesArePublishedOnceDurable) {
  auto store = Open();
  auto watch = store->WatchFrom({.prefix = "/core/pods/"});
  ASSERT_TRUE(watch.ok());
  int64_t revision = 0;
  {
    DeferAcknowledgement defer;
    auto created = store->Create(MakePod("ns", "a"));
    ASSERT_TRUE(created.ok());
    revision = created.value()->resource_version();
    EXPECT_EQ(defer.revision(), revision);
    auto second = store->Create(MakePod("ns", "b"));
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(defer.revision(), revision + 1);  // the newest
    revision = defer.revision();
  }
  std::promise<void> visible;
  store->WhenVisible(revision, [&] { visible.set_value(); });
  ASSERT_EQ(visible.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_GE(store->CurrentRevision(), revision);
  EXPECT_TRUE(store->Get(api::StorageKey(api::Kind::kPod, "ns", "b")).ok());
  auto events = watch.value()->Next(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  while (events.size() < 2) {
    auto more = watch.value()->Next(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    ASSERT_FALSE(more.empty());
    events.insert(events.end(), more.begin(), more.end());
  }
  EXPECT_EQ(events[0].revision, revision - 1);
  EXPECT_EQ(events[1].revision, revision);

  // Already visible: the callback runs before WhenVisible returns.
  bool at_once = false;
  store->WhenVisible(revision, [&] { at_once = true; });
  EXPECT_TRUE(at_once);

  // Writes outside a scope wait as before: visible when they return.
  auto c = store->Create(MakePod("ns", "c"));
  ASSERT_TRUE(c.ok());
  EXPECT_GE(store->CurrentRevision(), c.value()->resource_version());

  // A deferred write is durable: it is there after a restart.
  {
    DeferAcknowledgement defer;
    ASSERT_TRUE(store->Create(MakePod("ns", "d")).ok());
    revision = defer.revision();
  }
  store->Close();  // publishes what was logged; later callbacks run at once
  bool after_close = false;
  store->WhenVisible(revision, [&] { after_close = true; });
  EXPECT_TRUE(after_close);
  watch.value().reset();  // a watch goes before its store
  store.reset();
  EXPECT_TRUE(Open()->Get(api::StorageKey(api::Kind::kPod, "ns", "d")).ok());
}

// Without a log a write is visible when it returns: nothing is deferred.
TEST_F(DurableStore, InMemoryWritesAreNeverDeferred) {
  auto store = MemoryStore::Open({});
  ASSERT_TRUE(store.ok());
  DeferAcknowledgement defer;
  ASSERT_TRUE(store.value()->Create(MakePod("ns", "a")).ok());
  EXPECT_EQ(defer.revision(), 0);
  EXPECT_EQ(store.value()->CurrentRevision(), 1);
}

}  // namespace
}  // namespace berth::store

namespace berth::store {
namespace {

// One owner per data directory: a second store (another process or this
// one), `store demo` and `store restore` are refused while the first is open;
// a read-only check is not; Close hands the directory over.
TEST_F(DurableStore, ASecondOwnerIsRefusedWhileTheFirstIsOpen) {
  auto first = Open();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->Create(MakePod("default", "a")).ok());
  MemoryStore::Options options;
  options.data_dir = dir_.string();
  auto second = MemoryStore::Open(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(second.status().message(),
            "data directory " + dir_.string() + " is in use by PID " + std::to_string(::getpid()));
  int status = 0;
  std::string out = Run("store restore --data-dir " + dir_.string() + " --to-revision 1", &status);
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(out.find("is in use by PID " + std::to_string(::getpid())), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir_ / "LOCK"));
  out = Run("store demo --data-dir " + dir_.string(), &status);
  EXPECT_NE(status, 0) << out;
  out = Run("store check --data-dir " + dir_.string(), &status);
  EXPECT_EQ(status, 0) << out;

  first->Close();
  auto third = Open();
  ASSERT_NE(third, nullptr);
  EXPECT_TRUE(third->Get(MakePod("default", "a")->StorageKey()).ok());
}

}  // namespace
}  // namespace berth::store
