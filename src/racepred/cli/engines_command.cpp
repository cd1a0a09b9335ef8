#include <ostream>

#include "racepred/cli/cli.hpp"
#include "racepred/driver/registry.hpp"

namespace racepred::cli {

Command add_engines_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("engines", "List the engines with their guarantees");
  auto verbose = std::make_shared<bool>(false);
  sub->add_flag("-v,--verbose", *verbose,
                "Also print what each engine's reports guarantee, then the paper it implements");
  sub->footer(
      "Words used by the guarantees: a race is predictable when some valid reordering of the\n"
      "observed run (same reads seeing the same writes, locks held by one thread at a time)\n"
      "makes the two accesses adjacent. 'sound' = every reported race is predictable (no false\n"
      "alarms); 'complete' = every predictable race is reported (none missed); 'first race' =\n"
      "the first race reported is predictable, later ones may not be. 'racy events' = engines\n"
      "that name only the later access of each race. 'reports' = the label analyze gives the\n"
      "engine's reports: observed (the recorded run shows it), predicted (another schedule of\n"
      "the run shows it; witnessed once analyze --witness built and checked that schedule),\n"
      "possible (may be a false alarm). docs/ENGINES.md explains each engine.");
  return {sub, [verbose](std::ostream& out) {
            size_t width = 0;
            for (const EngineInfo& e : engine_registry()) width = std::max(width, e.name.size());
            for (const EngineInfo& e : engine_registry()) {
              out << e.name << std::string(width + 2 - e.name.size(), ' ')
                  << (e.mode == EngineMode::Online ? "online   " : "offline  ") << e.description
                  << '\n';
              if (*verbose) {
                out << std::string(width + 11, ' ') << "guarantee: " << e.guarantee.words << '\n'
                    << std::string(width + 11, ' ')
                    << "reports:   " << confidence_name(e.guarantee.confidence)
                    << (e.guarantee.soundness == Soundness::FirstRace &&
                                e.guarantee.confidence == Confidence::Possible
                            ? " (its first race: predicted)"
                            : "")
                    << '\n'
                    << std::string(width + 11, ' ') << "paper:     " << e.seed << '\n';
              }
            }
            return kExitNoRace;
          }};
}

}  // namespace racepred::cli
