#include "log/log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <iterator>
#include <memory>
#include <mutex>

namespace berth::log {
namespace {

using Buffer = fmt::memory_buffer;

std::string_view Basename(std::string_view file) {
  size_t slash = file.rfind('/');
  return slash == std::string_view::npos ? file : file.substr(slash + 1);
}

// Go's %q for a string: the form klog's text lines give string values.
// Printable characters (UTF-8 included) stay as they are.
void AppendQuoted(Buffer& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out.append(std::string_view("\\\"")); break;
      case '\\': out.append(std::string_view("\\\\")); break;
      case '\n': out.append(std::string_view("\\n")); break;
      case '\r': out.append(std::string_view("\\r")); break;
      case '\t': out.append(std::string_view("\\t")); break;
      case '\a': out.append(std::string_view("\\a")); break;
      case '\b': out.append(std::string_view("\\b")); break;
      case '\f': out.append(std::string_view("\\f")); break;
      case '\v': out.append(std::string_view("\\v")); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

// A JSON string (RFC 8259): quotes, backslashes and control characters escaped.
void AppendJsonString(Buffer& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out.append(std::string_view("\\\"")); break;
      case '\\': out.append(std::string_view("\\\\")); break;
      case '\n': out.append(std::string_view("\\n")); break;
      case '\r': out.append(std::string_view("\\r")); break;
      case '\t': out.append(std::string_view("\\t")); break;
      case '\b': out.append(std::string_view("\\b")); break;
      case '\f': out.append(std::string_view("\\f")); break;
      default:
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}

void AppendDouble(Buffer& out, double d, bool json) {
  if (std::isfinite(d)) {
    fmt::format_to(std::back_inserter(out), "{}", d);
  } else if (json) {
    // JSON has no NaN or infinity: zap writes them as strings.
    AppendJsonString(out, std::isnan(d) ? "NaN" : (d > 0 ? "+Inf" : "-Inf"));
  } else {
    out.append(std::string_view(std::isnan(d) ? "NaN" : (d > 0 ? "+Inf" : "-Inf")));
  }
}

void AppendTextValue(Buffer& out, const Value& v) {
  switch (v.type()) {
    case Value::Type::kString: AppendQuoted(out, v.string()); break;
    case Value::Type::kInt: fmt::format_to(std::back_inserter(out), "{}", v.int_value()); break;
    case Value::Type::kUint: fmt::format_to(std::back_inserter(out), "{}", v.uint_value()); break;
    case Value::Type::kDouble: AppendDouble(out, v.double_value(), false); break;
    case Value::Type::kBool: out.append(std::string_view(v.bool_value() ? "true" : "false")); break;
    case Value::Type::kObject:
      if (v.ns().empty()) {
        AppendQuoted(out, v.string());
      } else {
        std::string ref;
        ref.reserve(v.ns().size() + 1 + v.string().size());
        ref.append(v.ns()).append("/").append(v.string());
        AppendQuoted(out, ref);
      }
      break;
  }
}

void AppendJsonValue(Buffer& out, const Value& v) {
  switch (v.type()) {
    case Value::Type::kString: AppendJsonString(out, v.string()); break;
    case Value::Type::kInt: fmt::format_to(std::back_inserter(out), "{}", v.int_value()); break;
    case Value::Type::kUint: fmt::format_to(std::back_inserter(out), "{}", v.uint_value()); break;
    case Value::Type::kDouble: AppendDouble(out, v.double_value(), true); break;
    case Value::Type::kBool: out.append(std::string_view(v.bool_value() ? "true" : "false")); break;
    case Value::Type::kObject:
      out.append(std::string_view("{\"name\":"));
      AppendJsonString(out, v.string());
      if (!v.ns().empty()) {
        out.append(std::string_view(",\"namespace\":"));
        AppendJsonString(out, v.ns());
      }
      out.push_back('}');
      break;
  }
}

char SeverityLetter(Severity s) {
  switch (s) {
    case Severity::kInfo: return 'I';
    case Severity::kWarning: return 'W';
    case Severity::kError: return 'E';
  }
  return 'I';
}

// Lines go to stderr through spdlog, or to a test's function.
class FunctionSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit FunctionSink(std::function<void(std::string_view)> f) : f_(std::move(f)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    f_(std::string_view(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  std::function<void(std::string_view)> f_;
};

struct Output {
  std::mutex mu;
  std::shared_ptr<spdlog::logger> logger;  // guarded by mu (the pointer; the logger is thread-safe)
  std::atomic<Format> format{Format::kText};
  int pid = static_cast<int>(::getpid());
};

std::shared_ptr<spdlog::logger> MakeStderrLogger() {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_pattern("%v");
  auto logger = std::make_shared<spdlog::logger>("berth", std::move(sink));
  logger->set_level(spdlog::level::trace);
  logger->flush_on(spdlog::level::trace);
  return logger;
}

Output& TheOutput() {
  static Output* output = [] {
    auto* o = new Output;  // never destroyed: threads may log during exit
    o->logger = MakeStderrLogger();
    return o;
  }();
  return *output;
}

std::shared_ptr<spdlog::logger> CurrentLogger() {
  Output& o = TheOutput();
  std::lock_guard lock(o.mu);
  return o.logger;
}

}  // namespace

std::string FormatText(const Record& r) {
  Buffer out;
  using namespace std::chrono;
  const auto since_epoch = r.time.time_since_epoch();
  const time_t seconds = static_cast<time_t>(duration_cast<std::chrono::seconds>(since_epoch).count());
  const auto micros = duration_cast<microseconds>(since_epoch).count() % 1'000'000;
  struct tm tm {};
  localtime_r(&seconds, &tm);
  fmt::format_to(std::back_inserter(out), "{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {:7} {}:{}] ",
                 SeverityLetter(r.severity), tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros, r.pid, Basename(r.file),
                 r.line);
  AppendQuoted(out, r.msg);
  if (r.err) {
    out.append(std::string_view(" err="));
    AppendQuoted(out, *r.err);
  }
  for (const Field& f : r.fields) {
    out.push_back(' ');
    out.append(f.key);
    out.push_back('=');
    AppendTextValue(out, f.value);
  }
  return fmt::to_string(out);
}

std::string FormatJson(const Record& r) {
  Buffer out;
  using namespace std::chrono;
  const double ts = static_cast<double>(duration_cast<microseconds>(r.time.time_since_epoch()).count()) / 1e6;
  fmt::format_to(std::back_inserter(out), "{{\"ts\":{:.6f},\"caller\":", ts);
  AppendJsonString(out, fmt::format("{}:{}", Basename(r.file), r.line));
  out.append(std::string_view(",\"msg\":"));
  AppendJsonString(out, r.msg);
  if (r.err) {
    // kube's error lines carry "err" and no "v".
    out.append(std::string_view(",\"err\":"));
    AppendJsonString(out, *r.err);
  } else {
    fmt::format_to(std::back_inserter(out), ",\"v\":{}", r.verbosity);
  }
  for (const Field& f : r.fields) {
    out.push_back(',');
    AppendJsonString(out, f.key);
    out.push_back(':');
    AppendJsonValue(out, f.value);
  }
  out.push_back('}');
  return fmt::to_string(out);
}

std::optional<Format> ParseFormat(std::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  return std::nullopt;
}

void Configure(const Options& options) {
  internal::verbosity.store(options.verbosity, std::memory_order_relaxed);
  TheOutput().format.store(options.format, std::memory_order_relaxed);
}

Options CurrentOptions() {
  return Options{.verbosity = internal::verbosity.load(std::memory_order_relaxed),
                 .format = TheOutput().format.load(std::memory_order_relaxed)};
}

void SetSinkForTesting(std::function<void(std::string_view line)> sink) {
  Output& o = TheOutput();
  std::shared_ptr<spdlog::logger> logger;
  if (sink) {
    logger = std::make_shared<spdlog::logger>("berth-test", std::make_shared<FunctionSink>(std::move(sink)));
    logger->set_pattern("%v");
    logger->set_level(spdlog::level::trace);
  } else {
    logger = MakeStderrLogger();
  }
  std::lock_guard lock(o.mu);
  o.logger = std::move(logger);
}

void Write(Severity severity, int verbosity, const char* file, int line, std::string_view msg,
           std::optional<std::string_view> err, std::initializer_list<Field> fields) {
  Output& o = TheOutput();
  Record r{.severity = severity,
           .verbosity = verbosity,
           .time = std::chrono::system_clock::now(),
           .pid = o.pid,
           .file = file,
           .line = line,
           .msg = msg,
           .err = err,
           .fields = fields};
  const std::string text = o.format.load(std::memory_order_relaxed) == Format::kJson ? FormatJson(r) : FormatText(r);
  const spdlog::level::level_enum level = severity == Severity::kError     ? spdlog::level::err
                                          : severity == Severity::kWarning ? spdlog::level::warn
                                                                           : spdlog::level::info;
  CurrentLogger()->log(level, std::string_view(text));
}

}  // namespace berth::log
