// berth's command line (cmd/app.h): the subcommands, and the plugins a
// custom binary adds.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cmd/app.h"
#include "cmd/commands.h"
#include "log/log.h"

namespace berth::app {
namespace {

// The command path and the first word that names no subcommand of it
// ("berth store", "frob"), when the command line has one; CLI11 only says
// that a subcommand is required.
bool FindUnknownCommand(CLI::App& app, int argc, char** argv, std::string& path, std::string& word) {
  CLI::App* current = &app;
  path = "berth";
  for (int i = 1; i < argc; ++i) {
    std::string token = argv[i];
    if (token.empty() || token[0] == '-') continue;
    std::vector<CLI::App*> subs = current->get_subcommands({});
    if (subs.empty()) return false;  // its own arguments from here
    CLI::App* sub = nullptr;
    for (CLI::App* candidate : subs) {
      if (candidate->check_name(token)) sub = candidate;
    }
    if (sub == nullptr) {
      word = token;
      return true;
    }
    current = sub;
    path += " " + token;
  }
  return false;
}

}  // namespace

Option WithPlugin(std::string name, scheduler::PluginFactory factory) {
  return Option{std::move(name), std::move(factory)};
}

scheduler::Registry RegistryWith(const std::vector<Option>& options) {
  scheduler::Registry registry = scheduler::InTreeRegistry();
  for (const Option& o : options) registry.Register(o.plugin_name, o.factory);
  return registry;
}

int Main(int argc, char** argv, const std::vector<Option>& options) {
  const scheduler::Registry registry = RegistryWith(options);
  CLI::App app{"berth: a Kubernetes-compatible scheduler and control plane"};
  app.require_subcommand(1);
  app.set_version_flag("--version", BERTH_VERSION);

  // kube's logging flags, on every command: given before or after the
  // subcommand (its options fall through to these), applied before any
  // command runs.
  app.fallthrough();
  static int verbosity = 0;
  static std::string logging_format = "text";
  app.add_option("-v,--v", verbosity, "number for the log level verbosity")->capture_default_str();
  app.add_option("--logging-format", logging_format, "Sets the log format. Permitted formats: \"json\", \"text\".")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            return log::ParseFormat(value) ? std::string() : "Unsupported log format \"" + value + "\"";
          },
          "text|json"));
  app.parse_complete_callback([] {
    log::Configure({.verbosity = verbosity, .format = *log::ParseFormat(logging_format)});
  });

  auto* version = app.add_subcommand("version", "Print berth's version");
  version->callback([] { std::printf("berth %s\n", BERTH_VERSION); });

  berth::cmd::AddServeCommand(app, registry);
  berth::cmd::AddApiBenchCommand(app);
  berth::cmd::AddBenchCommand(app);
  berth::cmd::AddSchedulerCommand(app, registry);
  berth::cmd::AddSimCommand(app);
  berth::cmd::AddPerfCommand(app);
  berth::cmd::AddControllerManagerCommand(app);
  berth::cmd::AddExplainCommand(app);
  berth::cmd::AddStoreCommands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::string path, word;
    if (e.get_exit_code() != 0 && FindUnknownCommand(app, argc, argv, path, word)) {
      std::fprintf(stderr, "berth: unknown command \"%s\" for \"%s\"\nRun '%s --help' for the commands.\n",
                   word.c_str(), path.c_str(), path.c_str());
      return 2;
    }
    return app.exit(e);
  }
  return berth::cmd::ExitCode();
}

}  // namespace berth::app
