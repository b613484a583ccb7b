// Lines written from many threads while the verbosity, the format and the
// output change (run under ThreadSanitizer by `make test-tsan`).

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "log/log.h"

namespace berth::log {
namespace {

TEST(LogStress, ConcurrentWritersSeeWholeLinesWhileTheConfigurationChanges) {
  const Options saved = CurrentOptions();
  std::mutex mu;
  std::vector<std::string> lines;
  auto sink = [&](std::string_view line) {
    std::lock_guard lock(mu);
    lines.emplace_back(line);
  };
  SetSinkForTesting(sink);
  Configure({.verbosity = 2, .format = Format::kText});

  constexpr int kWriters = 4;
  constexpr int kLinesEach = 2000;
  std::atomic<bool> done{false};
  std::thread reconfigure([&] {
    for (int i = 0; !done.load(); ++i) {
      Configure({.verbosity = 2, .format = i % 2 ? Format::kJson : Format::kText});
      if (i % 16 == 0) SetSinkForTesting(sink);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([w] {
      const std::string node = "node-" + std::to_string(w);
      for (int i = 0; i < kLinesEach; ++i) {
        BERTH_VLOG(2, "Successfully bound pod to node", {"pod", KObj("default", "p")}, {"node", node}, {"i", i});
      }
    });
  }
  for (auto& t : writers) t.join();
  done.store(true);
  reconfigure.join();
  SetSinkForTesting(nullptr);
  Configure(saved);

  ASSERT_EQ(lines.size(), static_cast<size_t>(kWriters * kLinesEach));
  for (const std::string& line : lines) {
    // Text or JSON, each line is one whole record.
    EXPECT_NE(line.find("Successfully bound pod to node"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    EXPECT_NE(line.find("node-"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace berth::log
