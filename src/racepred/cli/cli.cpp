#include "racepred/cli/cli.hpp"

#include <signal.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <new>
#include <sstream>
#include <string_view>
#include <vector>

#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::cli {
namespace {

// A failed run with --format json still writes one JSON document: the error object.
void write_json_error(const Command& command, ReportOutput& output, std::string_view kind,
                      const std::string& message) {
  try {
    nlohmann::ordered_json doc = json_header(command.report->command);
    doc["error"] = {{"kind", kind}, {"message", message}};
    output.discard();
    write_json(output.stream(), doc);
    output.commit();
  } catch (const std::exception&) {  // the output itself failed: the message on stderr is all
  }
}

int fail(const Command* command, ReportOutput& output, std::string_view kind,
         const std::string& message) {
  std::cout.flush();
  std::cout.clear();
  // A trace written to standard output whose reader has gone (`racepred generate | head`):
  // the closed pipe ends the run, quietly.
  if (message.find("<stdout>: error:") != std::string::npos &&
      message.find(std::strerror(EPIPE)) != std::string::npos) {
    output.discard();
    return kExitError;
  }
  std::cerr << printable_text(message) << '\n';  // names in messages: no control characters
  if (command && command->report && command->report->json() && kind != "output")
    write_json_error(*command, output, kind, message);
  else
    output.discard();
  return kExitError;
}

}  // namespace

int run(int argc, const char* const* argv) {
  // A closed pipe is a write error (exit code 2, quietly on standard output), not death by
  // SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  CLI::App app{"racepred: dynamic data race prediction on recorded traces"};
  app.set_version_flag("--version", std::string("racepred ") + RACEPRED_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);
  app.footer(
      "Run 'racepred COMMAND --help' for a command's options. Exit codes: 0 nothing reported, "
      "1 a data race, deadlock or program failure reported, 2 usage or input error.");

  std::vector<Command> commands;
  // Subcommands in the order --help lists them.
  for (auto add :
       {&add_analyze_command, &add_check_command, &add_check_witness_command, &add_stats_command,
        &add_annotate_command, &add_compare_command, &add_engines_command, &add_exact_command,
        &add_generate_command, &add_convert_command, &add_record_command, &add_explore_command,
        &add_merge_command, &add_confirm_command})
    commands.push_back(add(app));

  // "racepred bogus": name the unknown command instead of CLI11's "A subcommand is required".
  std::string names;
  bool known = false;
  for (const Command& c : commands) {
    names += (names.empty() ? "" : ", ") + c.app->get_name();
    known = known || (argc > 1 && c.app->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "racepred: error: unknown command '" << printable(argv[1])
              << "'; commands: " << names << " (racepred --help)\n";
    return kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 echoes the offending value: escaped like every other message.
    // With the prefix every other usage error has: "racepred: error: MESSAGE".
    std::ostringstream err;
    app.exit(e, std::cout, err);
    std::string text = err.str();
    if (text.rfind("racepred: error: ", 0) != 0) text = "racepred: error: " + text;
    std::cerr << printable_text(text);
    return kExitError;
  }

  const Command* selected = nullptr;
  for (const Command& c : commands)
    if (c.app->parsed()) selected = &c;
  if (!selected) return kExitError;
  std::vector<std::string> inputs;
  if (selected->report)
    for (const std::string* input : selected->report->inputs) inputs.push_back(*input);
  ReportOutput output(selected->report ? selected->report->output : std::string(),
                      std::move(inputs));
  try {
    const int code = selected->action(output.stream());
    output.commit();
    return code;
  } catch (const InputError& e) {
    return fail(selected, output, "input", e.what());
  } catch (const UsageError& e) {
    return fail(selected, output, "usage", std::string("racepred: error: ") + e.what());
  } catch (const OutputError& e) {
    if (e.quiet()) {  // standard output's reader has gone (`| head`): nothing to say
      output.discard();
      return kExitError;
    }
    return fail(selected, output, "output", e.what());
  } catch (const std::bad_alloc&) {
    return fail(selected, output, "memory",
                "racepred: error: out of memory (the trace or the engines' state does not fit; "
                "try fewer engines, or a budget option such as --max-states / --max-bytes)");
  } catch (const std::length_error& e) {
    return fail(selected, output, "memory",
                std::string("racepred: error: out of memory (") + e.what() + ")");
  }
}

}  // namespace racepred::cli
