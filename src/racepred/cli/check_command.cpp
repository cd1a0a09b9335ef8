// PLACEHOLDER owned by the io work; replaced before the session ends.
#include "racepred/cli/cli.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {

Command add_check_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("check", "Check well-formedness (Def. 3.2 of the cross-thread paper)");
  return {sub, []() -> int { throw UsageError("'check' is not implemented yet"); }};
}

}  // namespace racepred::cli
