#include "controllers/simnode/sim_command.h"

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "api/json_fields.h"

namespace berth::controllers {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

struct Outcome {
  milliseconds elapsed{0};
  bool forever = false;
  int status = 0;
  bool exited = false;  // `exit N` ran: nothing after it runs
};

std::string_view Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<int> ParseInt(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// GNU sleep's operand: a number of seconds (fractions allowed) with an
// optional unit s, m, h or d; "infinity" never ends.
std::optional<milliseconds> SleepFor(std::string_view operand, bool* forever) {
  if (operand == "infinity" || operand == "inf") {
    *forever = true;
    return milliseconds(0);
  }
  double unit = 1000;
  if (!operand.empty()) {
    switch (operand.back()) {
      case 's': unit = 1000; operand.remove_suffix(1); break;
      case 'm': unit = 60'000; operand.remove_suffix(1); break;
      case 'h': unit = 3'600'000; operand.remove_suffix(1); break;
      case 'd': unit = 86'400'000; operand.remove_suffix(1); break;
      default: break;
    }
  }
  double seconds = 0;
  auto [end, ec] = std::from_chars(operand.data(), operand.data() + operand.size(), seconds);
  if (operand.empty() || ec != std::errc() || end != operand.data() + operand.size() || seconds < 0) {
    return std::nullopt;
  }
  // Beyond a thousand years (or not a finite number): it never ends.
  const double ms = seconds * unit;
  if (!(ms < 3.2e13)) {
    *forever = true;
    return milliseconds(0);
  }
  return milliseconds(static_cast<int64_t>(ms));
}

// One simple command, by its words; false when it is not one we know.
bool RunWords(const std::vector<std::string_view>& words, Outcome& out) {
  if (words.empty()) return true;
  const std::string_view name = Basename(words[0]);
  if (name == "true" || name == ":" || name == "echo") {
    out.status = 0;
    return true;
  }
  if (name == "false") {
    out.status = 1;
    return words.size() == 1;
  }
  if (name == "exit") {
    std::optional<int> code = words.size() > 1 ? ParseInt(words[1]) : std::optional<int>(out.status);
    if (!code || words.size() > 2) return false;
    out.status = *code & 0xff;
    out.exited = true;
    return true;
  }
  if (name == "sleep" && words.size() >= 2) {
    for (size_t i = 1; i < words.size(); ++i) {  // GNU sleep adds its operands up
      auto d = SleepFor(words[i], &out.forever);
      if (!d) return false;
      out.elapsed += *d;
    }
    out.status = 0;
    return true;
  }
  return false;
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

// A script of simple commands joined by ';', '&&', '||' and new lines.
// Quoting, pipes, redirections, substitutions and control flow are not
// known (false); `echo` takes plain words only.
bool PlainScript(std::string_view script) {
  constexpr std::string_view kShellSyntax = "\"'`$|<>(){}&*?[]\\#";
  for (size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if ((c == '&' || c == '|') && i + 1 < script.size() && script[i + 1] == c) {
      ++i;  // && and || join statements
    } else if (kShellSyntax.find(c) != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool RunScript(std::string_view script, Outcome& out) {
  if (!PlainScript(script)) return false;
  enum class Join { kAlways, kIfOk, kIfFailed };
  Join join = Join::kAlways;
  size_t i = 0;
  while (i <= script.size() && !out.exited) {
    size_t end = script.size();
    Join next = Join::kAlways;
    size_t skip = 0;
    for (size_t j = i; j < script.size(); ++j) {
      if (script[j] == ';' || script[j] == '\n') {
        end = j, skip = 1;
        break;
      }
      if (j + 1 < script.size() && script[j] == '&' && script[j + 1] == '&') {
        end = j, skip = 2, next = Join::kIfOk;
        break;
      }
      if (j + 1 < script.size() && script[j] == '|' && script[j + 1] == '|') {
        end = j, skip = 2, next = Join::kIfFailed;
        break;
      }
    }
    const bool runs = join == Join::kAlways || (join == Join::kIfOk) == (out.status == 0);
    if (runs && !RunWords(SplitWords(script.substr(i, end - i)), out)) return false;
    if (out.forever) return true;  // nothing after a sleep that never ends runs
    if (end == script.size()) break;
    i = end + skip;
    join = next;
  }
  return true;
}

}  // namespace

std::optional<SimRun> CommandRun(const json::object& container) {
  std::vector<std::string_view> argv;
  const json::array* command = api::ArrayAt(container, "command");
  if (!command || command->empty()) return std::nullopt;  // the image's entrypoint: unknown
  for (const json::array* part : {command, api::ArrayAt(container, "args")}) {
    if (!part) continue;
    for (const auto& word : *part) {
      if (!word.is_string()) return std::nullopt;
      argv.emplace_back(word.get_string());
    }
  }
  Outcome out;
  const std::string_view name = Basename(argv[0]);
  const bool shell = name == "sh" || name == "bash" || name == "ash";
  if (shell) {
    if (argv.size() < 3 || argv[1] != "-c" || !RunScript(argv[2], out)) return std::nullopt;
  } else if (!RunWords(argv, out)) {
    return std::nullopt;
  }
  SimRun run;
  if (!out.forever) run.duration = out.elapsed;
  run.exit_code = out.status;
  return run;
}

}  // namespace berth::controllers
