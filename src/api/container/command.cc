#include "api/container/command.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "api/json_fields.h"

namespace berth::api::container {

namespace json = boost::json;
using std::chrono::milliseconds;

namespace {

struct Outcome {
  milliseconds elapsed{0};
  bool forever = false;
  int status = 0;
  bool exited = false;  // `exit N` ran: nothing after it runs
  std::string output;
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

bool IsVariableName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::ranges::all_of(name, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A `NAME=value` word; nullopt for any other.
std::optional<std::pair<std::string, std::string>> Assignment(std::string_view word) {
  size_t eq = word.find('=');
  if (eq == std::string_view::npos || !IsVariableName(word.substr(0, eq))) return std::nullopt;
  return std::pair<std::string, std::string>(word.substr(0, eq), word.substr(eq + 1));
}

const std::string* Lookup(const EnvVars& env, std::string_view name) {
  for (auto it = env.rbegin(); it != env.rend(); ++it) {
    if (it->first == name) return &it->second;
  }
  return nullptr;
}

// The variables as `env` prints them: each name once, at its first place, with its last value.
std::string PrintEnvironment(const EnvVars& env) {
  std::string out;
  std::vector<std::string_view> printed;
  for (const auto& [name, value] : env) {
    if (std::ranges::find(printed, name) != printed.end()) continue;
    printed.push_back(name);
    out += name + "=" + *Lookup(env, name) + "\n";
  }
  return out;
}

// One simple command, by its words, in environment `env`; false when it is
// not one we know.
bool RunWords(std::vector<std::string> words, EnvVars env, Outcome& out) {
  size_t first = 0;  // leading assignments: the command's own environment
  for (; first < words.size(); ++first) {
    auto assignment = Assignment(words[first]);
    if (!assignment) break;
    env.push_back(std::move(*assignment));
  }
  words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(first));
  if (words.empty()) {  // only assignments: shell variables, not exported
    out.status = 0;
    return true;
  }
  const std::string_view name = Basename(words[0]);
  if (name == "true" || name == ":") {
    out.status = 0;
    return true;
  }
  if (name == "echo") {
    bool newline = words.size() < 2 || words[1] != "-n";
    std::string line;
    for (size_t i = newline ? 1 : 2; i < words.size(); ++i) line += (line.empty() ? "" : " ") + words[i];
    out.output += line + (newline ? "\n" : "");
    out.status = 0;
    return true;
  }
  if (name == "env" || name == "printenv") {
    if (words.size() == 1) {
      out.output += PrintEnvironment(env);
      out.status = 0;
      return true;
    }
    if (name == "env") return false;  // `env CMD`, options: not known
    out.status = 0;
    for (size_t i = 1; i < words.size(); ++i) {
      if (const std::string* value = Lookup(env, words[i])) {
        out.output += *value + "\n";
      } else {
        out.status = 1;
      }
    }
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

enum class Join { kAlways, kIfOk, kIfFailed };

// A statement of a script and how it is joined to the one before.
struct Statement {
  std::vector<std::string> words;
  Join join = Join::kAlways;
};

// A script of simple commands joined by ';', '&&', '||' and new lines, its
// words split at blanks, quoted with '...' or "..." (without anything a
// shell would expand inside). Pipes, redirections, expansions, globs and
// control flow are not known: nullopt.
std::optional<std::vector<Statement>> ParseScript(std::string_view script) {
  constexpr std::string_view kShellSyntax = "`$|<>(){}&*?[]\\#~!";
  std::vector<Statement> statements(1);
  std::string word;
  bool in_word = false;
  auto end_word = [&] {
    if (in_word) statements.back().words.push_back(std::move(word));
    word.clear();
    in_word = false;
  };
  auto end_statement = [&](Join next) {
    end_word();
    statements.push_back({{}, next});
  };
  for (size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    const bool doubled = i + 1 < script.size() && script[i + 1] == c;
    if (c == ' ' || c == '\t') {
      end_word();
    } else if (c == ';' || c == '\n') {
      end_statement(Join::kAlways);
    } else if ((c == '&' || c == '|') && doubled) {
      end_statement(c == '&' ? Join::kIfOk : Join::kIfFailed);
      ++i;
    } else if (c == '\'' || c == '"') {
      size_t close = script.find(c, i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view quoted = script.substr(i + 1, close - i - 1);
      if (c == '"' && quoted.find_first_of("$`\\") != std::string_view::npos) return std::nullopt;
      word += quoted;
      in_word = true;
      i = close;
    } else if (kShellSyntax.find(c) != std::string_view::npos) {
      return std::nullopt;
    } else {
      word += c;
      in_word = true;
    }
  }
  end_word();
  return statements;
}

bool RunScript(std::string_view script, const EnvVars& env, Outcome& out) {
  auto statements = ParseScript(script);
  if (!statements) return false;
  for (Statement& statement : *statements) {
    if (out.exited) break;
    if (statement.words.empty()) continue;  // an empty statement keeps the status
    const bool runs = statement.join == Join::kAlways || (statement.join == Join::kIfOk) == (out.status == 0);
    if (runs && !RunWords(std::move(statement.words), env, out)) return false;
    if (out.forever) return true;  // nothing after a sleep that never ends runs
  }
  return true;
}

}  // namespace

std::string ExpandReferences(std::string_view text, const EnvVars& env) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char next = text[i + 1];
    size_t close = next == '(' ? text.find(')', i + 2) : std::string_view::npos;
    if (next == '$') {
      out += '$';  // $$ is an escaped $
      ++i;
    } else if (close != std::string_view::npos) {
      std::string_view name = text.substr(i + 2, close - i - 2);
      const std::string* value = Lookup(env, name);
      out += value ? *value : "$(" + std::string(name) + ")";
      i = close;
    } else {
      out += '$';  // "$(" without its ")", or "$x": as written
    }
  }
  return out;
}

std::optional<CommandRun> RunCommand(const json::object& container, const EnvVars& env) {
  std::vector<std::string> argv;
  const json::array* command = api::ArrayAt(container, "command");
  if (!command || command->empty()) return std::nullopt;  // the image's entrypoint: unknown
  for (const json::array* part : {command, api::ArrayAt(container, "args")}) {
    if (!part) continue;
    for (const auto& word : *part) {
      if (!word.is_string()) return std::nullopt;
      argv.push_back(ExpandReferences(word.get_string(), env));
    }
  }
  Outcome out;
  const std::string_view name = Basename(argv[0]);
  const bool shell = name == "sh" || name == "bash" || name == "ash";
  if (shell) {
    if (argv.size() < 3 || argv[1] != "-c" || !RunScript(argv[2], env, out)) return std::nullopt;
  } else if (!RunWords(std::move(argv), env, out)) {
    return std::nullopt;
  }
  CommandRun run;
  if (!out.forever) run.duration = out.elapsed;
  run.exit_code = out.status;
  run.output = std::move(out.output);
  return run;
}

}  // namespace berth::api::container
