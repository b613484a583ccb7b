#include "perf/store_bench.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "api/codec/json_parse.h"
#include "api/object.h"
#include "perf/process_stats.h"
#include "perf/summary.h"
#include "perf/synthetic.h"
#include "store/etcd/etcd_store.h"

namespace berth::perf {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

Result<StoreBenchResult> EtcdStoreCreates(const std::string& servers, const std::string& prefix, int in_flight,
                                          int64_t creates) {
  store::EtcdStore::Options options;
  for (size_t start = 0; start <= servers.size();) {
    const size_t comma = std::min(servers.find(',', start), servers.size());
    if (comma > start) options.client.endpoints.push_back(servers.substr(start, comma - start));
    start = comma + 1;
  }
  options.prefix = prefix;
  options.compaction_interval = std::chrono::milliseconds(0);
  auto opened = store::EtcdStore::Open(options);
  if (!opened.ok()) return opened.status();
  store::EtcdStore& store = *opened.value();

  // The objects are built before the clock starts: what is timed is the store.
  std::vector<api::ObjectPtr> pods;
  pods.reserve(static_cast<size_t>(creates));
  for (int64_t i = 0; i < creates; ++i) {
    boost::json::error_code ec;
    auto object = api::Object::FromJson(api::ParseJson(SyntheticPodJson("bench", "s" + std::to_string(i), PodShape{}), ec));
    if (ec || !object.ok()) return Status::Internal("the benchmark's pod does not decode");
    pods.push_back(std::move(object).value());
  }

  std::mutex mu;
  std::condition_variable cv;
  int64_t answered = 0;
  int64_t failures = 0;
  std::vector<double> latencies(static_cast<size_t>(creates));
  const double cpu_before = ProcessCpuSeconds();
  const auto start = Clock::now();
  int64_t next = 0;
  std::unique_lock lk(mu);
  while (answered < creates) {
    // Keep `in_flight` creates outstanding.
    while (next < creates && next - answered < in_flight) {
      const int64_t i = next++;
      lk.unlock();
      const auto sent = Clock::now();
      store.CreateAsync(pods[static_cast<size_t>(i)], [&, i, sent](Result<api::ObjectPtr> created) {
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
        std::lock_guard done(mu);
        latencies[static_cast<size_t>(i)] = ms;
        if (!created.ok()) ++failures;
        ++answered;
        cv.notify_one();
      });
      lk.lock();
    }
    // Until all are answered, or (while some are left to send) one is.
    cv.wait(lk, [&] { return answered == creates || (next < creates && next - answered < in_flight); });
  }
  lk.unlock();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  StoreBenchResult result;
  result.creates_per_second = static_cast<double>(creates) / elapsed;
  result.cpu_us_per_create = 1e6 * (ProcessCpuSeconds() - cpu_before) / static_cast<double>(creates);
  const Summary s = Summarize(std::move(latencies));
  result.latency_p50_ms = s.p50;
  result.latency_p99_ms = s.p99;
  result.failures = failures;
  store.Close();
  return result;
}

}  // namespace berth::perf
