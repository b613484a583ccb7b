#include "metrics/metrics.h"

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

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
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
  auto entry = std::make_unique<Entry>();
  entry->type = Type::kGauge;
  entry->name = std::move(name);
  entry->help = std::move(help);
  entry->labels = std::move(labels);
  entry->collect = std::move(collect);
  std::lock_guard lk(mu_);
  entries_.push_back(std::move(entry));
}

namespace {

std::string Labels(const std::vector<std::string>& names, const std::vector<std::string>& values,
                   std::string_view extra_name = {}, std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (i) out += ',';
    out += names[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out += std::string(extra_name) + "=\"" + std::string(extra_value) + "\"";
  }
  out += '}';
  return out;
}

void Header(std::string& out, const std::string& name, const std::string& help, std::string_view type) {
  out += "# HELP " + name + " " + help + "\n";
  out += "# TYPE " + name + " " + std::string(type) + "\n";
}

}  // namespace

std::string Registry::Render() const {
  std::string out;
  std::lock_guard lk(mu_);
  for (const auto& e : entries_) {
    if (e->collect) {
      Header(out, e->name, e->help, "gauge");
      for (const auto& [values, v] : e->collect()) {
        out += e->name + Labels(e->labels, values) + " " + FormatValue(v) + "\n";
      }
      continue;
    }
    if (auto* f = std::get_if<std::unique_ptr<Family<Counter>>>(&e->family)) {
      Header(out, (*f)->name(), (*f)->help(), "counter");
      (*f)->ForEach([&](const std::vector<std::string>& values, const Counter& c) {
        out += (*f)->name() + Labels((*f)->label_names(), values) + " " + FormatValue(c.value()) + "\n";
      });
    } else if (auto* g = std::get_if<std::unique_ptr<Family<Gauge>>>(&e->family)) {
      Header(out, (*g)->name(), (*g)->help(), "gauge");
      (*g)->ForEach([&](const std::vector<std::string>& values, const Gauge& v) {
        out += (*g)->name() + Labels((*g)->label_names(), values) + " " + FormatValue(v.value()) + "\n";
      });
    } else if (auto* h = std::get_if<std::unique_ptr<Family<Histogram>>>(&e->family)) {
      const auto& fam = **h;
      Header(out, fam.name(), fam.help(), "histogram");
      fam.ForEach([&](const std::vector<std::string>& values, const Histogram& hist) {
        uint64_t cumulative = 0;
        for (size_t i = 0; i < hist.bounds().size(); ++i) {
          cumulative += hist.bucket(i);
          out += fam.name() + "_bucket" + Labels(fam.label_names(), values, "le", FormatValue(hist.bounds()[i])) +
                 " " + std::to_string(cumulative) + "\n";
        }
        cumulative += hist.bucket(hist.bounds().size());
        out += fam.name() + "_bucket" + Labels(fam.label_names(), values, "le", "+Inf") + " " +
               std::to_string(cumulative) + "\n";
        out += fam.name() + "_sum" + Labels(fam.label_names(), values) + " " + FormatValue(hist.sum()) + "\n";
        out += fam.name() + "_count" + Labels(fam.label_names(), values) + " " + std::to_string(hist.count()) + "\n";
      });
    }
  }
  return out;
}

}  // namespace berth::metrics
