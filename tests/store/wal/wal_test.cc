// Write-ahead log, snapshots and recovery: what survives, what is repaired and
// what is refused.

#include "store/wal/wal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/wal/crc32c.h"
#include "store/wal/record_format.h"

namespace berth::store::wal {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---------------------------------------------------------------- helpers

// The record every test writes at `revision`: a mix of puts and deletes, with
// values of varying length.
Record RecordAt(int64_t revision) {
  Record r;
  r.revision = revision;
  r.key = "/registry/pods/default/pod-" + std::to_string(revision % 7);
  if (revision % 5 == 0) {
    r.type = Record::Type::kDelete;
  } else {
    r.type = Record::Type::kPut;
    r.value = R"({"kind":"Pod","metadata":{"name":"pod-)" + std::to_string(revision % 7) +
              R"("},"spec":{"filler":")" + std::string(static_cast<size_t>(revision % 40), 'x') +
              R"("}})";
  }
  return r;
}

std::vector<Record> RecordsFrom(int64_t from, int64_t to) {
  std::vector<Record> records;
  for (int64_t r = from; r <= to; ++r) {
    records.push_back(RecordAt(r));
  }
  return records;
}

// The bytes RecordAt(revision) takes in a segment.
size_t FramedSize(int64_t revision) {
  std::string bytes;
  AppendRecord(RecordAt(revision), &bytes);
  return bytes.size();
}

LogWriter::Options WriterOptions(const std::string& dir, bool sync,
                                 std::function<void(double)> on_fsync = nullptr) {
  LogWriter::Options options;
  options.dir = dir;
  options.sync = sync;
  options.on_fsync = std::move(on_fsync);
  return options;
}

RecoverOptions WithoutRepair() {
  RecoverOptions options;
  options.repair = false;
  return options;
}

RecoverOptions UpTo(int64_t max_revision) {
  RecoverOptions options;
  options.max_revision = max_revision;
  return options;
}

// Appends RecordAt(from..to) through a LogWriter opened at `from`, rotating to
// a new segment before each revision in `rotate_before`.
void WriteLog(const std::string& dir, int64_t from, int64_t to,
              const std::set<int64_t>& rotate_before = {}) {
  auto writer = LogWriter::Open(WriterOptions(dir, false), from);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (int64_t r = from; r <= to; ++r) {
    if (rotate_before.contains(r)) {
      (*writer)->Rotate(r);
    }
    (*writer)->Append(RecordAt(r));
  }
  (*writer)->Close();
}

// The snapshot every test takes at `revision`: the live keys of RecordsFrom(1, revision).
std::map<std::string, std::pair<int64_t, std::string>> StateAt(int64_t revision) {
  std::map<std::string, std::pair<int64_t, std::string>> state;
  for (int64_t r = 1; r <= revision; ++r) {
    Record rec = RecordAt(r);
    if (rec.type == Record::Type::kDelete) {
      state.erase(rec.key);
    } else {
      state[rec.key] = {r, rec.value};
    }
  }
  return state;
}

void WriteStateSnapshot(const std::string& dir, int64_t revision) {
  auto state = StateAt(revision);
  std::vector<SnapshotEntry> entries;
  entries.reserve(state.size());
  for (const auto& [key, v] : state) {
    entries.push_back({key, v.first, v.second});
  }
  ASSERT_TRUE(WriteSnapshot(dir, revision, entries).ok());
}

struct Recovered {
  Result<RecoveryReport> report = Status::Internal("not run");
  std::map<std::string, std::pair<int64_t, std::string>> snapshot;
  std::vector<Record> records;
};

Recovered RecoverDir(const std::string& dir, RecoverOptions options = {}) {
  Recovered out;
  out.report = Recover(
      dir, options,
      [&](SnapshotEntry e) {
        out.snapshot[std::string(e.key)] = {e.revision, std::string(e.value)};
      },
      [&](Record&& r) { out.records.push_back(std::move(r)); });
  return out;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

class WalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/berth-wal-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string PathOf(const std::string& name) const { return dir_ + "/" + name; }
  std::string Segment(int64_t revision) const { return PathOf(SegmentFileName(revision)); }
  std::string Snapshot(int64_t revision) const { return PathOf(SnapshotFileName(revision)); }

  std::vector<std::string> Names() const {
    auto files = ListFiles(dir_);
    EXPECT_TRUE(files.ok());
    std::vector<std::string> names;
    for (const FileInfo& f : files.value()) {
      names.push_back(f.name);
    }
    return names;
  }

  std::string dir_;
};

// ---------------------------------------------------------------- CRC-32C

TEST(Crc32cTest, MatchesKnownVectors) {
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  struct Case {
    std::string name;
    std::string input;
    uint32_t crc;
  };
  const std::vector<Case> cases = {
      {"empty", "", 0x00000000},
      {"check string", "123456789", 0xE3069283},
      {"32 zero bytes", std::string(32, '\0'), 0x8A9136AA},
      {"32 0xff bytes", std::string(32, '\xff'), 0x62A8AB43},
      {"ascending bytes", ascending, 0x46DD794E},
      {"descending bytes", descending, 0x113FDB5C},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Crc32c(c.input), c.crc) << c.name;
    EXPECT_EQ(Crc32cExtendPortable(0, c.input.data(), c.input.size()), c.crc) << c.name;
  }
}

TEST(Crc32cTest, ExtendingEqualsOneCallAndHardwareEqualsTable) {
  std::string data;
  uint32_t x = 12345;
  for (int i = 0; i < 3000; ++i) {
    x = x * 1103515245 + 12345;
    data.push_back(static_cast<char>(x >> 16));
  }
  const uint32_t whole = Crc32c(data);
  for (size_t split : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{13}, size_t{1500},
                       size_t{2999}, size_t{3000}}) {
    EXPECT_EQ(Crc32cExtend(Crc32c(data.data(), split), data.data() + split, data.size() - split),
              whole)
        << "split at " << split;
  }
  // Unaligned starts and odd lengths exercise the hardware path's tails.
  for (size_t start = 0; start < 9; ++start) {
    for (size_t len : {size_t{0}, size_t{1}, size_t{5}, size_t{8}, size_t{63}, size_t{1001}}) {
      EXPECT_EQ(Crc32cExtend(7, data.data() + start, len),
                Crc32cExtendPortable(7, data.data() + start, len))
          << "start " << start << " length " << len;
    }
  }
}

// ---------------------------------------------------------------- writing and reading back

TEST_F(WalTest, AppendedRecordsRecoverInOrder) {
  std::vector<Record> written = RecordsFrom(1, 50);
  Record big{Record::Type::kPut, 51, "/registry/configmaps/default/big", std::string(1 << 20, 'v')};
  Record empty_key{Record::Type::kDelete, 52, "", ""};
  written.push_back(big);
  written.push_back(empty_key);
  {
    auto writer = LogWriter::Open(WriterOptions(dir_, true), 1);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    uint64_t last = 0;
    for (const Record& r : written) {
      last = (*writer)->Append(r);
    }
    (*writer)->WaitDurable(last);
  }  // the destructor closes

  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.records, written);
  EXPECT_THAT(got.snapshot, IsEmpty());
  EXPECT_EQ(got.report->snapshot_revision, 0);
  EXPECT_EQ(got.report->last_revision, 52);
  EXPECT_EQ(got.report->records_replayed, 52);
  EXPECT_THAT(got.report->notes, IsEmpty());
}

TEST_F(WalTest, EmptyDirectoryRecoversNothing) {
  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok());
  EXPECT_EQ(got.report->last_revision, 0);
  EXPECT_THAT(got.records, IsEmpty());
}

TEST_F(WalTest, ConcurrentAppendersAllBecomeDurable) {
  constexpr int64_t kThreads = 8;
  constexpr int64_t kPerThread = 100;
  std::atomic<int> fsyncs{0};
  auto on_fsync = [&](double seconds) {
    EXPECT_GE(seconds, 0.0);
    fsyncs++;
  };
  auto writer = LogWriter::Open(WriterOptions(dir_, true, on_fsync), 1);
  ASSERT_TRUE(writer.ok());
  std::mutex order_mu;  // callers serialise Append so revisions stay in order
  int64_t next_revision = 1;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int64_t i = 0; i < kPerThread; ++i) {
        uint64_t position;
        {
          std::lock_guard<std::mutex> lock(order_mu);
          position = (*writer)->Append(RecordAt(next_revision++));
        }
        (*writer)->WaitDurable(position);
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_GE(fsyncs.load(), 1);
  EXPECT_LE(fsyncs.load(), kThreads * kPerThread);

  // Every acknowledged record is on disk before Close.
  Recovered got = RecoverDir(dir_, WithoutRepair());
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.records, RecordsFrom(1, kThreads * kPerThread));
  (*writer)->Close();
}

TEST_F(WalTest, AppendsWaitingDuringAnFsyncShareTheNextOne) {
  std::mutex mu;
  std::condition_variable cv;
  bool in_first_fsync = false, release = false;
  int fsyncs = 0;
  // The first fsync's callback holds the writer thread until released.
  auto on_fsync = [&](double) {
    std::unique_lock<std::mutex> lock(mu);
    if (++fsyncs == 1) {
      in_first_fsync = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    }
  };
  auto writer = LogWriter::Open(WriterOptions(dir_, true, on_fsync), 1);
  ASSERT_TRUE(writer.ok());
  (*writer)->Append(RecordAt(1));
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return in_first_fsync; });
  }
  // The writer thread is busy with record 1: these 99 queue up meanwhile.
  uint64_t last = 0;
  for (int64_t r = 2; r <= 100; ++r) {
    last = (*writer)->Append(RecordAt(r));
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  (*writer)->WaitDurable(last);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(fsyncs, 2);
}

TEST_F(WalTest, WithoutSyncNoFsyncIsReported) {
  int fsyncs = 0;
  auto writer = LogWriter::Open(WriterOptions(dir_, false, [&](double) { ++fsyncs; }), 1);
  ASSERT_TRUE(writer.ok());
  (*writer)->WaitDurable((*writer)->Append(RecordAt(1)));
  (*writer)->Close();
  (*writer)->Close();  // idempotent
  EXPECT_EQ(fsyncs, 0);
  EXPECT_EQ(RecoverDir(dir_).records, RecordsFrom(1, 1));
}

TEST_F(WalTest, RotateStartsSegmentsThatRecoverySpans) {
  WriteLog(dir_, 1, 25, {11, 21});
  EXPECT_THAT(Names(), ElementsAre(SegmentFileName(1), SegmentFileName(11), SegmentFileName(21)));
  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.records, RecordsFrom(1, 25));
}

TEST_F(WalTest, RotatedSegmentExistsOnceALaterRecordIsDurable) {
  auto writer = LogWriter::Open(WriterOptions(dir_, true), 1);
  ASSERT_TRUE(writer.ok());
  (*writer)->Append(RecordAt(1));
  (*writer)->Rotate(2);
  (*writer)->WaitDurable((*writer)->Append(RecordAt(2)));
  EXPECT_TRUE(fs::exists(Segment(2)));
  EXPECT_EQ(RecoverDir(dir_, WithoutRepair()).records, RecordsFrom(1, 2));
}

// The bytes of RecordsFrom(from, to) in one segment, header included.
size_t SegmentSize(int64_t from, int64_t to) {
  size_t size = kSegmentHeaderSize;
  for (int64_t r = from; r <= to; ++r) {
    size += FramedSize(r);
  }
  return size;
}

TEST_F(WalTest, SegmentsAreFilledAheadWithZerosAndCutBackAtRotationAndClose) {
  for (uint64_t fill_ahead : {uint64_t{4096}, uint64_t{1} << 20}) {
    SCOPED_TRACE("fill_ahead " + std::to_string(fill_ahead));
    fs::remove_all(dir_);
    fs::create_directory(dir_);
    LogWriter::Options options = WriterOptions(dir_, true);
    options.fill_ahead = fill_ahead;
    auto writer = LogWriter::Open(options, 1);
    ASSERT_TRUE(writer.ok());
    // One record per fsync: with 4 KiB the fill is renewed many times.
    for (int64_t r = 1; r <= 60; ++r) {
      (*writer)->WaitDurable((*writer)->Append(RecordAt(r)));
      ASSERT_GT(fs::file_size(Segment(1)), SegmentSize(1, r)) << "after record " << r;
    }
    // What a crash now would leave: every record, then zeros.
    const std::string copy = dir_ + "/crashed";
    fs::create_directory(copy);
    fs::copy_file(Segment(1), copy + "/" + SegmentFileName(1));
    Recovered crashed = RecoverDir(copy);
    ASSERT_TRUE(crashed.report.ok()) << crashed.report.status().message();
    EXPECT_EQ(crashed.records, RecordsFrom(1, 60));
    ASSERT_EQ(crashed.report->notes.size(), 1u);
    EXPECT_THAT(crashed.report->notes[0],
                HasSubstr("truncated zero-filled end of " + SegmentFileName(1) + " at offset " +
                          std::to_string(SegmentSize(1, 60))));
    EXPECT_EQ(fs::file_size(copy + "/" + SegmentFileName(1)), SegmentSize(1, 60));
    fs::remove_all(copy);

    (*writer)->Rotate(61);
    (*writer)->WaitDurable((*writer)->Append(RecordAt(61)));
    EXPECT_EQ(fs::file_size(Segment(1)), SegmentSize(1, 60));  // cut at rotation
    EXPECT_GT(fs::file_size(Segment(61)), SegmentSize(61, 61));
    (*writer)->Close();
    EXPECT_EQ(fs::file_size(Segment(61)), SegmentSize(61, 61));  // cut at close
    Recovered got = RecoverDir(dir_);
    ASSERT_TRUE(got.report.ok()) << got.report.status().message();
    EXPECT_EQ(got.records, RecordsFrom(1, 61));
    EXPECT_THAT(got.report->notes, IsEmpty());
  }
}

TEST_F(WalTest, WithoutSyncNothingIsFilledAhead) {
  auto writer = LogWriter::Open(WriterOptions(dir_, false), 1);
  ASSERT_TRUE(writer.ok());
  (*writer)->WaitDurable((*writer)->Append(RecordAt(1)));
  EXPECT_EQ(fs::file_size(Segment(1)), SegmentSize(1, 1));
}

TEST_F(WalTest, RotationsDuringConcurrentAppendsKeepRecordsInTheirSegments) {
  constexpr int64_t kThreads = 4;
  constexpr int64_t kPerThread = 150;
  auto writer = LogWriter::Open(WriterOptions(dir_, false), 1);
  ASSERT_TRUE(writer.ok());
  std::mutex order_mu;
  int64_t next_revision = 1;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int64_t i = 0; i < kPerThread; ++i) {
        uint64_t position;
        {
          std::lock_guard<std::mutex> lock(order_mu);
          const int64_t revision = next_revision++;
          if (revision % 50 == 1 && revision > 1) {
            (*writer)->Rotate(revision);
          }
          position = (*writer)->Append(RecordAt(revision));
        }
        (*writer)->WaitDurable(position);
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  (*writer)->Close();
  EXPECT_EQ(Names().size(), 12u);    // wal-1, wal-51, ..., wal-551
  Recovered got = RecoverDir(dir_);  // checks each record against its segment's range
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.records, RecordsFrom(1, kThreads * kPerThread));
}

TEST_F(WalTest, RotatingAnEmptySegmentToItsOwnRevisionKeepsOneFile) {
  auto writer = LogWriter::Open(WriterOptions(dir_, false), 1);
  ASSERT_TRUE(writer.ok());
  (*writer)->Rotate(1);
  (*writer)->Append(RecordAt(1));
  (*writer)->Rotate(2);
  (*writer)->Rotate(2);
  (*writer)->Close();
  EXPECT_THAT(Names(), ElementsAre(SegmentFileName(1), SegmentFileName(2)));
}

TEST_F(WalTest, ListFilesSortsByRevisionAndIgnoresOtherFiles) {
  WriteLog(dir_, 1, 20, {11});
  WriteStateSnapshot(dir_, 10);
  WriteBytes(PathOf("notes.txt"), "hello");
  WriteBytes(PathOf("wal-xyz.log"), "not a segment name");
  WriteBytes(PathOf(SnapshotFileName(30) + ".tmp"), "half written");
  auto files = ListFiles(dir_);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ((*files)[0].name, SegmentFileName(1));
  EXPECT_FALSE((*files)[0].snapshot);
  EXPECT_EQ((*files)[0].revision, 1);
  EXPECT_EQ((*files)[0].bytes, static_cast<int64_t>(fs::file_size(Segment(1))));
  EXPECT_EQ((*files)[1].name, SnapshotFileName(10));
  EXPECT_TRUE((*files)[1].snapshot);
  EXPECT_EQ((*files)[2].name, SegmentFileName(11));
  EXPECT_EQ(SegmentFileName(255), "wal-00000000000000ff.log");
  EXPECT_EQ(SnapshotFileName(4096), "snap-0000000000001000.snap");
}

TEST_F(WalTest, OpenRefusesToWriteOverRecordedRevisions) {
  WriteLog(dir_, 1, 20, {11});
  for (int64_t next : {1, 5, 11}) {
    auto writer = LogWriter::Open(WriterOptions(dir_, false), next);
    ASSERT_FALSE(writer.ok()) << "next revision " << next;
    EXPECT_THAT(writer.status().message(), HasSubstr("already holds log records"));
  }
  EXPECT_TRUE(LogWriter::Open(WriterOptions(dir_, false), 21).ok());
}

TEST_F(WalTest, OpenReplacesAHeaderOnlySegment) {
  WriteLog(dir_, 1, 10);
  // A crash right after a segment was created leaves only (part of) its header.
  WriteBytes(Segment(11), EncodeSegmentHeader(11).substr(0, 10));
  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_THAT(got.report->notes, ElementsAre("removed torn segment " + SegmentFileName(11) +
                                             " at offset 0 (10 bytes)"));
  EXPECT_FALSE(fs::exists(Segment(11)));

  WriteBytes(Segment(11), EncodeSegmentHeader(11));
  auto writer = LogWriter::Open(WriterOptions(dir_, true), 11);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  (*writer)->Append(RecordAt(11));
  (*writer)->Close();
  EXPECT_EQ(RecoverDir(dir_).records, RecordsFrom(1, 11));
}

// Runs in a death-test child: the segment may not grow past 4 KiB, so the
// writer thread's write fails with EFBIG.
void AppendPastFileSizeLimit(const std::string& dir) {
  std::signal(SIGXFSZ, SIG_IGN);  // fail the write instead of killing the process
  rlimit limit;
  limit.rlim_cur = limit.rlim_max = 4096;
  ::setrlimit(RLIMIT_FSIZE, &limit);
  auto writer = LogWriter::Open(WriterOptions(dir, true), 1);
  if (!writer.ok()) {
    std::exit(3);
  }
  Record big = RecordAt(1);
  big.value.assign(100000, 'v');
  const uint64_t position = (*writer)->Append(big);
  (*writer)->WaitDurable(position);
  // The log failed for good rather than retrying or aborting: it says why.
  std::fprintf(stderr, "%s\n", (*writer)->Health().message().c_str());
  std::exit((*writer)->IsDurable(position) ? 4 : 0);
}

// Runs in a death-test child: the segment may not grow past 16 KiB, so the
// first fill ahead (64 KiB) fails with EFBIG while the records still fit.
// Exits 0 when every record was durable and recovers.
void AppendWhileFillingFails(const std::string& dir) {
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit limit;
  limit.rlim_cur = limit.rlim_max = 16 * 1024;
  ::setrlimit(RLIMIT_FSIZE, &limit);
  {
    auto writer = LogWriter::Open(WriterOptions(dir, true), 1);
    if (!writer.ok()) std::exit(3);
    for (int64_t r = 1; r <= 40; ++r) (*writer)->WaitDurable((*writer)->Append(RecordAt(r)));
    if (fs::file_size(dir + "/" + SegmentFileName(1)) != SegmentSize(1, 40)) std::exit(4);
  }
  Recovered got = RecoverDir(dir);
  std::exit(got.report.ok() && got.records == RecordsFrom(1, 40) && got.report->notes.empty() ? 0
                                                                                              : 5);
}

TEST_F(WalTest, AFailedFillAheadIsCutOffAndTheLogGoesOn) {
  EXPECT_EXIT(AppendWhileFillingFails(dir_), ::testing::ExitedWithCode(0),
              "no longer filling segments ahead");
}

TEST_F(WalTest, FailedWriteFailsTheLogNamingTheFileAndErrno) {
  // The default ("fast") style forks here, so the child writes into this
  // test's directory and TearDown removes it.
  EXPECT_EXIT(AppendPastFileSizeLimit(dir_), ::testing::ExitedWithCode(0),
              "write-ahead log failed \\(write .*wal-0000000000000001\\.log: File too large \\(errno 27\\)\\)");
}

// ---------------------------------------------------------------- snapshots

TEST_F(WalTest, SnapshotRoundTripsEveryEntry) {
  std::vector<std::string> keys, values;
  for (int i = 0; i < 20000; ++i) {
    keys.push_back("/registry/pods/ns/p" + std::to_string(i));
    values.push_back(std::string(static_cast<size_t>(i % 300), static_cast<char>('a' + i % 26)));
  }
  values[7] = std::string(3 << 20, 'h');  // larger than the write buffer
  std::vector<SnapshotEntry> entries;
  entries.reserve(keys.size());
  for (int i = 0; i < 20000; ++i) {
    entries.push_back({keys[i], 1 + i % 500, values[i]});
  }
  ASSERT_TRUE(WriteSnapshot(dir_, 500, entries).ok());
  EXPECT_THAT(Names(), ElementsAre(SnapshotFileName(500)));  // no temporary left

  size_t seen = 0;
  bool in_order = true;
  auto report = Recover(
      dir_, {},
      [&](SnapshotEntry e) {
        in_order = in_order && e.key == keys[seen] && e.value == values[seen] &&
                   e.revision == 1 + static_cast<int64_t>(seen) % 500;
        ++seen;
      },
      [](Record&&) {});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(seen, 20000u);
  EXPECT_TRUE(in_order);
  EXPECT_EQ(report->snapshot_revision, 500);
  EXPECT_EQ(report->last_revision, 500);
}

TEST_F(WalTest, SnapshotThenLaterRecordsReplaysOnlyTheRecordsAfterIt) {
  // Without rotation the segment still holds revisions the snapshot covers.
  WriteLog(dir_, 1, 15);
  WriteStateSnapshot(dir_, 10);
  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.snapshot, StateAt(10));
  EXPECT_EQ(got.records, RecordsFrom(11, 15));
  EXPECT_EQ(got.report->snapshot_revision, 10);
  EXPECT_EQ(got.report->last_revision, 15);
  EXPECT_EQ(got.report->records_replayed, 5);
}

TEST_F(WalTest, MaxRevisionRestoresAPastState) {
  WriteLog(dir_, 1, 25, {11, 21});
  WriteStateSnapshot(dir_, 10);
  WriteStateSnapshot(dir_, 20);
  struct Case {
    int64_t max_revision;
    int64_t snapshot;
    int64_t first_record, last_record;  // 0, -1: none
  };
  const std::vector<Case> cases = {
      {5, 0, 1, 5},     {10, 10, 0, -1},  {12, 10, 11, 12},   {20, 20, 0, -1},
      {24, 20, 21, 24}, {25, 20, 21, 25}, {1000, 20, 21, 25},
  };
  for (const Case& c : cases) {
    Recovered got = RecoverDir(dir_, UpTo(c.max_revision));
    ASSERT_TRUE(got.report.ok()) << c.max_revision << ": " << got.report.status().message();
    EXPECT_EQ(got.report->snapshot_revision, c.snapshot) << c.max_revision;
    EXPECT_EQ(got.snapshot, c.snapshot ? StateAt(c.snapshot) : StateAt(0)) << c.max_revision;
    EXPECT_EQ(got.records,
              c.first_record ? RecordsFrom(c.first_record, c.last_record) : std::vector<Record>{})
        << c.max_revision;
    EXPECT_EQ(got.report->last_revision, std::min<int64_t>(c.max_revision, 25)) << c.max_revision;
  }
}

TEST_F(WalTest, DamagedNewestSnapshotFallsBackWhenTheLogCoversTheOlderOne) {
  WriteLog(dir_, 1, 25, {11, 21});
  WriteStateSnapshot(dir_, 10);
  WriteStateSnapshot(dir_, 20);
  std::string bytes = ReadBytes(Snapshot(20));
  bytes[bytes.size() / 2] ^= 0x01;
  WriteBytes(Snapshot(20), bytes);

  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.report->snapshot_revision, 10);
  EXPECT_EQ(got.snapshot, StateAt(10));
  EXPECT_EQ(got.records, RecordsFrom(11, 25));
  ASSERT_EQ(got.report->notes.size(), 1u);
  EXPECT_THAT(got.report->notes[0],
              HasSubstr(SnapshotFileName(20) + ": corrupt snapshot (CRC mismatch)"));
  EXPECT_EQ(ReadBytes(Snapshot(20)), bytes);  // left for inspection
}

TEST_F(WalTest, DamagedSnapshotIsRefusedWhenTheLogNoLongerCoversAnOlderOne) {
  struct Case {
    std::string name;
    std::function<void(const std::string& path)> damage;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"flipped byte",
       [](const std::string& p) {
         std::string b = ReadBytes(p);
         b[40] ^= 0x20;
         WriteBytes(p, b);
       },
       "CRC mismatch"},
      {"cut short", [](const std::string& p) { fs::resize_file(p, fs::file_size(p) - 3); },
       "CRC mismatch"},
      {"foreign file", [](const std::string& p) { WriteBytes(p, std::string(100, 'z')); },
       "bad magic"},
  };
  for (const Case& c : cases) {
    fs::remove_all(dir_);
    fs::create_directory(dir_);
    WriteLog(dir_, 1, 25, {11, 21});
    WriteStateSnapshot(dir_, 10);
    WriteStateSnapshot(dir_, 20);
    ASSERT_TRUE(PruneBefore(dir_, 20).ok());
    c.damage(Snapshot(20));
    Recovered got = RecoverDir(dir_);
    ASSERT_FALSE(got.report.ok()) << c.name;
    EXPECT_EQ(got.report.status().code(), StatusCode::kInternal) << c.name;
    EXPECT_THAT(got.report.status().message(),
                HasSubstr(SnapshotFileName(20) + ": corrupt snapshot (" + c.problem + ")"))
        << c.name;
  }
}

TEST_F(WalTest, DamagedOnlySnapshotFallsBackToAWholeLog) {
  WriteLog(dir_, 1, 25);
  WriteStateSnapshot(dir_, 20);
  fs::resize_file(Snapshot(20), 10);
  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.report->snapshot_revision, 0);
  EXPECT_EQ(got.records, RecordsFrom(1, 25));
  EXPECT_THAT(got.report->notes[0], HasSubstr("recovered from the log alone"));
}

TEST_F(WalTest, PruneBeforeRemovesWhatTheSnapshotCovers) {
  WriteLog(dir_, 1, 35, {11, 21, 31});
  WriteStateSnapshot(dir_, 10);
  WriteStateSnapshot(dir_, 25);

  ASSERT_TRUE(PruneBefore(dir_, 10).ok());
  EXPECT_THAT(Names(), ElementsAre(SnapshotFileName(10), SegmentFileName(11), SegmentFileName(21),
                                   SnapshotFileName(25), SegmentFileName(31)));

  ASSERT_TRUE(PruneBefore(dir_, 25).ok());
  // wal-21 holds 21..30, partly after the snapshot: kept.
  EXPECT_THAT(Names(), ElementsAre(SegmentFileName(21), SnapshotFileName(25), SegmentFileName(31)));

  Recovered got = RecoverDir(dir_);
  ASSERT_TRUE(got.report.ok()) << got.report.status().message();
  EXPECT_EQ(got.snapshot, StateAt(25));
  EXPECT_EQ(got.records, RecordsFrom(26, 35));
}

TEST_F(WalTest, PruneBeforeKeepsTheNewestSegmentAndNeedsASnapshot) {
  WriteLog(dir_, 1, 10);
  Status refused = PruneBefore(dir_, 10);
  EXPECT_EQ(refused.code(), StatusCode::kBadRequest);
  EXPECT_THAT(Names(), ElementsAre(SegmentFileName(1)));

  WriteStateSnapshot(dir_, 10);
  WriteBytes(PathOf(SnapshotFileName(5) + ".tmp"), "left by a crash");
  ASSERT_TRUE(PruneBefore(dir_, 10).ok());
  EXPECT_THAT(Names(), ElementsAre(SegmentFileName(1), SnapshotFileName(10)));
  EXPECT_FALSE(fs::exists(PathOf(SnapshotFileName(5) + ".tmp")));
}

// ---------------------------------------------------------------- torn tails

TEST_F(WalTest, TornTailIsCutAndEveryCompleteRecordRecovers) {
  // Records 1..5 in one segment; the damage is to record 5 or after it.
  const size_t record5 = SegmentSize(1, 4);
  const size_t record5_size = FramedSize(5);
  const size_t complete = record5 + record5_size;

  struct Case {
    std::string name;
    std::function<void(std::string*)> damage;
    size_t cut_at;          // where the file must end after repair
    int64_t last_revision;  // the newest record recovered
    bool zero_filled = false;  // only zeros from cut_at on (as the writer fills ahead)
  };
  auto cut = [](size_t n) { return [n](std::string* b) { b->resize(n); }; };
  auto flip = [](size_t at) { return [at](std::string* b) { (*b)[at] ^= 0x40; }; };
  const std::vector<Case> cases = {
      {"one header byte", cut(record5 + 1), record5, 4},
      {"header less one byte", cut(record5 + kRecordHeaderSize - 1), record5, 4},
      {"header only", cut(record5 + kRecordHeaderSize), record5, 4},
      {"header and one payload byte", cut(record5 + kRecordHeaderSize + 1), record5, 4},
      {"payload less one byte", cut(complete - 1), record5, 4},
      {"last payload byte flipped", flip(complete - 1), record5, 4},
      {"last record zero-filled",
       [&](std::string* b) { std::fill(b->begin() + record5, b->end(), '\0'); }, record5, 4, true},
      {"zeros after the last record", [](std::string* b) { b->append(4096, '\0'); }, complete, 5,
       true},
      {"one zero byte after the last record", [](std::string* b) { b->push_back('\0'); }, complete,
       5, true},
      {"a megabyte of zeros after the last record",
       [](std::string* b) { b->append(1 << 20, '\0'); }, complete, 5, true},
      {"a stray byte in the zeros",
       [](std::string* b) {
         b->append(1 << 20, '\0');
         (*b)[b->size() - 4097] = '\x01';
       },
       complete, 5},
      {"garbage after the last record", [](std::string* b) { b->append("\x13garbage!\xff\x01"); },
       complete, 5},
      {"three stray bytes", [](std::string* b) { b->append("abc"); }, complete, 5},
      // Recovery stays fast: random bytes fail the cheap checks before any CRC.
      {"megabytes of random bytes",
       [](std::string* b) {
         uint32_t x = 42;
         for (int i = 0; i < (4 << 20); ++i) {
           x = x * 1664525 + 1013904223;
           b->push_back(static_cast<char>(x >> 24));
         }
       },
       complete, 5},
      {"cut mid-payload then zeros",
       [&](std::string* b) {
         b->resize(record5 + 12);
         b->append(500, '\0');
       },
       record5, 4},
  };
  for (const Case& c : cases) {
    fs::remove_all(dir_);
    fs::create_directory(dir_);
    WriteLog(dir_, 1, 5);
    std::string bytes = ReadBytes(Segment(1));
    ASSERT_EQ(bytes.size(), complete);
    c.damage(&bytes);
    WriteBytes(Segment(1), bytes);

    // Without repair: reported, nothing changed.
    Recovered looked = RecoverDir(dir_, WithoutRepair());
    ASSERT_TRUE(looked.report.ok()) << c.name << ": " << looked.report.status().message();
    EXPECT_EQ(looked.records, RecordsFrom(1, c.last_revision)) << c.name;
    EXPECT_EQ(ReadBytes(Segment(1)), bytes) << c.name;
    ASSERT_EQ(looked.report->notes.size(), 1u) << c.name;
    const std::string what = c.zero_filled ? "zero-filled end of " : "torn tail of ";
    const std::string where = SegmentFileName(1) + " at offset " + std::to_string(c.cut_at) + " (" +
                              std::to_string(bytes.size() - c.cut_at) + " bytes)";
    EXPECT_EQ(looked.report->notes[0], what + where + " left in place (repair off)") << c.name;

    Recovered got = RecoverDir(dir_);
    ASSERT_TRUE(got.report.ok()) << c.name << ": " << got.report.status().message();
    EXPECT_EQ(got.records, RecordsFrom(1, c.last_revision)) << c.name;
    EXPECT_EQ(got.report->last_revision, c.last_revision) << c.name;
    EXPECT_THAT(got.report->notes, ElementsAre("truncated " + what + where)) << c.name;
    EXPECT_EQ(fs::file_size(Segment(1)), c.cut_at) << c.name;

    // Repaired: a second recovery is clean and the log can be continued.
    Recovered again = RecoverDir(dir_);
    ASSERT_TRUE(again.report.ok()) << c.name;
    EXPECT_THAT(again.report->notes, IsEmpty()) << c.name;
    WriteLog(dir_, c.last_revision + 1, 8);
    EXPECT_EQ(RecoverDir(dir_).records, RecordsFrom(1, 8)) << c.name;
  }
}

TEST_F(WalTest, TornTailOnlyCountsInTheNewestSegment) {
  WriteLog(dir_, 1, 20, {11});
  const std::string bytes = ReadBytes(Segment(1));
  fs::resize_file(Segment(1), bytes.size() - 3);
  Recovered got = RecoverDir(dir_);
  ASSERT_FALSE(got.report.ok());
  const size_t record10 = bytes.size() - FramedSize(10);
  EXPECT_EQ(got.report.status().message(), SegmentFileName(1) + ": truncated record at offset " +
                                               std::to_string(record10) +
                                               " (record payload runs past end of file)");
  EXPECT_EQ(fs::file_size(Segment(1)), bytes.size() - 3);
}

// ---------------------------------------------------------------- damage that is refused

TEST_F(WalTest, DamageBeforeValidRecordsIsRefusedAndNothingChanges) {
  const size_t record2 = kSegmentHeaderSize + FramedSize(1);
  const size_t record3 = record2 + FramedSize(2);
  struct Case {
    std::string name;
    std::function<void(std::string*)> damage;
    std::string message;
  };
  auto flip = [](size_t at) { return [at](std::string* b) { (*b)[at] ^= 0x01; }; };
  const std::vector<Case> cases = {
      {"flipped payload byte", flip(record2 + kRecordHeaderSize + 3),
       "corrupt record at offset " + std::to_string(record2) + " (CRC mismatch)"},
      {"flipped CRC byte", flip(record2 + 5),
       "corrupt record at offset " + std::to_string(record2) + " (CRC mismatch)"},
      {"length grown past the end", [=](std::string* b) { (*b)[record2 + 3] = '\x7f'; },
       "truncated record at offset " + std::to_string(record2) +
           " (record payload runs past end of file)"},
      {"record zeroed",
       [=](std::string* b) { std::fill(b->begin() + record2, b->begin() + record3, '\0'); },
       "corrupt record at offset " + std::to_string(record2) + " (record length too small)"},
      {"bad magic", flip(0), "bad segment header at offset 0 (bad magic: not a berth log segment)"},
      {"header revision", flip(16), "bad segment header at offset 0 (CRC mismatch)"},
  };
  for (const Case& c : cases) {
    fs::remove_all(dir_);
    fs::create_directory(dir_);
    WriteLog(dir_, 1, 6);
    std::string bytes = ReadBytes(Segment(1));
    c.damage(&bytes);
    WriteBytes(Segment(1), bytes);
    Recovered got = RecoverDir(dir_);
    ASSERT_FALSE(got.report.ok()) << c.name;
    EXPECT_EQ(got.report.status().code(), StatusCode::kInternal) << c.name;
    EXPECT_EQ(got.report.status().message(), SegmentFileName(1) + ": " + c.message) << c.name;
    EXPECT_EQ(ReadBytes(Segment(1)), bytes) << c.name;
  }
}

TEST_F(WalTest, OutOfOrderRevisionsAreRefused) {
  // The writer trusts its callers' order; recovery does not.
  auto writer = LogWriter::Open(WriterOptions(dir_, false), 1);
  ASSERT_TRUE(writer.ok());
  for (int64_t r : {1, 2, 3, 2}) {
    (*writer)->Append(RecordAt(r));
  }
  (*writer)->Close();
  Recovered got = RecoverDir(dir_);
  ASSERT_FALSE(got.report.ok());
  const size_t offset = kSegmentHeaderSize + FramedSize(1) + FramedSize(2) + FramedSize(3);
  EXPECT_EQ(got.report.status().message(),
            SegmentFileName(1) + ": revision 2 after revision 3 at offset " +
                std::to_string(offset) + " (revisions go backwards)");
}

TEST_F(WalTest, RecordOutsideItsSegmentsRangeIsRefused) {
  auto writer = LogWriter::Open(WriterOptions(dir_, false), 5);
  ASSERT_TRUE(writer.ok());
  (*writer)->Append(RecordAt(4));
  (*writer)->Close();
  WriteStateSnapshot(dir_, 4);
  Recovered got = RecoverDir(dir_);
  ASSERT_FALSE(got.report.ok());
  EXPECT_EQ(got.report.status().message(),
            SegmentFileName(5) + ": record revision 4 outside the segment's range at offset 24");
}

TEST_F(WalTest, MissingSegmentIsAGap) {
  WriteLog(dir_, 1, 30, {11, 21});
  fs::remove(Segment(11));
  Recovered got = RecoverDir(dir_);
  ASSERT_FALSE(got.report.ok());
  EXPECT_EQ(got.report.status().message(),
            SegmentFileName(21) +
                ": gap in the log: it starts at revision 21 but what precedes it ends at revision "
                "10");
}

TEST_F(WalTest, LogThatStartsLateWithoutASnapshotIsAGap) {
  WriteLog(dir_, 1, 30, {11, 21});
  fs::remove(Segment(1));
  Recovered got = RecoverDir(dir_);
  ASSERT_FALSE(got.report.ok());
  EXPECT_THAT(got.report.status().message(),
              HasSubstr(SegmentFileName(11) + ": gap in the log: it starts at revision 11"));
}

}  // namespace
}  // namespace berth::store::wal
