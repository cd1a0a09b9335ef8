#include "racepred/explore/confirm.hpp"

#include <sys/personality.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "racepred/driver/pipeline.hpp"
#include "racepred/explore/explorer.hpp"
#include "racepred/explore/strategy.hpp"
#include "racepred/explore/witness_order.hpp"
#include "racepred/format/explore_channel.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/recording/finish.hpp"
#include "racepred/recording/launch.hpp"
#include "racepred/recording/spawn.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::explore {
namespace {

namespace fs = std::filesystem;
namespace ch = format::explore;

// One execution's traces: plain (module+offset names, as the access points are given) and,
// for the recorded run, symbolised for the report.
Trace finish(const std::string& raw, const std::string& out, bool symbolize) {
  recording::FinishOptions fo;
  fo.output = out;
  fo.symbolize = symbolize;
  recording::finish_recording(raw, fo);
  return load_checked_trace(out);
}

// "prog+0x1a2b" -> 0x1a2b when the module is the program's executable.
bool code_offset(std::string_view name, std::string_view module, uint64_t& offset) {
  const size_t plus = name.rfind("+0x");
  if (plus == std::string_view::npos || name.substr(0, plus) != module) return false;
  const std::string hex(name.substr(plus + 3));
  char* end = nullptr;
  offset = std::strtoull(hex.c_str(), &end, 16);
  return end && *end == '\0' && !hex.empty();
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Where the execution's trace runs an access at `a` and one at `b` back to back, by two
// threads, on one variable, at least one a write (the locations are plain names): the index of
// the earlier of the two, or SIZE_MAX.
size_t adjacent_at(const Trace& t, std::string_view a, std::string_view b) {
  for (size_t i = 0; i + 1 < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const Event& f = t.events[i + 1];
    if (!conflicting(e, f)) continue;
    const std::string_view le = t.location_name(e.location), lf = t.location_name(f.location);
    if ((le == a && lf == b) || (le == b && lf == a)) return i;
  }
  return SIZE_MAX;
}
bool adjacent_in(const Trace& t, std::string_view a, std::string_view b) {
  return adjacent_at(t, a, b) != SIZE_MAX;
}

// The call stack of events[i] as the symbolised trace names it (its location alone when the
// trace has no stacks).
std::vector<std::string> stack_of(const Trace& named, size_t i) {
  std::vector<std::string> frames;
  for (const uint32_t l : named.symbols.stacks.of(named.ids[i]))
    frames.emplace_back(named.location_name(l));
  if (frames.empty()) frames.emplace_back(named.location_name(named.events[i].location));
  return frames;
}

// A divergence names what the program did by address ("lock of 0x5555…"): the names the
// execution's own symbolised trace gives those addresses (locks, then variables), where it has
// them.
std::string with_names(const std::string& text, const Trace& plain, const std::string& raw,
                       const std::string& named_path) {
  if (text.find(" 0x") == std::string::npos) return text;
  Trace named;
  try {
    named = finish(raw, named_path, true);
  } catch (const InputError&) {
    return text;
  }
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t at = text.find(" 0x", i);
    if (at == std::string::npos) break;
    size_t end = at + 3;
    while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end]))) ++end;
    const std::string_view token(text.data() + at + 1, end - at - 1);
    std::string name;
    for (uint32_t l = 0; l < plain.symbols.locks.size() && name.empty(); ++l)
      if (plain.lock_name(l) == token && l < named.symbols.locks.size()) name = named.lock_name(l);
    for (uint32_t v = 0; v < plain.symbols.variables.size() && name.empty(); ++v)
      if (plain.variable_name(v) == token && v < named.symbols.variables.size())
        name = named.variable_name(v);
    out.append(text, i, at + 1 - i);
    out += name.empty() || name == token ? std::string(token) : name;
    i = end;
  }
  out.append(text, i, std::string::npos);
  return out;
}

// The choice points a replay without RACEPRED_SCHEDULE_EVERY sees: those with two or more
// candidates (the others have one answer).
std::vector<ChoicePoint> real_choices(const std::vector<ChoicePoint>& points) {
  std::vector<ChoicePoint> out;
  for (const ChoicePoint& p : points)
    if (p.candidates.size() >= 2) out.push_back(p);
  return out;
}

// Whether the execution ran an access at `a` and one at `b` (as the recorded run did).
bool reaches(const Trace& t, std::string_view a, std::string_view b) {
  bool seen_a = false, seen_b = false;
  for (const Event& e : t.events) {
    if (!e.is_access()) continue;
    const std::string_view l = t.location_name(e.location);
    seen_a |= l == a;
    seen_b |= l == b;
  }
  return seen_a && seen_b;
}

// The chooser of one execution toward a race: holds the first thread that reaches point
// `hold` until another thread is about to access the same address at point `other`, then runs
// that thread's access and, at its next step point, the held one's. Every other choice keeps
// the current thread when it may run (the recorded run's policy) or, from the third execution
// on, picks at random (seeded by the execution), never a held thread while another may run and
// a sleeping thread only when no thread is enabled otherwise.
class TowardRace {
 public:
  TowardRace(uint8_t hold, uint8_t other, uint64_t execution)
      : hold_(hold), other_(other), random_(execution >= 2), rng_(execution) {}

  size_t choose(const ChoicePoint& p) {
    const auto& c = p.candidates;
    const auto find = [&](uint32_t tid) {
      for (size_t i = 0; i < c.size(); ++i)
        if (c[i].tid == tid) return i;
      return c.size();
    };
    if (then_ != kNone) {  // the arriving access ran: the held one next
      const size_t i = find(then_);
      then_ = kNone;
      if (i < c.size()) return i;
    }
    if (held_ == kNone)
      for (const Candidate& k : c)
        if (k.op == ch::kOpAccess && k.point == hold_) {
          held_ = k.tid;
          held_obj_ = k.obj;
          held_for_ = 0;
          break;
        }
    const size_t h = find(held_);
    // A thread held too long may be what the others wait for (a spin on a flag it sets):
    // released, and no thread is held again in this execution.
    if (held_ != kNone && h < c.size() && ++held_for_ > kHoldPoints) {
      held_ = kNone;
      hold_ = 0xff;
      return h;
    }
    if (held_ != kNone && h < c.size()) {
      for (size_t i = 0; i < c.size(); ++i)
        if (c[i].tid != held_ && c[i].op == ch::kOpAccess && c[i].point == other_ &&
            c[i].obj == held_obj_) {
          // The arriving access first, against the recorded order of the held one: an order
          // violation shows its effect.
          then_ = held_;
          held_ = kNone;
          return i;
        }
    }
    std::vector<size_t> runnable, sleeping;
    for (size_t i = 0; i < c.size(); ++i)
      if (c[i].tid != held_) (c[i].times_out ? sleeping : runnable).push_back(i);
    const std::vector<size_t>& pool = runnable.empty() ? sleeping : runnable;
    if (pool.empty()) {  // only the held thread may run: let it go (it may be held again later)
      held_ = kNone;
      return h < c.size() ? h : 0;
    }
    if (random_) return pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng_)];
    for (size_t i : pool)
      if (c[i].tid == p.current) return i;
    return pool.front();
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kHoldPoints = 200;  // choice points a thread may be held for
  uint32_t held_for_ = 0;
  uint8_t hold_, other_;
  bool random_;
  std::mt19937_64 rng_;
  uint32_t held_ = kNone;
  uint64_t held_obj_ = 0;
  uint32_t then_ = kNone;
};

std::string failure_text(const ExecutionResult& run, int recorded_exit) {
  Failure f;
  std::string key;
  if (failure_of(run, f, key)) return std::string(failure_kind_name(f.kind)) + ": " + f.message;
  if (run.exit_code != recorded_exit)
    return "wrong exit: status " + std::to_string(run.exit_code) +
           " (the recorded run: " + std::to_string(recorded_exit) + ")";
  return "";
}

}  // namespace

ConfirmResult confirm(const ConfirmOptions& o) {
  if (o.program.command.empty()) throw UsageError("give the program to confirm after --");
  if (o.engines.empty()) throw UsageError("give at least one engine");
  if (o.method != "auto" && o.method != "witness" && o.method != "hold")
    throw UsageError("--method must be auto, witness or hold, not " + o.method);
  const std::vector<const EngineInfo*> engines = resolve_engines(o.engines);
  const auto start = std::chrono::steady_clock::now();
  WorkDir work;
  const std::string raw = work.path + "/run.raw";
  const std::string plain = work.path + "/run.rpt";
  const std::string named_path = work.path + "/named.rpt";
  ConfirmResult result;

  // 1. The recorded run: the controlled scheduler keeps the current thread while it may run.
  Fairness fairness;
  const ExecutionResult recorded = run_execution(o.program, raw, [&](const ChoicePoint& p, size_t) {
    return options_of(p, fairness.gives_way(p)).default_index;
  });
  ++result.executions;
  if (!recorded.recorded)
    throw InputError("racepred: error: " + o.program.command[0] +
                     " wrote no recording: was it built with racepred-cc / racepred-c++?");
  for (const auto& child : recording::child_recordings(raw)) std::remove(child.first.c_str());
  if (recorded.ending != Ending::Exited)
    result.notes.push_back("the recorded run did not exit normally: " + failure_text(recorded, 0));
  const Trace base = finish(raw, plain, false);
  const Trace named = finish(raw, named_path, true);
  result.events = base.events.size();

  // 2. Prediction, with witnesses where an engine's guarantee covers the race.
  PipelineOptions po;
  po.witnesses = true;
  po.threaded = false;
  const PipelineResult predicted = run_pipeline(plain, engines, po);
  const Report report = predicted.report();
  struct Target {
    Race race;  // in the plain trace (event ids shared with `base` and `named`)
    ConfirmedRace out;
    const witness::Witness* witness = nullptr;  // the first engine's checked witness of the pair
  };
  std::map<std::pair<std::string, std::string>, size_t> by_pair;
  std::vector<Target> targets;
  for (const EngineReport& r : report.results) {
    if (!r.error.empty()) result.notes.push_back("engine " + r.engine + " stopped: " + r.error);
    for (const LabelledPair& pair : labelled_pairs(r)) {
      const Race& race = pair.example;
      std::string a = race.first.known()
                          ? std::string(predicted.symbols.locations.name(race.first.location))
                          : "?";
      std::string b(predicted.symbols.locations.name(race.second.location));
      if (b < a) std::swap(a, b);
      auto [it, fresh] = by_pair.emplace(std::make_pair(a, b), targets.size());
      if (fresh) {
        Target t;
        t.race = race;
        const size_t i2 = named.index_of(race.second.event);
        const size_t i1 = race.first.known() ? named.index_of(race.first.event) : SIZE_MAX;
        if (i2 != SIZE_MAX) {
          t.out.variable = named.variable_name(named.events[i2].target);
          t.out.second_location = named.location_name(named.events[i2].location);
          t.out.second_op = op_long_name(named.events[i2].op);
        }
        if (i1 != SIZE_MAX) {
          t.out.first_location = named.location_name(named.events[i1].location);
          t.out.first_op = op_long_name(named.events[i1].op);
        }
        targets.push_back(std::move(t));
      }
      ConfirmedRace& out = targets[it->second].out;
      out.engines.push_back({r.engine, pair.confidence});
      out.status = std::min(out.status, pair.confidence);
    }
  }

  // The witnesses, by pair of locations: the first engine's (in the order of the engines).
  for (const EngineRun& run : predicted.runs)
    for (const witness::Witness& w : run.witnesses) {
      const size_t i1 = base.index_of(w.first), i2 = base.index_of(w.second);
      if (i1 == SIZE_MAX || i2 == SIZE_MAX) continue;
      std::string a(base.location_name(base.events[i1].location));
      std::string b(base.location_name(base.events[i2].location));
      if (b < a) std::swap(a, b);
      const auto it = by_pair.find({a, b});
      if (it != by_pair.end() && !targets[it->second].witness) targets[it->second].witness = &w;
    }

  // The executions run with address randomisation off (run_execution), so the recorded run's
  // addresses, which its unsymbolised trace names, are those of every execution; unless the
  // system refused.
  const int persona = personality(0xffffffff);
  const bool fixed_layout = persona != -1 && (persona & ADDR_NO_RANDOMIZE) != 0;

  // 3. Each race driven toward in new executions.
  const bool follow = o.method != "hold";
  const bool hold = o.method != "witness";
  const std::string exe = recording::find_program(o.program.command[0]);
  const std::string module = fs::path(exe.empty() ? o.program.command[0] : exe).filename().string();
  if (!o.replay_dir.empty() && !targets.empty()) {
    std::error_code ec;
    fs::create_directories(o.replay_dir, ec);
    if (ec)
      throw InputError("racepred: error: cannot make the replay directory " + o.replay_dir + ": " +
                       ec.message());
  }
  const std::string try_path = work.path + "/try.rpt";
  const std::string try_named = work.path + "/try-named.rpt";
  for (size_t n = 0; n < targets.size(); ++n) {
    Target& t = targets[n];
    ConfirmedRace& out = t.out;
    if (!t.race.first.known()) {
      out.note = "not tried: the engine does not name the first access";
      result.races.push_back(out);
      continue;
    }
    const std::string a(predicted.symbols.locations.name(t.race.first.location));
    const std::string b(predicted.symbols.locations.name(t.race.second.location));
    uint64_t off_a = 0, off_b = 0;
    if (!code_offset(a, module, off_a) || !code_offset(b, module, off_b)) {
      out.note = "not tried: an access is not in the program's executable (" + a + ", " + b + ")";
      result.races.push_back(out);
      continue;
    }
    const bool same = off_a == off_b;
    ExploreOptions eo;
    eo.program = o.program;
    eo.program.access_offsets = same ? hex(off_a) : hex(off_a) + "," + hex(off_b);
    bool reached = false;
    // The reproducing execution: its choices, how it was steered.
    std::vector<ChoicePoint> reproducing;
    const auto tried_trace = [&](const ExecutionResult& run, Trace& tried) {
      for (const auto& child : recording::child_recordings(raw)) std::remove(child.first.c_str());
      if (!run.recorded) return false;
      try {
        tried = finish(raw, try_path, false);
      } catch (const InputError&) {
        return false;
      }
      return true;
    };

    // 3a. The witness's order, when an engine built one.
    out.has_witness = t.witness != nullptr;
    if (t.witness && follow) {
      const witness::Witness& w = *t.witness;
      WitnessAttempt& attempt = out.witness;
      attempt.engine = w.engine;
      attempt.notion = std::string(witness::notion_name(w.notion));
      WitnessPlan plan = plan_witness(base, named, w);
      if (!fixed_layout) {
        // Addresses differ between executions: locks are bound to the addresses their first
        // steps meet, and the racing variable is not checked by address.
        plan.lock_address.assign(plan.lock_address.size(), 0);
        plan.race[0].address = plan.race[1].address = 0;
      }
      attempt.events = plan.witness_events;
      for (const auto& steps : plan.steps)
        for (const WitnessPlan::Step& s : steps)
          attempt.steps += s.rank != WitnessPlan::kNotInWitness;
      if (!plan.error.empty()) {
        attempt.divergence = "the witness cannot be followed: " + plan.error;
      } else {
        ProgramSpec every = eo.program;
        every.every_point = true;
        // An enabled witness's accesses may run in either order: the reverse of the recorded
        // one first (it shows an order violation's effect), then the recorded one when the
        // reversed execution did not run them back to back (it may fail between them).
        const int orders = w.notion == witness::Notion::Enabled ? 2 : 1;
        std::string reversed_failure, departed;
        for (int turn = 0; turn < orders && !attempt.reproduced; ++turn) {
          WitnessOrder order(plan, turn == 0 && orders == 2);
          departed.clear();
          const ExecutionResult run = run_execution(
              every, raw, [&](const ChoicePoint& p, size_t) { return order.choose(p); });
          ++result.executions;
          ++out.executions;
          attempt.steps_run = order.steps_run();
          attempt.divergence = order.divergence();
          Trace tried;
          if (tried_trace(run, tried)) {
            reached |= reaches(tried, a, b);
            if (!attempt.divergence.empty()) {
              attempt.divergence = with_names(attempt.divergence, tried, raw, try_named);
            } else if (!(order.raced() && adjacent_in(tried, a, b)) &&
                       failure_text(run, recorded.exit_code).empty() &&
                       !compare_with_witness(plan, order, tried, tried).empty()) {
              // Not reproduced, the steps agreed, some other event did not (it explains why;
              // after a reproduction a spin loop's count of reads is no news): named as the
              // execution has it.
              try {
                const Trace shown = finish(raw, try_named, true);
                departed = compare_with_witness(plan, order, tried, shown);
              } catch (const InputError&) {
                departed = compare_with_witness(plan, order, tried, tried);
              }
            }
            if (order.raced() && adjacent_in(tried, a, b)) {
              attempt.reproduced = true;
              out.method = "witness";
              out.reproduced_in = out.executions;
              out.failure = failure_text(run, recorded.exit_code);
              reproducing = real_choices(run.points);
            } else if (order.first_ran()) {
              reversed_failure = failure_text(run, recorded.exit_code);
            }
          }
          if (!attempt.divergence.empty()) break;  // the other order diverges as well
        }
        if (attempt.reproduced && !reversed_failure.empty())
          out.note = "in the reverse order, the program failed after the first access (" +
                     reversed_failure + ")";
        if (!attempt.reproduced && attempt.divergence.empty() && !departed.empty())
          attempt.divergence = departed;
        if (!attempt.reproduced && attempt.divergence.empty())
          attempt.divergence =
              "the two accesses were held together but the execution's trace "
              "does not show them back to back" +
              (reversed_failure.empty()
                   ? std::string()
                   : " (the program failed after the first: " + reversed_failure + ")");
      }
    }

    const uint64_t witness_runs = out.executions;
    // 3b. Holding one thread at an access (active testing).
    for (uint64_t k = 0; hold && out.reproduced_in == 0 && k < o.executions; ++k) {
      // Even executions hold the earlier access, odd ones the later (with one location, both).
      const uint8_t hold_point = same || k % 2 == 0 ? 1 : 2;
      const uint8_t other = same ? 1 : hold_point == 1 ? 2 : 1;
      TowardRace toward(hold_point, other, k);
      const ExecutionResult run = run_execution(
          eo.program, raw, [&](const ChoicePoint& p, size_t) { return toward.choose(p); });
      ++result.executions;
      ++out.executions;
      Trace tried;
      if (!tried_trace(run, tried)) continue;
      reached |= reaches(tried, a, b);
      if (!adjacent_in(tried, a, b)) continue;
      out.method = "hold";
      out.reproduced_in = out.executions;
      out.failure = failure_text(run, recorded.exit_code);
      reproducing = run.points;
    }

    if (out.reproduced_in) {
      out.status = Confidence::Reproduced;
      const std::string what =
          "data race between " + out.first_location + " and " + out.second_location;
      if (!o.replay_dir.empty()) {
        out.replay_file =
            (fs::path(o.replay_dir) / ("confirm-" + std::to_string(n + 1) + ".json")).string();
        write_replay_file(out.replay_file, eo, what, reproducing);
      }
      // The replay runs the same choices again, as `racepred explore --replay` does, recording
      // the call stacks: a program that does not follow them (its own nondeterminism) is said
      // to diverge.
      ReplayStrategy replay([&] {
        std::vector<uint32_t> choices;
        for (const ChoicePoint& p : reproducing) choices.push_back(p.chosen);
        return choices;
      }());
      ProgramSpec stacks = eo.program;
      stacks.stack_depth = o.stack_depth;
      const ExecutionResult again = run_execution(
          stacks, raw, [&](const ChoicePoint& p, size_t i) { return replay.choose(p, i); });
      ++result.executions;
      for (const auto& child : recording::child_recordings(raw)) std::remove(child.first.c_str());
      size_t at = SIZE_MAX;
      try {
        if (again.recorded) {
          const Trace plain = finish(raw, try_path, false);
          at = adjacent_at(plain, a, b);
          if (at != SIZE_MAX) {
            const Trace shown = finish(raw, try_named, true);
            size_t first = at, second = at + 1;
            if (plain.location_name(plain.events[at].location) != a) std::swap(first, second);
            out.first_stack = stack_of(shown, first);
            out.second_stack = stack_of(shown, second);
            out.first_thread = std::string(shown.thread_name(shown.events[first].thread));
            out.second_thread = std::string(shown.thread_name(shown.events[second].thread));
          }
        }
      } catch (const InputError&) {
      }
      if (out.method == "hold" && !out.witness.divergence.empty())
        out.note =
            "following the witness: " +
            std::string(out.witness.divergence.rfind("diverged", 0) == 0 ? "the program " : "") +
            out.witness.divergence + "; reproduced by holding one thread at an access";
      if (replay.divergence() != SIZE_MAX || at == SIZE_MAX) {
        out.diverged = true;
        out.note = (out.note.empty() ? "" : out.note + "; ") +
                   "the replay of the reproducing execution diverged (the program's own "
                   "nondeterminism): it may not show the race again";
      }
    } else if (out.witness.divergence.rfind("diverged", 0) == 0) {
      // The program did not do what the recorded run did at some step of the witness.
      out.diverged = true;
      out.note = "following the witness: the program " + out.witness.divergence;
      if (hold)
        out.note += "; holding one thread at an access: not reproduced in " +
                    std::to_string(out.executions - witness_runs) + " executions";
    } else if (out.executions == 0) {
      out.note =
          "not tried: no engine built a witness of this race, and --method witness "
          "only follows witnesses";
    } else if (!reached) {
      out.diverged = true;
      out.note =
          "no execution ran both accesses: the program diverged from the recorded run "
          "(its own nondeterminism)";
    } else {
      out.note = "not reproduced in " + std::to_string(out.executions) + " executions";
      if (!out.witness.divergence.empty())
        out.note += " (following the witness: " + out.witness.divergence + ")";
    }
    result.races.push_back(out);
  }
  std::remove(raw.c_str());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace racepred::explore
