// Command-line front end: one file per subcommand (docs/CLI.md).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>

#include "racepred/cli/options.hpp"
#include "racepred/cli/output.hpp"

namespace racepred::cli {

// Exit codes (docs/CLI.md): 0 nothing reported, 1 a finding that fails a run (a data race, a
// deadlock, a program failure: fails_run()), 2 usage or input error.
inline constexpr int kExitNoRace = 0;
inline constexpr int kExitRaces = 1;
inline constexpr int kExitError = 2;

// A subcommand registers its options on `app` and returns the action to run when selected;
// the action writes its report to the stream it is given and returns the exit code. Errors are
// thrown as InputError / UsageError (std::bad_alloc and OutputError are handled alike).
using Action = std::function<int(std::ostream& out)>;
struct Command {
  CLI::App* app;
  Action action;
  // The command's report options (format, -o, -q), or nullptr for a command without a report.
  const ReportOptions* report = nullptr;
};

Command add_engines_command(CLI::App& app);
Command add_analyze_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_stats_command(CLI::App& app);
Command add_annotate_command(CLI::App& app);
Command add_exact_command(CLI::App& app);
Command add_generate_command(CLI::App& app);
Command add_convert_command(CLI::App& app);
Command add_record_command(CLI::App& app);
Command add_explore_command(CLI::App& app);
Command add_confirm_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_check_witness_command(CLI::App& app);
Command add_merge_command(CLI::App& app);

// Runs racepred with the given arguments (argv[0] is the program name); returns the exit code.
// Output goes to std::cout (or -o FILE), diagnostics to std::cerr.
int run(int argc, const char* const* argv);

}  // namespace racepred::cli
