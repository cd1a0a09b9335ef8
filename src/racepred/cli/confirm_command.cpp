// racepred confirm: record a run of a program built with racepred-cc/racepred-c++, predict its
// races, and reproduce each on the real program under the controlled scheduler
// (docs/WITNESSES.md, "Confirming on the program"). The work is explore/confirm.cpp; this file
// parses and prints.
#include <iostream>
#include <memory>
#include <sstream>

#include "racepred/cli/cli.hpp"
#include "racepred/explore/confirm.hpp"
#include "racepred/report/writers.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::cli {
namespace {

struct ConfirmCliOptions {
  ReportOptions report;
  explore::ConfirmOptions run;
  std::string engines = "shb,syncp";
  std::vector<std::string> command;
  std::string program;  // command's first word: -o must not write over it
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int run_confirm(ConfirmCliOptions& o, std::ostream& out) {
  if (o.command.empty()) throw UsageError("give the program to confirm after --");
  o.run.program.command = o.command;
  o.run.engines = split(o.engines);
  const explore::ConfirmResult r = explore::confirm(o.run);
  uint64_t counts[5] = {};
  for (const explore::ConfirmedRace& race : r.races) ++counts[static_cast<size_t>(race.status)];
  const Confidence order[] = {Confidence::Reproduced, Confidence::Observed, Confidence::Witnessed,
                              Confidence::Predicted, Confidence::Possible};
  if (o.report.json()) {
    nlohmann::ordered_json j = json_header("confirm");
    j["program"] = o.command;
    j["engines"] = o.run.engines;
    j["events"] = r.events;
    j["executions"] = r.executions;
    j["seconds"] = r.seconds;
    j["races"] = nlohmann::ordered_json::array();
    for (const explore::ConfirmedRace& race : r.races) {
      nlohmann::ordered_json rj;
      rj["status"] = std::string(confidence_name(race.status));
      rj["variable"] = race.variable;
      const auto access = [](const std::string& op, const std::string& location,
                             const std::string& thread, const std::vector<std::string>& stack) {
        nlohmann::ordered_json a = {{"op", op}, {"location", location}};
        a["thread"] =
            thread.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(thread);
        a["stack"] = stack;
        return a;
      };
      rj["first"] = access(race.first_op, race.first_location, race.first_thread, race.first_stack);
      rj["second"] =
          access(race.second_op, race.second_location, race.second_thread, race.second_stack);
      rj["engines"] = nlohmann::ordered_json::array();
      for (const auto& [engine, label] : race.engines)
        rj["engines"].push_back(
            {{"engine", engine}, {"confidence", std::string(confidence_name(label))}});
      rj["method"] = race.method.empty() ? nlohmann::ordered_json(nullptr)
                                         : nlohmann::ordered_json(race.method);
      if (race.has_witness && o.run.method != "hold") {
        const explore::WitnessAttempt& w = race.witness;
        rj["witness"] = {{"engine", w.engine},       {"notion", w.notion},
                         {"events", w.events},       {"steps", w.steps},
                         {"steps_run", w.steps_run}, {"reproduced", w.reproduced}};
        rj["witness"]["divergence"] = w.divergence.empty() ? nlohmann::ordered_json(nullptr)
                                                           : nlohmann::ordered_json(w.divergence);
      } else {
        rj["witness"] = nullptr;
      }
      rj["executions"] = race.executions;
      rj["reproduced_in"] = race.reproduced_in ? nlohmann::ordered_json(race.reproduced_in)
                                               : nlohmann::ordered_json(nullptr);
      rj["replay"] = race.replay_file.empty() ? nlohmann::ordered_json(nullptr)
                                              : nlohmann::ordered_json(race.replay_file);
      rj["failure"] = race.failure.empty() ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(race.failure);
      rj["diverged"] = race.diverged;
      rj["note"] = race.note;
      j["races"].push_back(std::move(rj));
    }
    nlohmann::ordered_json cj;
    for (const Confidence c : order)
      cj[std::string(confidence_name(c))] = counts[static_cast<size_t>(c)];
    j["counts"] = cj;
    j["notes"] = r.notes;
    write_json(out, j);
  } else {
    const std::string rule(18, '=');
    for (const explore::ConfirmedRace& race : r.races) {
      out << rule << '\n';
      out << "Race on " << printable(race.variable) << ": " << confidence_name(race.status) << '\n';
      out << "  " << race.second_op << " at " << printable(race.second_location) << '\n';
      out << "  " << (race.first_op.empty() ? "?" : race.first_op) << " at "
          << printable(race.first_location.empty() ? "?" : race.first_location) << '\n';
      out << "  Engines:";
      for (const auto& [engine, label] : race.engines)
        out << ' ' << engine << " (" << confidence_name(label) << ')';
      out << '\n';
      if (race.has_witness && o.run.method != "hold") {
        const explore::WitnessAttempt& w = race.witness;
        out << "  Witness order: " << w.engine << "'s witness (" << w.notion << ", " << w.events
            << (w.events == 1 ? " event" : " events") << " of which " << w.steps
            << " lock operations, thread creations and joins): ";
        if (w.reproduced)
          out << "followed; both accesses enabled at once, then run back to back\n";
        else
          out << printable_text(w.divergence) << '\n';
      }
      if (race.reproduced_in) {
        out << "  Reproduced in execution " << race.reproduced_in << " of " << race.executions
            << (race.method == "witness" ? ", following the witness's order"
                                         : ", holding one thread at an access")
            << ": the two accesses ran back to back\n";
        const auto stack = [&](const std::string& op, const std::string& thread,
                               const std::vector<std::string>& frames) {
          if (frames.empty()) return;
          out << "    " << op << " by " << printable(thread) << ":\n";
          for (size_t i = 0; i < frames.size(); ++i)
            out << "      #" << i << ' ' << printable(frames[i]) << '\n';
        };
        stack(race.second_op, race.second_thread, race.second_stack);
        stack(race.first_op, race.first_thread, race.first_stack);
        out << "  Then: "
            << (race.failure.empty() ? std::string("the program ended as in the recorded run")
                                     : "the program failed: " + printable_text(race.failure))
            << '\n';
        if (!race.replay_file.empty()) {
          out << "  Replay: racepred explore --replay " << printable(race.replay_file) << " --";
          for (const std::string& w : o.command) out << ' ' << printable(w);
          out << '\n';
        }
      }
      if (!race.note.empty()) out << "  Note: " << printable_text(race.note) << '\n';
      out << "  " << confidence_sentence(race.status) << '\n';
    }
    if (!r.races.empty()) out << rule << '\n';
    out << "SUMMARY: racepred confirm: " << r.races.size()
        << (r.races.size() == 1 ? " race" : " races") << " by pair of locations (";
    for (size_t i = 0; i < 5; ++i)
      out << (i ? ", " : "") << counts[static_cast<size_t>(order[i])] << ' '
          << confidence_name(order[i]);
    out << ") in " << r.executions << (r.executions == 1 ? " execution" : " executions") << '\n';
  }
  if (!o.report.quiet)
    for (const std::string& n : r.notes)
      std::cerr << "racepred confirm: note: " << printable(n) << '\n';
  return counts[static_cast<size_t>(Confidence::Reproduced)] ? kExitRaces : kExitNoRace;
}

}  // namespace

Command add_confirm_command(CLI::App& app) {
  auto o = std::make_shared<ConfirmCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "confirm",
      "Record a run of a program built with racepred-cc/racepred-c++, predict its races, and "
      "reproduce each on the real program under the controlled scheduler");
  sub->footer(
      "Each predicted race is driven toward in new executions: first, when an engine built a "
      "witness, the program's threads run in the witness's order (its lock operations, thread "
      "creations and joins) until both accesses are about to run; then, or without a witness, "
      "a thread that reaches one of its two accesses is held while the others run, until "
      "another thread is about to access the same address at the other. A race is reproduced "
      "when the two accesses run back to back (docs/WITNESSES.md).\n"
      "Examples:\n"
      "  racepred confirm -- ./prog arg1\n"
      "  racepred confirm --engines shb,syncp,lockset --format json -- ./prog\n"
      "Exit codes: 0 no race reproduced, 1 a race reproduced, 2 usage error or a program that "
      "cannot run.");
  add_report_options(sub, o->report);
  sub->add_option("-e,--engines", o->engines,
                  "The engines that predict (comma-separated); sound ones label their races "
                  "predicted or witnessed, others possible")
      ->capture_default_str();
  sub->add_option("--executions", o->run.executions, "At most this many executions per race")
      ->check(whole_number(1))
      ->capture_default_str();
  sub->add_option("--method", o->run.method,
                  "How each race is driven toward: auto (its witness's order when an engine built "
                  "one, then holding one thread at an access), witness (the witness's order "
                  "only) or hold (holding only)")
      ->check(CLI::IsMember({"auto", "witness", "hold"}))
      ->capture_default_str();
  add_execution_options(sub, o->run.program);
  sub->add_option("--replay-dir", o->run.replay_dir, "Where the reproduced races' replay files go")
      ->capture_default_str();
  sub->add_option("command", o->command, "The program and its arguments (after --)")
      ->each([o](const std::string& word) {
        if (o->program.empty()) o->program = word;
      });
  o->report.inputs.push_back(&o->program);
  return {sub, [o](std::ostream& out) { return run_confirm(*o, out); }, &o->report};
}

}  // namespace racepred::cli
