#include "metrics/metrics.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <variant>

namespace berth::metrics {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0);
}

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  double cur = sum_.load(std::memory_order_relaxed);
  while (!sum_.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> b;
  for (int i = 0; i < count; ++i, start *= factor) b.push_back(start);
  return b;
}

std::vector<double> LinearBuckets(double start, double width, int count) {
  std::vector<double> b;
  for (int i = 0; i < count; ++i) b.push_back(start + width * i);
  return b;
}

std::string EscapeLabelValue(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

void AppendValue(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) end = buf + std::snprintf(buf, sizeof buf, "%.17g", v);
  out.append(buf, end);
}

std::string FormatValue(double v) {
  std::string out;
  AppendValue(out, v);
  return out;
}

struct Registry::Entry {
  Type type;
  std::variant<std::unique_ptr<Family<Counter>>, std::unique_ptr<Family<Gauge>>,
               std::unique_ptr<Family<Histogram>>>
      family;
  // Callback gauges.
  std::string name, help;
  std::vector<std::string> labels;
  std::function<std::vector<Sample>()> collect;
};

Registry::Registry() = default;
Registry::~Registry() = default;

// Adding a family under a name already registered with the same type returns
// the existing one, so that several components (work queues, controllers) can
// each ask for "their" family and share it, told apart by labels.
template <typename T>
Family<T>& Registry::GetOrAdd(Type type, std::string name, std::string help, std::vector<std::string> labels,
                              std::function<std::unique_ptr<T>()> make) {
  std::lock_guard lk(mu_);
  for (auto& entry : entries_) {
    if (entry->type != type) continue;
    auto* existing = std::get_if<std::unique_ptr<Family<T>>>(&entry->family);
    if (existing && *existing && (*existing)->name() == name) return **existing;
  }
  auto family = std::make_unique<Family<T>>(std::move(name), std::move(help), std::move(labels), std::move(make));
  auto& ref = *family;
  auto entry = std::make_unique<Entry>();
  entry->type = type;
  entry->family = std::move(family);
  entries_.push_back(std::move(entry));
  return ref;
}

Family<Counter>& Registry::AddCounter(std::string name, std::string help, std::vector<std::string> labels) {
  return GetOrAdd<Counter>(Type::kCounter, std::move(name), std::move(help), std::move(labels),
                           [] { return std::make_unique<Counter>(); });
}

Family<Gauge>& Registry::AddGauge(std::string name, std::string help, std::vector<std::string> labels) {
  return GetOrAdd<Gauge>(Type::kGauge, std::move(name), std::move(help), std::move(labels),
                         [] { return std::make_unique<Gauge>(); });
}

Family<Histogram>& Registry::AddHistogram(std::string name, std::string help, std::vector<double> buckets,
                                          std::vector<std::string> labels) {
  return GetOrAdd<Histogram>(Type::kHistogram, std::move(name), std::move(help), std::move(labels),
                             [buckets] { return std::make_unique<Histogram>(buckets); });
}

void Registry::AddCallbackGauge(std::string name, std::string help, std::vector<std::string> labels,
                                std::function<std::vector<Sample>()> collect) {
  AddCallback(Type::kGauge, std::move(name), std::move(help), std::move(labels), std::move(collect));
}

void Registry::AddCallbackCounter(std::string name, std::string help, std::vector<std::string> labels,
                                  std::function<std::vector<Sample>()> collect) {
  AddCallback(Type::kCounter, std::move(name), std::move(help), std::move(labels), std::move(collect));
}

void Registry::AddCallback(Type type, std::string name, std::string help, std::vector<std::string> labels,
                           std::function<std::vector<Sample>()> collect) {
  auto entry = std::make_unique<Entry>();
  entry->type = type;
  entry->name = std::move(name);
  entry->help = std::move(help);
  entry->labels = std::move(labels);
  entry->collect = std::move(collect);
  std::lock_guard lk(mu_);
  entries_.push_back(std::move(entry));
}

namespace {

// `name{a="x",b="y"` (no closing brace; just `name` without labels), the part
// every sample of one child shares.
std::string SeriesPrefix(const std::string& name, const std::vector<std::string>& names,
                         const std::vector<std::string>& values) {
  std::string out = name;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    out += i ? ',' : '{';
    out += names[i];
    out += "=\"";
    out += EscapeLabelValue(values[i]);
    out += '"';
  }
  return out;
}

void CloseLabels(std::string& out, bool has_labels) {
  if (has_labels) out += '}';
}

void AppendSample(std::string& out, const std::string& prefix, bool has_labels, double v) {
  out += prefix;
  CloseLabels(out, has_labels);
  out += ' ';
  AppendValue(out, v);
  out += '\n';
}

void AppendCount(std::string& out, uint64_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, end);
}

void Header(std::string& out, const std::string& name, const std::string& help, std::string_view type) {
  out += "# HELP ";
  out += name;
  out += ' ';
  for (char c : help) {  // the text format escapes \\ and newlines in HELP
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void RenderHistogram(std::string& out, const Family<Histogram>& fam, const std::vector<std::string>& values,
                     const Histogram& hist) {
  const bool labelled = !fam.label_names().empty();
  std::string bucket = SeriesPrefix(fam.name() + "_bucket", fam.label_names(), values);
  bucket += labelled ? ",le=\"" : "{le=\"";
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= hist.bounds().size(); ++i) {
    cumulative += hist.bucket(i);
    out += bucket;
    if (i < hist.bounds().size()) AppendValue(out, hist.bounds()[i]);
    else out += "+Inf";
    out += "\"} ";
    AppendCount(out, cumulative);
    out += '\n';
  }
  AppendSample(out, SeriesPrefix(fam.name() + "_sum", fam.label_names(), values), labelled, hist.sum());
  out += SeriesPrefix(fam.name() + "_count", fam.label_names(), values);
  CloseLabels(out, labelled);
  out += ' ';
  AppendCount(out, hist.count());
  out += '\n';
}

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kCounter: return "counter";
    case Type::kGauge: return "gauge";
    case Type::kHistogram: return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string Registry::Render() const {
  std::string out;
  RenderTo(out);
  return out;
}

uint64_t Registry::AddRefresh(std::function<void()> refresh) {
  std::lock_guard lk(refresh_mu_);
  refreshes_.emplace(next_refresh_, std::move(refresh));
  return next_refresh_++;
}

void Registry::RemoveRefresh(uint64_t id) {
  std::lock_guard lk(refresh_mu_);
  refreshes_.erase(id);
}

void Registry::RenderTo(std::string& out) const {
  {
    std::lock_guard rlk(refresh_mu_);
    for (const auto& [id, refresh] : refreshes_) refresh();
  }
  std::lock_guard lk(mu_);
  for (const auto& e : entries_) {
    if (e->collect) {
      Header(out, e->name, e->help, TypeName(e->type));
      for (const auto& [values, v] : e->collect()) {
        AppendSample(out, SeriesPrefix(e->name, e->labels, values), !e->labels.empty(), v);
      }
      continue;
    }
    if (auto* f = std::get_if<std::unique_ptr<Family<Counter>>>(&e->family)) {
      const auto& fam = **f;
      Header(out, fam.name(), fam.help(), "counter");
      fam.ForEach([&](const std::vector<std::string>& values, const Counter& c) {
        AppendSample(out, SeriesPrefix(fam.name(), fam.label_names(), values), !fam.label_names().empty(),
                     c.value());
      });
    } else if (auto* g = std::get_if<std::unique_ptr<Family<Gauge>>>(&e->family)) {
      const auto& fam = **g;
      Header(out, fam.name(), fam.help(), "gauge");
      fam.ForEach([&](const std::vector<std::string>& values, const Gauge& v) {
        AppendSample(out, SeriesPrefix(fam.name(), fam.label_names(), values), !fam.label_names().empty(),
                     v.value());
      });
    } else if (auto* h = std::get_if<std::unique_ptr<Family<Histogram>>>(&e->family)) {
      const auto& fam = **h;
      Header(out, fam.name(), fam.help(), "histogram");
      fam.ForEach([&](const std::vector<std::string>& values, const Histogram& hist) {
        RenderHistogram(out, fam, values, hist);
      });
    }
  }
}

}  // namespace berth::metrics
