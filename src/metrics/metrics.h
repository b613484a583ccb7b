#pragma once
// Counters, gauges and histograms with labels, rendered in the Prometheus text
// exposition format (0.0.4). Registries are passed in; there is no global one.
//
// Hot path: resolve a child once (family.WithLabels({...})) and keep the
// reference; incrementing it is one relaxed atomic operation. Resolving takes
// a lock. Children live as long as their registry.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace berth::metrics {

class Counter {
 public:
  void Increment(double by = 1) { Add(value_, by); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  friend class Gauge;
  static void Add(std::atomic<double>& a, double by) {
    double cur = a.load(std::memory_order_relaxed);
    while (!a.compare_exchange_weak(cur, cur + by, std::memory_order_relaxed)) {
    }
  }
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double by) { Counter::Add(value_, by); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  // Counts `v` in the first bucket whose upper bound is >= v (le is inclusive).
  void Observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  uint64_t bucket(size_t i) const { return counts_[i].load(std::memory_order_relaxed); }  // not cumulative
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // one per bound, plus +Inf
  std::atomic<uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

// Prometheus' default-style bucket helpers.
std::vector<double> ExponentialBuckets(double start, double factor, int count);
std::vector<double> LinearBuckets(double start, double width, int count);

enum class Type { kCounter, kGauge, kHistogram };

// A metric name with its label names; one child per distinct label values.
template <typename T>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::function<std::unique_ptr<T>()> make)
      : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)), make_(std::move(make)) {}

  // REQUIRES: values.size() == label names.
  T& WithLabels(const std::vector<std::string>& values) {
    std::lock_guard lk(mu_);
    auto& child = children_[values];
    if (!child) child = make_();
    return *child;
  }
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  template <typename F>
  void ForEach(F&& f) const {
    std::lock_guard lk(mu_);
    for (const auto& [values, child] : children_) f(values, *child);
  }

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::function<std::unique_ptr<T>()> make_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<T>> children_;  // guarded by mu_
};

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Adding a name that exists with the same type returns the existing family.
  Family<Counter>& AddCounter(std::string name, std::string help, std::vector<std::string> labels = {});
  Family<Gauge>& AddGauge(std::string name, std::string help, std::vector<std::string> labels = {});
  Family<Histogram>& AddHistogram(std::string name, std::string help, std::vector<double> buckets,
                                  std::vector<std::string> labels = {});
  // A gauge whose value is computed at scrape time (several samples with labels allowed).
  using Sample = std::pair<std::vector<std::string>, double>;
  void AddCallbackGauge(std::string name, std::string help, std::vector<std::string> labels,
                        std::function<std::vector<Sample>()> collect);
  // The same for a counter kept elsewhere (e.g. the kernel's CPU time).
  void AddCallbackCounter(std::string name, std::string help, std::vector<std::string> labels,
                          std::function<std::vector<Sample>()> collect);

  // `refresh` runs at the start of every Render (to bring gauges up to date);
  // RemoveRefresh(id) waits for a running call, then drops it.
  uint64_t AddRefresh(std::function<void()> refresh);
  void RemoveRefresh(uint64_t id);

  // The whole registry in Prometheus text format, families in registration order.
  std::string Render() const;
  // Appends the same to `out`.
  void RenderTo(std::string& out) const;

 private:
  struct Entry;
  void AddCallback(Type type, std::string name, std::string help, std::vector<std::string> labels,
                   std::function<std::vector<Sample>()> collect);
  template <typename T>
  Family<T>& GetOrAdd(Type type, std::string name, std::string help, std::vector<std::string> labels,
                      std::function<std::unique_ptr<T>()> make);
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Entry>> entries_;  // guarded by mu_
  mutable std::mutex refresh_mu_;  // held while refreshes run; taken before mu_, never after
  std::map<uint64_t, std::function<void()>> refreshes_;  // guarded by refresh_mu_
  uint64_t next_refresh_ = 1;                            // guarded by refresh_mu_
};

// Escapes a label value (\\, \", \n) for the text format.
std::string EscapeLabelValue(std::string_view v);
// Prometheus' float formatting: the shortest text that reads back as `v`
// (integers without a decimal point), +Inf, -Inf, NaN.
std::string FormatValue(double v);
// Appends FormatValue(v).
void AppendValue(std::string& out, double v);

}  // namespace berth::metrics
