// racepred explore: run a program built with racepred-cc/racepred-c++ many times under the
// controlled scheduler and report every race, deadlock, hang and crash it reaches, each with a
// replay file (docs/EXPLORE.md). The exploration itself is explore/; this file parses and prints.
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "racepred/cli/cli.hpp"
#include "racepred/explore/explorer.hpp"
#include "racepred/report/html.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::cli {
namespace {

struct ExploreCliOptions {
  ReportOptions report;
  explore::ExploreOptions run;
  std::string replay_file;
  std::vector<std::string> command;
  std::string program;  // command's first word: -o must not write over it
  bool unreduced = false;
  bool sync_only = false;
  std::string shard;  // "I/N"
};

// --shard I/N, else Bazel's test sharding variables (TEST_SHARD_INDEX, TEST_TOTAL_SHARDS); the
// shard then touches TEST_SHARD_STATUS_FILE, which tells Bazel that the test shards.
void set_shard(ExploreCliOptions& o) {
  explore::Shard& shard = o.run.shard;
  std::string text = o.shard;
  std::string from = "--shard";
  if (text.empty()) {
    const char* index = std::getenv("TEST_SHARD_INDEX");
    const char* total = std::getenv("TEST_TOTAL_SHARDS");
    if (!index || !total || !*index || !*total) return;
    text = std::string(index) + "/" + total;
    from = "TEST_SHARD_INDEX/TEST_TOTAL_SHARDS";
    if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE"); status && *status)
      std::ofstream(status, std::ios::app);
  }
  const size_t slash = text.find('/');
  uint64_t index = 0, count = 0;
  const auto number = [](const std::string& s, uint64_t& v) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      return false;
    v = std::stoull(s);
    return true;
  };
  if (slash == std::string::npos || !number(text.substr(0, slash), index) ||
      !number(text.substr(slash + 1), count) || count == 0 || index >= count)
    throw UsageError(from + " '" + text +
                     "': give I/N with 0 <= I < N (shard I of N, numbered from 0)");
  shard.index = static_cast<uint32_t>(index);
  shard.count = static_cast<uint32_t>(count);
  if (o.run.replay && shard.sharded())
    throw UsageError("--replay runs one execution: it takes no --shard");
}

std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./=:,+@%") == std::string::npos)
    return s;
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string replay_command(const std::string& file, const std::vector<std::string>& command) {
  std::string s = "racepred explore --replay " + shell_word(file) + " --";
  for (const std::string& w : command) s += " " + shell_word(w);
  return s;
}

std::string count_of(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

int run_explore(ExploreCliOptions& o, std::ostream& out) {
  explore::ExploreOptions& run = o.run;
  if (!o.replay_file.empty()) {
    const explore::ReplayFile file = explore::read_replay_file(o.replay_file);
    run.replay = true;
    run.replay_choices = file.choices;
    if (file.max_steps) run.program.max_steps = file.max_steps;
    run.program.access_points = file.access_points;
    run.program.spurious_wakeups = file.spurious_wakeups;
    run.program.access_offsets = file.access_offsets;
    if (o.command.empty()) {
      o.command.push_back(file.program);
      o.command.insert(o.command.end(), file.arguments.begin(), file.arguments.end());
    }
  } else if (!run.record.empty()) {
    throw UsageError("--record writes the trace of a replayed execution: give --replay FILE");
  }
  if (o.command.empty()) throw UsageError("give the program to explore after --");
  run.program.command = o.command;
  if (!run.replay || !o.shard.empty()) set_shard(o);
  // Random strategies never finish: without a budget they stop after 1,000 executions; the
  // portfolio ends with its dfs, or after 10,000.
  if (!run.replay && run.strategy != "dfs" && run.executions == 0 && run.seconds <= 0)
    run.executions = run.strategy == "portfolio" ? 10000 : 1000;
  if (o.unreduced && o.sync_only) throw UsageError("--unreduced and --sync-only: give one of them");
  if (o.unreduced) run.dfs_points = explore::DfsPoints::All;
  if (o.sync_only) run.dfs_points = explore::DfsPoints::Sync;
  if ((o.unreduced || o.sync_only) && run.strategy != "dfs")
    throw UsageError("--unreduced and --sync-only choose where dfs branches: give --strategy dfs");

  const explore::ExploreResult r = explore::explore(run);
  uint64_t failing = 0, races = 0, failures = 0;
  for (const explore::ExploreFinding& f : r.findings) {
    failing += fails_run(f.finding.kind) ? 1 : 0;
    races += f.finding.kind == FindingKind::DataRace ? 1 : 0;
    failures += f.finding.kind == FindingKind::Failure ? 1 : 0;
  }
  const double rate = r.seconds > 0 ? static_cast<double>(r.executions) / r.seconds : 0;
  const std::string engine = "explore/" + run.engine;
  SourceLines sources;
  const auto fingerprint_of = [&sources](const explore::ExploreFinding& f) {
    return fingerprint(f.trace->symbols, f.finding, sources);
  };
  if (o.report.sarif() || o.report.html()) {
    std::vector<nlohmann::ordered_json> findings;
    for (const explore::ExploreFinding& f : r.findings) {
      nlohmann::ordered_json fj = finding_json(f.trace->symbols, f.finding);
      fj["count"] = f.executions;
      fj["engine"] = engine;
      fj["fingerprint"] = fingerprint_of(f);
      if (o.report.html() && !f.replay_file.empty()) fj["replay"] = f.replay_file;
      findings.push_back(std::move(fj));
    }
    if (o.report.html()) {
      std::string subject;
      for (const std::string& word : o.command) subject += (subject.empty() ? "" : " ") + word;
      write_html_report(out, findings, "explore", subject, sources);
    } else {
      write_json(out, sarif_log(findings, "explore", o.command.front()));
    }
  } else if (o.report.json()) {
    nlohmann::ordered_json j = json_header("explore");
    j["program"] = o.command;
    j["strategy"] = run.replay ? "replay" : run.strategy;
    j["engine"] = run.engine;
    j["executions"] = r.executions;
    j["analysed_executions"] = r.analysed;
    j["choice_points"] = r.choice_points;
    j["potential_races"] = r.potential_races;
    j["seconds"] = r.seconds;
    j["run_seconds"] = r.run_seconds;
    j["executions_per_second"] = rate;
    j["fork_server"] = r.fork_server;
    j["spurious_wakeups"] =
        run.replay ? run.program.spurious_wakeups
                   : run.spurious_wakeups && (run.strategy == "dfs" || run.strategy == "portfolio");
    if (run.shard.sharded()) j["shard"] = {{"index", run.shard.index}, {"count", run.shard.count}};
    if (!run.replay && run.jobs > 1) j["jobs"] = run.jobs;
    if (run.shard.sharded() || (!run.replay && run.jobs > 1))
      j["scout_executions"] = r.scout_executions;
    j["complete"] = r.complete;
    j["coverage"] = r.coverage;
    j["findings"] = nlohmann::ordered_json::array();
    for (const explore::ExploreFinding& f : r.findings) {
      nlohmann::ordered_json fj = finding_json(f.trace->symbols, f.finding);
      fj["count"] = f.executions;
      fj["first_execution"] = f.first_execution;
      fj["fingerprint"] = fingerprint_of(f);
      fj["replay"] = f.replay_file.empty() ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(f.replay_file);
      j["findings"].push_back(std::move(fj));
    }
    j["notes"] = r.notes;
    write_json(out, j);
  } else {
    std::ostringstream text_out;
    const bool color = color_wanted(o.report);
    std::ostream& text = color ? static_cast<std::ostream&>(text_out) : out;
    const std::string rule(18, '=');
    for (const explore::ExploreFinding& f : r.findings) {
      text << rule << '\n';
      Finding shown = f.finding;  // the replay command below names the replay file
      shown.failure.schedule.replay_file.clear();
      write_text_finding(text, f.trace->symbols, shown, engine);
      text << "  Found in " << f.executions << " of "
           << count_of(r.executions, "execution", "executions") << " (first: execution "
           << f.first_execution << ")\n";
      text << "  Fingerprint: " << fingerprint_of(f) << '\n';
      if (!f.replay_file.empty())
        text << "  Replay: " << printable(replay_command(f.replay_file, o.command)) << '\n';
    }
    if (!r.findings.empty()) text << rule << '\n';
    std::ostringstream rate_text;
    rate_text << std::fixed << std::setprecision(1) << rate;
    text << "SUMMARY: racepred explore: "
         << (r.findings.empty()
                 ? std::string("nothing found")
                 : count_of(r.findings.size(), "finding", "findings") + " (" +
                       count_of(races, "data race", "data races") + ", " +
                       count_of(failures, "program failure", "program failures") + ")")
         << " in " << count_of(r.executions, "execution", "executions") << " (" << rate_text.str()
         << " executions/s)\n";
    text << "Coverage: " << r.coverage << '\n';
    if (color) out << colorize(text_out.str());
  }
  if (!o.report.quiet)
    for (const std::string& n : r.notes)
      std::cerr << "racepred explore: note: " << printable(n) << '\n';
  return failing ? kExitRaces : kExitNoRace;
}

}  // namespace

Command add_explore_command(CLI::App& app) {
  auto o = std::make_shared<ExploreCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "explore",
      "Run a program built with racepred-cc/racepred-c++ under a controlled scheduler, many "
      "times, and report the races, deadlocks, hangs and crashes of its schedules");
  sub->footer(
      "Each execution is a fresh process; at every synchronisation operation (and, for dfs, "
      "at the memory accesses of potential races) where two or more threads may run, the "
      "strategy picks one. Each execution's trace is analysed by the "
      "engine; each distinct finding is reported once with a replay file (docs/EXPLORE.md).\n"
      "Examples:\n"
      "  racepred explore -- ./prog arg1\n"
      "  racepred explore --strategy pct --depth 2 --executions 500 -- ./prog\n"
      "  racepred explore --replay racepred-replays/finding-1.json --record run.rpt -- ./prog\n"
      "Exit codes: 0 nothing found, 1 a finding, 2 usage error or a program that cannot run.");
  add_report_options(sub, o->report, /*with_ci=*/true);
  add_color_option(sub, o->report);
  sub->add_option(
         "--strategy", o->run.strategy,
         "portfolio: executions in turn from dfs, pct of depth 1, 2, 3 and random "
         "(shallow bugs first; complete when its dfs is); dfs: depth-first search with the "
         "Goldilocks reduction and iterative preemption bounding (complete up to the "
         "bound); random; pct (probabilistic concurrency testing)")
      ->check(CLI::IsMember({"portfolio", "dfs", "random", "pct"}))
      ->capture_default_str();
  sub->add_flag("--unreduced", o->unreduced,
                "dfs: branch at every memory access, not only at those the Goldilocks lock "
                "sets find racy, and try every thread at every choice point (no partial-order "
                "reduction; for comparison: the same findings, more executions)");
  sub->add_flag("--sync-only", o->sync_only,
                "dfs: branch at synchronisation operations only (memory accesses are no "
                "scheduling points)");
  sub->add_flag("!--no-spurious-wakeups", o->run.spurious_wakeups,
                "dfs, portfolio: never wake a condition wait without a signal (by default the "
                "dfs may, as POSIX allows, at the cost of a preemption: a wait not in a loop is "
                "a bug)");
  sub->add_option("--shard", o->shard,
                  "I/N: run shard I (0 .. N-1) of N of the search, deterministically (the "
                  "shards' executions together are the search's; join their JSON reports with "
                  "racepred merge). Default: Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS");
  sub->add_option("--shard-depth", o->run.shard.depth,
                  "dfs, portfolio with --shard: the top choice points every shard runs (its "
                  "paths are dealt to the shards)")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  sub->add_option("--jobs,-j", o->run.jobs,
                  "Run this many executions at once, each job with a fork server of its own. "
                  "random: the same executions and report as one job; pct, dfs, portfolio: the "
                  "search dealt to the jobs as shards (the same findings when it completes)")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  sub->add_flag("!--no-fork-server", o->run.fork_server,
                "Start the program afresh for every execution instead of forking each from "
                "the program stopped before main (the fork server; docs/EXPLORE.md)");
  sub->add_flag("--round-trip", o->run.round_trip,
                "Ask racepred at every choice point while the program waits, instead of letting "
                "the runtime make the strategy's choices itself and report them at the end (the "
                "same executions, slower; docs/EXPLORE.md, \"The plan\")");
  sub->add_option("--executions", o->run.executions,
                  "Stop after this many executions (0: no bound; random and pct default to "
                  "1000 when neither budget is given)")
      ->check(whole_number(0))
      ->capture_default_str();
  sub->add_option("--time", o->run.seconds, "Stop starting executions after this many seconds")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--preemptions", o->run.preemptions,
                  "dfs, portfolio: the largest preemption bound; rounds run with 0, 1, … up to it")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
  sub->add_option("--depth", o->run.depth, "pct: the bug depth d (d - 1 priority change points)")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  sub->add_option("--seed", o->run.seed, "random, pct: the seed (the same seed, the same run)")
      ->check(whole_number(0))
      ->capture_default_str();
  sub->add_option("-e,--engine", o->run.engine, "The engine that analyses each execution's trace")
      ->capture_default_str();
  add_execution_options(sub, o->run.program);
  sub->add_option("--replay-dir", o->run.replay_dir, "Where the findings' replay files go")
      ->capture_default_str();
  sub->add_option("--replay", o->replay_file,
                  "Run the one execution of a replay file (its program unless one is given "
                  "after --)");
  sub->add_option("--record", o->run.record,
                  "With --replay: write the execution's trace to this file (for racepred "
                  "analyze)");
  sub->add_option("command", o->command, "The program and its arguments (after --)")
      ->each([o](const std::string& word) {
        if (o->program.empty()) o->program = word;
      });
  o->report.inputs.push_back(&o->program);
  o->report.inputs.push_back(&o->replay_file);
  return {sub, [o](std::ostream& out) { return run_explore(*o, out); }, &o->report};
}

}  // namespace racepred::cli
