#include "racepred/cli/cli.hpp"

#include <iostream>
#include <vector>

#include "racepred/trace/error.hpp"

namespace racepred::cli {

int run(int argc, const char* const* argv) {
  CLI::App app{"racepred: dynamic data race prediction on recorded traces"};
  app.set_version_flag("--version", std::string("racepred ") + RACEPRED_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<Command> commands;
  // Subcommands in the order --help lists them.
  for (auto add : {&add_analyze_command, &add_check_command, &add_stats_command,
                   &add_annotate_command, &add_compare_command, &add_engines_command,
                   &add_exact_command, &add_generate_command, &add_convert_command,
                   &add_record_command})
    commands.push_back(add(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitError;
  }
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.action();
  } catch (const InputError& e) {
    std::cout.flush();
    std::cerr << e.what() << '\n';
    return kExitError;
  } catch (const UsageError& e) {
    std::cout.flush();
    std::cerr << "racepred: error: " << e.what() << '\n';
    return kExitError;
  }
  return kExitError;
}

}  // namespace racepred::cli
