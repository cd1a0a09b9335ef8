// racepred generate: random well-formed traces in STD, streamed (trace/generator.hpp).
#include <memory>
#include <string>

#include "racepred/cli/cli.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred::cli {

Command add_generate_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("generate", "Write a random well-formed trace (seeded, reproducible)");
  sub->footer(
      "Same options and seed give the same trace on every machine. The trace is streamed: "
      "memory does not grow with --events.\nExample: racepred generate --threads 8 --events "
      "5000000 --seed 1 -o big.std");
  struct Args {
    GeneratorOptions options;
    std::string preset;
    std::string shape = "fork";
    std::string output = "-";
    bool keep_locks = false;
    double racy_share = -1;
  };
  auto args = std::make_shared<Args>();
  GeneratorOptions& o = args->options;
  sub->add_option("--seed", o.seed, "Random seed")->check(whole_number(0))->capture_default_str();
  sub->add_option("--threads", o.threads, "Number of threads T0, T1, …")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_option("--events", o.events,
                  "Number of events (exact unless forks/joins need more; at most 2^40)")
      ->check(whole_number(0, uint64_t{1} << 40))
      ->capture_default_str();
  sub->add_option("--variables", o.variables, "Number of shared variables V0, V1, …")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_option("--locks", o.locks, "Number of locks L0, L1, …")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_option("--nesting", o.nesting, "Most locks a thread holds at once (0: no locking)")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_option("--shape", args->shape,
                  "Thread structure: none (all run from the start), fork (T0 forks the others "
                  "early), fork-join (… and joins them at the end), nested (fork tree, each "
                  "thread joined by its parent), random (forks and joins at random points, "
                  "some threads unforked, some forked threads never run), churn (short-lived "
                  "threads, at most --live alive)")
      ->check(CLI::IsMember({"none", "fork", "fork-join", "nested", "random", "churn"}))
      ->capture_default_str();
  sub->add_option("--live", o.live, "churn: most threads besides T0 alive at once")
      ->capture_default_str();
  sub->add_option("--skew", o.skew,
                  "Popularity skew of shared variables: 1 uniform, larger values make a few "
                  "variables hot (power law)")
      ->capture_default_str();
  sub->add_option("--racy-share", args->racy_share,
                  "Share of accesses to a random shared variable without its guarding lock "
                  "(sets --local-share and --guarded-share to 1 - this)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--preset", args->preset,
                  "Named shape modelled on the cross-thread paper's benchmark table; options "
                  "given next to it override it:\n" +
                      generator_presets_help());
  sub->add_option("--cs-share", o.cs_share, "Share of accesses made while holding a lock")
      ->capture_default_str();
  sub->add_option("--write-share", o.write_share, "Share of accesses that are writes")
      ->capture_default_str();
  sub->add_option("--read-lock-share", o.read_lock_share,
                  "Share of lock acquires made in read (shared) mode: racq/rrel")
      ->capture_default_str();
  sub->add_option("--sync-share", o.sync_share,
                  "Share of steps that are a send or recv (synchronisation order) on a sync "
                  "object S<n>")
      ->capture_default_str();
  sub->add_option("--sync-objects", o.sync_objects, "Number of sync objects for --sync-share")
      ->capture_default_str();
  sub->add_option("--unguarded-write-share", o.unguarded_write_share,
                  "Share of writes among accesses to shared variables outside critical sections "
                  "(read-mostly shared data; default: --write-share)");
  sub->add_option("--local-share", o.local_share,
                  "Share of accesses outside critical sections that go to thread-local variables")
      ->capture_default_str();
  sub->add_option("--guarded-share", o.guarded_share,
                  "Share of accesses inside critical sections to a variable guarded by a held lock")
      ->capture_default_str();
  sub->add_option("--switch-share", o.switch_share,
                  "Chance to switch to a random thread after each event")
      ->capture_default_str();
  sub->add_option("--locations", o.locations, "Number of distinct locations (0: automatic)")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_flag("--early-joins", args->options.early_joins,
                "fork-join, nested: threads may be joined in the middle of the trace (also "
                "inside critical sections)");
  sub->add_flag("--keep-locks", args->keep_locks,
                "Do not release held locks at the end (Def. 3.2 allows unreleased locks)");
  sub->add_option("-o,--output", args->output, "Output file ('-': standard output)")
      ->capture_default_str();
  return {sub, [args, sub](std::ostream&) -> int {
            GeneratorOptions options = args->options;
            parse_fork_shape(args->shape, options.shape);
            if (args->racy_share >= 0) {
              options.local_share = 1 - args->racy_share;
              options.guarded_share = 1 - args->racy_share;
            }
            if (!args->preset.empty()) {
              // The preset, then every option the user gave on top of it.
              GeneratorOptions preset = options;
              if (!apply_generator_preset(args->preset, preset))
                throw UsageError("--preset: unknown preset '" + args->preset + "'; presets:\n" +
                                 generator_presets_help());
              auto given = [&](const char* name) { return sub->get_option(name)->count() > 0; };
              if (!given("--events")) options.events = preset.events;
              if (!given("--threads")) options.threads = preset.threads;
              if (!given("--variables")) options.variables = preset.variables;
              if (!given("--locks")) options.locks = preset.locks;
              if (!given("--nesting")) options.nesting = preset.nesting;
              if (!given("--shape")) options.shape = preset.shape;
              if (!given("--skew")) options.skew = preset.skew;
              if (!given("--live")) options.live = preset.live;
            }
            options.release_at_end = !args->keep_locks;
            if (std::string problem = check_generator_options(options); !problem.empty())
              throw UsageError(problem);
            Symbols symbols;
            OutputFile output(args->output);  // a killed run leaves no partial file
            StdWriter writer(symbols, output.path());
            generate_events(options, symbols, writer);
            writer.close();
            output.commit();
            return kExitNoRace;
          }};
}

}  // namespace racepred::cli
