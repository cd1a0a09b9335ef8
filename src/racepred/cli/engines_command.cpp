#include <ostream>

#include "racepred/cli/cli.hpp"
#include "racepred/driver/registry.hpp"

namespace racepred::cli {

Command add_engines_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("engines", "List the engines with their guarantees");
  auto verbose = std::make_shared<bool>(false);
  sub->add_flag("-v,--verbose", *verbose, "Also print guarantee and seed section of each engine");
  return {sub, [verbose](std::ostream& out) {
            size_t width = 0;
            for (const EngineInfo& e : engine_registry()) width = std::max(width, e.name.size());
            for (const EngineInfo& e : engine_registry()) {
              out << e.name << std::string(width + 2 - e.name.size(), ' ')
                  << (e.mode == EngineMode::Online ? "online   " : "offline  ") << e.description
                  << '\n';
              if (*verbose) {
                out << std::string(width + 11, ' ') << "guarantee: " << e.guarantee.words << '\n'
                    << std::string(width + 11, ' ') << "seed:      " << e.seed << '\n';
              }
            }
            return kExitNoRace;
          }};
}

}  // namespace racepred::cli
