#include "racepred/explore/explorer.hpp"

#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/explore/goldilocks.hpp"
#include "racepred/explore/strategy.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/recording/assemble.hpp"
#include "racepred/recording/finish.hpp"
#include "racepred/recording/launch.hpp"
#include "racepred/recording/naming.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/recording/spawn.hpp"
#include "racepred/recording/symbolizer.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/validator.hpp"

namespace racepred::explore {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<Strategy> make_strategy(const ExploreOptions& o) {
  if (o.replay) return std::make_unique<ReplayStrategy>(o.replay_choices);
  if (o.strategy == "portfolio") return make_portfolio(o.seed, o.preemptions, o.shard);
  if (o.strategy == "dfs") return make_dfs(o.preemptions, o.dfs_points, o.shard);
  if (o.strategy == "random") return make_random(o.seed, o.shard);
  if (o.strategy == "pct") return make_pct(o.seed, o.depth, o.shard);
  throw UsageError("unknown strategy '" + o.strategy + "' (portfolio, dfs, random, pct)");
}

// What one execution found: distinct keys with what a report needs.
struct Hit {
  std::string key;
  Finding finding;  // races: names in the unsymbolised trace until mapped
};

std::string line_with(const std::string& text, const char* needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const size_t begin = text.rfind('\n', at);
  const size_t end = text.find('\n', at);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end == std::string::npos ? std::string::npos
                                              : end - (begin == std::string::npos ? 0 : begin + 1));
}

std::string last_line(const std::string& text) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  const size_t begin = text.rfind('\n', end ? end - 1 : 0);
  return text.substr(begin == std::string::npos || end == 0 ? 0 : begin + 1,
                     end - (begin == std::string::npos || end == 0 ? 0 : begin + 1));
}

// The race with the same events in the symbolised trace of the same recording.
bool map_race(const Trace& to, Race& race) {
  const size_t second = to.index_of(race.second.event);
  if (second == SIZE_MAX) return false;
  const Event& e2 = to.events[second];
  Access first = race.first;
  if (race.first.known()) {
    const size_t i = to.index_of(race.first.event);
    if (i == SIZE_MAX) return false;
    first = Access::of(race.first.event, to.events[i]);
  }
  race.first = first;
  race.second = Access::of(race.second.event, e2);
  race.variable = e2.target;
  return true;
}

std::string describe(const Finding& f, const Trace* t) {
  switch (f.kind) {
    case FindingKind::DataRace:
    case FindingKind::ReadReadViolation:
      if (!t) return "data race";
      return "data race between " +
             (f.race.first.known() ? std::string(t->location_name(f.race.first.location))
                                   : std::string("?")) +
             " and " + std::string(t->location_name(f.race.second.location));
    case FindingKind::Deadlock:
      return "deadlock";
    case FindingKind::Failure:
      return std::string(failure_kind_name(f.failure.kind)) + ": " + f.failure.message;
  }
  return "";
}

}  // namespace

namespace {

// The second pass's events with their location ids, numbered from 1 as a trace file numbers
// them, to the validator.
class MemorySink : public recording::EventBatchSink {
 public:
  MemorySink(EventConsumer& next, const std::vector<uint32_t>& loc_map)
      : next_(next), loc_map_(loc_map) {}
  void on_events(std::span<const Event> events) override {
    events_.assign(events.begin(), events.end());
    ids_.resize(events.size());
    for (size_t i = 0; i < events_.size(); ++i) {
      events_[i].location = loc_map_[events_[i].location];
      ids_[i] = ++id_;
    }
    next_.on_events(ids_, events_);
  }

 private:
  EventConsumer& next_;
  const std::vector<uint32_t>& loc_map_;
  std::vector<Event> events_;
  std::vector<EventId> ids_;
  EventId id_ = 0;
};

}  // namespace

Trace unnamed_trace(const recording::RawRecording& rec, const std::string& name,
                    UnnamedTraceCache* cache) {
  recording::Assembly assembly(rec, recording::consistent_cut(rec));
  assembly.scan();
  std::unique_ptr<recording::Symbolizer> own;
  recording::Symbolizer* symbolizer = nullptr;
  if (cache && cache->symbolizer && cache->maps == rec.maps) {
    symbolizer = cache->symbolizer.get();
  } else {
    own = std::make_unique<recording::Symbolizer>(recording::parse_maps(rec.maps), false);
    symbolizer = own.get();
  }
  std::vector<uint32_t> loc_map;
  Trace trace;
  trace.symbols = recording::name_symbols(assembly.scanned(), *symbolizer, loc_map);
  if (cache && own) {
    cache->maps = rec.maps;
    cache->symbolizer = std::move(own);
  }
  TraceCollector collector(trace);
  Validator validator(trace.symbols, ValidationOptions{ValidationMode::Strict, name}, collector);
  MemorySink sink(validator, loc_map);
  assembly.emit(sink);
  validator.on_end();
  return trace;
}

bool failure_of(const ExecutionResult& r, Failure& f, std::string& key) {
  switch (r.ending) {
    case Ending::Exited:
      return false;
    case Ending::Deadlock: {
      f.kind = FailureKind::Deadlock;
      // The runtime's lines after its heading, without the closing note.
      std::istringstream in(r.blocked);
      std::string line, text;
      while (std::getline(in, line))
        if (line.rfind("  ", 0) == 0) text += (text.empty() ? "" : "; ") + line.substr(2);
      f.message = "all threads blocked: " + text;
      key = "deadlock|" + text;
      return true;
    }
    case Ending::Hang:
      f.kind = FailureKind::Hang;
      f.message = r.timed_out ? "the program stopped answering the scheduler (timeout)"
                              : "the step bound was reached (a livelock or an endless loop)";
      key = "hang|" + std::string(r.timed_out ? "timeout" : "steps");
      return true;
    case Ending::Signaled: {
      f.signal = r.signal;
      const std::string assertion = line_with(r.stderr_tail, "Assertion");
      if (r.signal == SIGABRT && !assertion.empty()) {
        f.kind = FailureKind::Assertion;
        f.message = assertion;
        key = "assertion|" + assertion;
      } else {
        f.kind = FailureKind::Crash;
        f.message = std::string("killed by signal ") + std::to_string(r.signal) + " (" +
                    strsignal(r.signal) + ")";
        const std::string last = last_line(r.stderr_tail);
        if (!last.empty()) f.message += ": " + last;
        key = "crash|" + std::to_string(r.signal);
      }
      return true;
    }
  }
  return false;
}

void write_replay_file(const std::string& path, const ExploreOptions& o, const std::string& what,
                       const std::vector<ChoicePoint>& points) {
  nlohmann::ordered_json j;
  j["schema"] = "racepred-replay/1";
  j["version"] = RACEPRED_VERSION;
  std::string program = recording::find_program(o.program.command[0]);
  std::error_code ec;
  const fs::path absolute = fs::absolute(program.empty() ? o.program.command[0] : program, ec);
  j["program"] = ec ? o.program.command[0] : absolute.string();
  j["arguments"] = nlohmann::ordered_json::array();
  for (size_t i = 1; i < o.program.command.size(); ++i)
    j["arguments"].push_back(o.program.command[i]);
  j["max_steps"] = o.program.max_steps;
  j["access_points"] = o.program.access_points;
  if (o.program.spurious_wakeups) j["spurious_wakeups"] = true;
  if (!o.program.access_offsets.empty()) j["access_offsets"] = o.program.access_offsets;
  j["finding"] = what;
  j["choices"] = nlohmann::ordered_json::array();
  for (const ChoicePoint& p : points) j["choices"].push_back(p.chosen);
  std::ofstream out(path);
  out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  if (!out) throw InputError("racepred: error: cannot write the replay file " + path);
}

ReplayFile read_replay_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("racepred: error: cannot read the replay file " + path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("racepred: error: " + path + " is not a replay file: " + e.what());
  }
  if (!j.is_object() || j.value("schema", "") != "racepred-replay/1" || !j.contains("choices") ||
      !j["choices"].is_array())
    throw InputError("racepred: error: " + path +
                     " is not a replay file (schema racepred-replay/1 with choices)");
  ReplayFile r;
  try {
    r.program = j.value("program", "");
    if (j.contains("arguments"))
      for (const auto& a : j["arguments"]) r.arguments.push_back(a.get<std::string>());
    r.max_steps = j.value("max_steps", uint64_t{0});
    r.access_points = j.value("access_points", false);
    r.spurious_wakeups = j.value("spurious_wakeups", false);
    r.access_offsets = j.value("access_offsets", "");
    for (const auto& c : j["choices"]) r.choices.push_back(c.get<uint32_t>());
  } catch (const nlohmann::json::exception& e) {
    throw InputError("racepred: error: " + path + ": a malformed field: " + e.what());
  }
  return r;
}

namespace {

// One worker of the exploration: its strategy (a share of the search), fork server and raw files.
struct Produced;
// Files appearing in a worker's directory (inotify): the recordings of processes that an
// execution forked or execed (RAW.<pid>), removed after it; without inotify it is listed after
// every execution.
class DirWatch {
 public:
  DirWatch() = default;
  DirWatch(const DirWatch&) = delete;
  DirWatch& operator=(const DirWatch&) = delete;
  ~DirWatch() {
    if (fd_ >= 0) ::close(fd_);
  }
  void watch(const std::string& dir) {
    fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ >= 0 && inotify_add_watch(fd_, dir.c_str(), IN_CREATE | IN_MOVED_TO) < 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  // Whether a file may have appeared since the last call.
  bool changed() {
    if (fd_ < 0) return true;
    alignas(inotify_event) char buf[4096];
    bool any = false;
    while (::read(fd_, buf, sizeof buf) > 0) any = true;
    return any;
  }

 private:
  int fd_ = -1;
};

// A memory file for a worker's raw recordings (the fork server's executions write into it).
struct MemFile {
  int fd = memfd_create("racepred-explore-recording", MFD_CLOEXEC);
  std::string bytes;  // read back after the execution
  MemFile() = default;
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  ~MemFile() {
    if (fd >= 0) ::close(fd);
  }
  // What the execution recorded; false when it cannot be read.
  bool read() {
    struct stat st;
    if (::fstat(fd, &st) != 0) return false;
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n =
          ::pread(fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      got += static_cast<size_t>(n);
    }
    return true;
  }
  // A path that opens it (for the finishing of a trace with names).
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd); }
};

struct Worker {
  std::unique_ptr<Strategy> strategy;
  ForkServer server;
  std::string dir;
  std::string raw[2];
  MemFile raw_memory[2];
  DirWatch children;
  uint64_t produced = 0;
  bool done = false;               // its strategy has no execution left, or it failed
  bool more = true;                // its strategy has an execution left
  uint64_t owned = 0;              // its executions analysed (its shard's)
  std::unique_ptr<Produced> slot;  // jobs > 1: its execution waiting for (or in) analysis
};

// One execution run and decoded by a worker, its strategy told.
struct Produced {
  ExecutionResult run;
  std::string raw;   // where the recording is (a path that opens it)
  std::string name;  // of the recording, for messages
  std::optional<recording::RawFile> raw_file;
  std::optional<recording::RawRecording> recorded;
  std::string raw_error;
  std::string racy_error;
  uint64_t potential_races = 0;
  double run_seconds = 0;
  bool more = true;
  bool owned = true;
  bool is_new = true;
  std::exception_ptr error;
};

void produce(const ExploreOptions& o, Worker& w, Produced& p) {
  try {
    const size_t slot = w.produced++ % 2;
    MemFile& memory = w.raw_memory[slot];
    // Into the memory file, the path names only the recordings of the processes an execution
    // forks or execs: the same for every execution (the fork server sets it once).
    p.raw = w.raw[memory.fd >= 0 && w.server.running() ? 0 : slot];
    const std::string path = p.raw;
    Strategy& strategy = *w.strategy;
    strategy.begin();
    const auto run_start = std::chrono::steady_clock::now();
    ExecutionPlan plan;
    const bool planned = !o.round_trip && strategy.plan(plan);
    p.run = run_execution(
        o.program, p.raw, [&](const ChoicePoint& c, size_t i) { return strategy.choose(c, i); },
        &w.server, planned ? &plan : nullptr, memory.fd);
    p.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    if (!p.run.recorded)
      throw InputError("racepred: error: " + o.program.command[0] +
                       " wrote no recording: was it built with racepred-cc / racepred-c++?");
    // The raw recording, read once for the lock sets and the trace.
    try {
      if (p.run.recorded_in_fd) {
        p.name = "the execution's raw recording (in memory)";
        if (!memory.read()) throw InputError("racepred: error: cannot read " + p.name);
        p.raw = memory.path();
        p.recorded.emplace(recording::decode_recording(memory.bytes, p.name));
      } else {
        p.name = p.raw;
        p.raw_file.emplace(p.raw);
        p.recorded.emplace(recording::decode_recording(*p.raw_file, p.raw));
      }
    } catch (const InputError& e) {
      p.raw_error = e.what();
    }
    std::vector<LsEvent> events;  // for the strategy's end() (dfs's partial-order reduction)
    if (strategy.wants_racy_points()) {
      try {
        if (!p.recorded) throw InputError(p.raw_error);
        events = lockset_events(*p.recorded);
        p.potential_races = mark_racy_points(events, p.run.points);
        strategy.observe(events);
      } catch (const InputError& e) {
        // Without the lock sets every access point of this execution branches (no reduction).
        for (ChoicePoint& c : p.run.points) c.racy = c.is_access();
        p.racy_error = e.what();
      }
    }
    strategy.observe_ending(p.run.ending, p.run.blocked_threads);
    p.more = strategy.end(p.run.points);
    if (w.children.changed())
      for (const auto& child : recording::child_recordings(path)) std::remove(child.first.c_str());
    p.owned = strategy.last_is_owned();
    p.is_new = strategy.last_is_new();
  } catch (...) {
    p.error = std::current_exception();
  }
}

}  // namespace

ExploreResult explore(const ExploreOptions& options) {
  ExploreOptions o = options;
  if (!o.replay) {
    o.program.access_points =
        o.strategy == "portfolio" || (o.strategy == "dfs" && o.dfs_points != DfsPoints::Sync);
    // Only dfs chooses spurious wake-ups (strategy.hpp): the others run without the offers.
    o.program.spurious_wakeups =
        o.spurious_wakeups && (o.strategy == "portfolio" || o.strategy == "dfs");
  }
  if (o.shard.count == 0 || o.shard.index >= o.shard.count)
    throw UsageError("--shard I/N: I must be below N (0-based), N at least 1");
  if (o.program.command.empty()) throw UsageError("give the program to explore after --");
  if (!find_engine(o.engine)) throw UsageError("unknown engine '" + o.engine + "'");
  if (const std::string exe = recording::find_program(o.program.command[0]);
      !exe.empty() && recording::linked_with_real_tsan(exe))
    throw InputError("racepred: error: " + exe +
                     " is linked with the real ThreadSanitizer runtime (libtsan): link it with "
                     "racepred-cc / racepred-c++ (docs/RECORDER.md)");
  make_strategy(o);  // an unknown strategy is a usage error before anything starts
  // Each execution's analysis allocates and frees the same large buffers (the trace writer's
  // chunk, the assembled events): kept in the heap rather than mapped and trimmed each time,
  // they are not faulted in again per execution (a third of the explorer's time on a small
  // program). The memory stays that of the largest execution.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  const uint64_t budget = o.replay ? 1 : o.executions;
  WorkDir work;
  const std::string named = work.path + "/named.rpt";
  if (!o.replay && !o.replay_dir.empty()) {
    std::error_code ec;
    fs::create_directories(o.replay_dir, ec);
    if (ec)
      throw InputError("racepred: error: cannot make the replay directory " + o.replay_dir + ": " +
                       ec.message());
  }

  ExploreResult result;
  // --jobs: worker w runs the share w + J i of this run's executions (a shard of it: random and
  // pct then run exactly the executions of one job, dfs and the portfolio the same search dealt
  // to J shards); the executions are analysed here in turn, w = 0, 1, ..., J - 1, 0, ..., so that
  // the report does not depend on which worker is faster.
  const uint32_t jobs = o.replay ? 1 : std::max<uint32_t>(o.jobs, 1);
  std::vector<std::unique_ptr<Worker>> workers;
  for (uint32_t w = 0; w < jobs; ++w) {
    auto worker = std::make_unique<Worker>();
    ExploreOptions share = o;
    if (jobs > 1) {
      share.shard.index = o.shard.index + o.shard.count * w;
      share.shard.count = o.shard.count * jobs;
      worker->dir = work.path + "/job" + std::to_string(w);
      fs::create_directories(worker->dir);
    } else {
      worker->dir = work.path;
    }
    worker->strategy = make_strategy(share);
    worker->raw[0] = worker->dir + "/run.raw";
    worker->raw[1] = worker->dir + "/run2.raw";
    if (o.fork_server && !o.replay) {
      std::string why;
      if (!worker->server.start(o.program, worker->dir, why) && w == 0)
        result.notes.push_back("no fork server: " + why + "; each execution is a fresh process");
    }
    worker->children.watch(worker->dir);
    workers.push_back(std::move(worker));
  }
  std::unique_ptr<Strategy>& strategy = workers[0]->strategy;
  std::map<std::string, size_t> index;  // key -> findings position
  UnnamedTraceCache naming_cache;
  std::unordered_map<std::string, std::string> source_of;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Worker threads (jobs > 1): each produces its executions into its slot, alternating between
  // two raw files, and waits while the previous one is still being analysed.
  std::mutex mutex;
  std::condition_variable changed;
  bool stopping = false;
  std::vector<std::thread> threads;
  auto produce_into = [&](Worker& w) {
    for (;;) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stopping || !w.slot; });
        if (stopping) return;
      }
      auto p = std::make_unique<Produced>();
      produce(o, w, *p);
      const bool last = p->error || !p->more;
      {
        std::lock_guard lock(mutex);
        w.slot = std::move(p);
      }
      changed.notify_all();
      if (last) return;
    }
  };
  auto stop_workers = [&] {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    for (std::thread& t : threads) t.join();
    threads.clear();
  };
  if (jobs > 1)
    for (auto& w : workers) threads.emplace_back(produce_into, std::ref(*w));
  struct JoinWorkers {
    std::function<void()> stop;
    ~JoinWorkers() { stop(); }
  } join_workers{stop_workers};
  bool more = true;
  uint32_t turn = 0;
  std::unique_ptr<Produced> current;
  auto release = [&](Worker& w) {  // the execution of w's slot is analysed
    std::lock_guard lock(mutex);
    w.slot.reset();
    changed.notify_all();
  };
  Worker* from = nullptr;
  while (more) {
    if (from && jobs > 1) release(*from);
    from = nullptr;
    if (budget && result.executions + result.scout_executions >= budget) break;
    if (o.seconds > 0 && elapsed() >= o.seconds) break;
    // The next worker in turn with an execution left.
    Produced* got = nullptr;
    for (uint32_t tried = 0; tried < jobs && !got; ++tried, turn = (turn + 1) % jobs) {
      Worker& w = *workers[turn];
      if (w.done) continue;
      if (jobs == 1) {
        current = std::make_unique<Produced>();
        produce(o, w, *current);
        got = current.get();
      } else {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return w.slot != nullptr; });
        got = w.slot.get();
      }
      from = &w;
      if (got->error || !got->more) w.done = true;
      w.more = got->more;
    }
    if (!got) {
      more = false;
      break;
    }
    if (got->error) std::rethrow_exception(got->error);
    more = std::any_of(workers.begin(), workers.end(), [](const auto& w) { return !w->done; });
    ExecutionResult& run = got->run;
    const std::string& raw = got->raw;
    std::optional<recording::RawRecording>& recorded = got->recorded;
    const std::string& raw_error = got->raw_error;
    result.run_seconds += got->run_seconds;
    result.potential_races += got->potential_races;
    if (!got->racy_error.empty() && result.notes.size() < 5)
      result.notes.push_back("execution " + std::to_string(result.executions + 1) +
                             ": its lock sets could not be computed: " + got->racy_error);
    if (!got->owned) {  // another shard's: it reports it
      ++result.scout_executions;
      continue;
    }
    ++from->owned;
    ++result.executions;
    result.choice_points += run.points.size();
    if (!got->is_new && o.record.empty()) continue;
    ++result.analysed;

    std::vector<Hit> hits;
    Failure failure;
    std::string failure_key;
    if (failure_of(run, failure, failure_key))
      hits.push_back({failure_key, Finding::of_failure(failure)});
    Trace trace;
    bool have_trace = false;
    try {
      if (!recorded) throw InputError(raw_error);
      trace = unnamed_trace(*recorded, got->name, &naming_cache);
      have_trace = true;
    } catch (const InputError& e) {
      if (result.notes.size() < 5)
        result.notes.push_back("execution " + std::to_string(result.executions) +
                               ": its trace could not be analysed: " + e.what());
    }
    // Names: the execution's trace symbolised (once, when a location is not known yet or a
    // finding is new); `source_of` maps the unsymbolised location names (module+offset) to
    // source locations, so that a race is one finding per pair of source locations.
    std::shared_ptr<Trace> names;
    bool names_tried = false;
    auto symbolise = [&] {
      if (names_tried) return;
      names_tried = true;
      names = std::make_shared<Trace>();
      try {
        recording::FinishOptions fo;
        fo.output = o.record.empty() ? named : o.record;
        recording::finish_recording(raw, fo);
        *names = load_checked_trace(fo.output);
      } catch (const InputError&) {
        names.reset();
        return;
      }
      if (have_trace && names->events.size() == trace.events.size())
        for (size_t i = 0; i < trace.events.size(); ++i)
          source_of.emplace(trace.location_name(trace.events[i].location),
                            names->location_name(names->events[i].location));
    };
    if (have_trace) {
      const RaceSink sink = run_engine(o.engine, trace);
      for (const LocationPairSummary& pair : sink.location_pairs()) {
        if (finding_kind_of(pair.example) != FindingKind::DataRace) continue;
        std::string a = pair.example.first.known()
                            ? std::string(trace.location_name(pair.example.first.location))
                            : "?";
        std::string b(trace.location_name(pair.example.second.location));
        if ((a != "?" && !source_of.count(a)) || !source_of.count(b)) symbolise();
        if (auto it = source_of.find(a); it != source_of.end()) a = it->second;
        if (auto it = source_of.find(b); it != source_of.end()) b = it->second;
        if (b < a) std::swap(a, b);
        hits.push_back({"race|" + a + "|" + b, Finding::of_race(pair.example)});
      }
    }
    std::set<std::string> counted;  // an execution counts once per finding
    for (Hit& hit : hits) {
      if (!counted.insert(hit.key).second) continue;
      if (auto it = index.find(hit.key); it != index.end()) {
        ++result.findings[it->second].executions;
        continue;
      }
      symbolise();
      ExploreFinding f;
      f.key = hit.key;
      f.finding = hit.finding;
      f.executions = 1;
      f.first_execution = result.executions;
      if (f.finding.kind == FindingKind::DataRace && !(names && map_race(*names, f.finding.race))) {
        // No names: report the race in the unsymbolised trace's terms.
        names = std::make_shared<Trace>(std::move(trace));
        trace = Trace{};
      }
      f.trace = names ? names : std::make_shared<Trace>();
      if (!o.replay) {
        f.replay_file = (fs::path(o.replay_dir) /
                         ("finding-" + std::to_string(result.findings.size() + 1) + ".json"))
                            .string();
        write_replay_file(f.replay_file, o, describe(f.finding, f.trace.get()), run.points);
        if (f.finding.kind == FindingKind::Failure)
          f.finding.failure.schedule.replay_file = f.replay_file;
      }
      index.emplace(f.key, result.findings.size());
      result.findings.push_back(std::move(f));
    }
    if (!o.record.empty() && !names_tried) {
      recording::FinishOptions fo;
      fo.output = o.record;
      recording::finish_recording(raw, fo);
    }
  }
  if (from && jobs > 1) release(*from);
  stop_workers();
  for (auto& w : workers)
    for (const std::string& raw : w->raw) std::remove(raw.c_str());
  result.fork_server = std::all_of(workers.begin(), workers.end(),
                                   [](const auto& w) { return w->server.running(); });
  result.seconds = elapsed();
  result.complete = !more;
  if (jobs == 1 || o.strategy == "random") {
    result.coverage = strategy->coverage(result.executions, result.complete);
  } else {  // each job's share of the search
    result.coverage = std::to_string(jobs) + " jobs:";
    for (uint32_t w = 0; w < jobs; ++w)
      result.coverage += (w ? "; job " : " job ") + std::to_string(w + 1) + ": " +
                         workers[w]->strategy->coverage(workers[w]->owned, !workers[w]->more);
  }
  return result;
}

}  // namespace racepred::explore
