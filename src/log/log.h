#pragma once
// berth's log, with kube's conventions: klog's text lines by default
//
//   I1125 01:19:01.123456   12345 schedule_one.cc:210] "Successfully bound pod to node" pod="default/web-1" node="n1"
//
// or kube's JSON schema (--logging-format=json), one object a line:
//
//   {"ts":1764033541.123456,"caller":"schedule_one.cc:210","msg":"Successfully bound pod to node","v":2,
//    "pod":{"name":"web-1","namespace":"default"},"node":"n1"}
//
// and -v N verbosity: BERTH_VLOG(n, ...) is written when n <= N. The writing
// is spdlog's (a leaf of this module: nothing outside src/log/ includes it).
//
// Cost: the macros test the level (one relaxed atomic load) before anything
// else is evaluated, so a disabled line costs neither formatting nor the
// evaluation of its arguments. Lines are written whole, from any thread.
//
//   BERTH_VLOG(2, "Successfully bound pod to node", {"pod", log::KObj(ns, name)}, {"node", node});
//   BERTH_LOG_ERROR(status.message(), "Error syncing", {"controller", name}, {"key", key});

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace berth::log {

enum class Format { kText, kJson };
enum class Severity { kInfo, kWarning, kError };

// A namespaced object's reference, as klog.KObj: "ns/name" in text lines,
// {"name":…,"namespace":…} in JSON (kube's encoding). An empty namespace
// (cluster-scoped objects) prints the name alone.
struct ObjectRef {
  std::string_view ns;
  std::string_view name;
};
inline ObjectRef KObj(std::string_view ns, std::string_view name) { return ObjectRef{ns, name}; }

// A logged value. It borrows strings: they must outlive the call that logs them.
class Value {
 public:
  enum class Type { kString, kInt, kUint, kDouble, kBool, kObject };

  Value(const char* s) : type_(Type::kString), string_(s ? s : "") {}  // NOLINT: implicit by design
  Value(std::string_view s) : type_(Type::kString), string_(s) {}      // NOLINT
  Value(const std::string& s) : type_(Type::kString), string_(s) {}    // NOLINT
  Value(bool b) : type_(Type::kBool), bool_(b) {}                      // NOLINT
  Value(double d) : type_(Type::kDouble), double_(d) {}                // NOLINT
  Value(ObjectRef o) : type_(Type::kObject), string_(o.name), ns_(o.ns) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Value(T n) {  // NOLINT
    if constexpr (std::is_signed_v<T>) {
      type_ = Type::kInt;
      int_ = n;
    } else {
      type_ = Type::kUint;
      uint_ = n;
    }
  }

  Type type() const { return type_; }
  std::string_view string() const { return string_; }  // kString; kObject: the name
  std::string_view ns() const { return ns_; }          // kObject
  int64_t int_value() const { return int_; }
  uint64_t uint_value() const { return uint_; }
  double double_value() const { return double_; }
  bool bool_value() const { return bool_; }

 private:
  Type type_ = Type::kString;
  std::string_view string_;
  std::string_view ns_;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double double_ = 0;
  bool bool_ = false;
};

// One key-value pair of a line, kube's lowerCamelCase keys ("pod", "node", "evaluatedNodes").
struct Field {
  std::string_view key;
  Value value;
};

// What one line says. `err` is the error of an error line (kube's "err" key).
struct Record {
  Severity severity = Severity::kInfo;
  int verbosity = 0;
  std::chrono::system_clock::time_point time;
  int pid = 0;
  std::string_view file;  // __FILE__; lines show its last component
  int line = 0;
  std::string_view msg;
  std::optional<std::string_view> err;
  std::initializer_list<Field> fields;
};

// The line a record makes, without its newline. Text lines print the time in
// the local time zone, as klog does.
std::string FormatText(const Record& r);
std::string FormatJson(const Record& r);

struct Options {
  int verbosity = 0;  // -v
  Format format = Format::kText;
};

// "text" or "json"; nothing for anything else.
std::optional<Format> ParseFormat(std::string_view name);

// Sets the verbosity and the format for the whole process. May be called at
// any time, from any thread; lines being written meanwhile take either.
void Configure(const Options& options);
Options CurrentOptions();

// Sends lines (without their newline) to `sink` instead of stderr until it is
// reset with nullptr. For tests.
void SetSinkForTesting(std::function<void(std::string_view line)> sink);

namespace internal {
inline std::atomic<int> verbosity{0};
}  // namespace internal

// Whether lines at `level` are written.
inline bool V(int level) { return level <= internal::verbosity.load(std::memory_order_relaxed); }

// Formats and writes one line. Callers use the macros below, which test the level first.
void Write(Severity severity, int verbosity, const char* file, int line, std::string_view msg,
           std::optional<std::string_view> err, std::initializer_list<Field> fields);

}  // namespace berth::log

// An informational line at verbosity `level` (klog's V(level).InfoS).
#define BERTH_VLOG(level, msg, ...)                                                                            \
  do {                                                                                                         \
    if (::berth::log::V(level)) {                                                                              \
      ::berth::log::Write(::berth::log::Severity::kInfo, (level), __FILE__, __LINE__, (msg), std::nullopt, \
                          {__VA_ARGS__});                                                                      \
    }                                                                                                          \
  } while (0)

// An informational line written at every verbosity (klog's InfoS).
#define BERTH_LOG(msg, ...) BERTH_VLOG(0, msg, __VA_ARGS__)

// A warning (klog's Warning), written at every verbosity.
#define BERTH_LOG_WARNING(msg, ...)                                                                               \
  ::berth::log::Write(::berth::log::Severity::kWarning, 0, __FILE__, __LINE__, (msg), std::nullopt, \
                      {__VA_ARGS__})

// An error line (klog's ErrorS): `err` is the error's text, kube's "err" key.
#define BERTH_LOG_ERROR(err, msg, ...)                                                                           \
  ::berth::log::Write(::berth::log::Severity::kError, 0, __FILE__, __LINE__, (msg), std::string_view(err), \
                      {__VA_ARGS__})
