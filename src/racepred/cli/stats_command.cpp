// PLACEHOLDER owned by the io work; replaced before the session ends.
#include "racepred/cli/cli.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {

Command add_stats_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("stats", "Trace statistics: events, threads, variables, locks, ops");
  return {sub, []() -> int { throw UsageError("'stats' is not implemented yet"); }};
}

}  // namespace racepred::cli
