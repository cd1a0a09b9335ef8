#include "racepred/driver/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "racepred/driver/registry.hpp"
#include "racepred/engines/witness_source.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"
#include "racepred/trace/trace_index.hpp"
#include "racepred/witness/checker.hpp"

namespace racepred {

std::vector<const EngineInfo*> resolve_engines(const std::vector<std::string>& names) {
  std::vector<const EngineInfo*> out;
  auto add = [&](const EngineInfo* info) {
    if (std::find(out.begin(), out.end(), info) == out.end()) out.push_back(info);
  };
  for (const std::string& name : names) {
    if (name == "all") {
      for (const EngineInfo& info : engine_registry())
        if (info.mode == EngineMode::Online) add(&info);
      continue;
    }
    const EngineInfo* info = find_engine(name);
    if (!info) {
      std::string valid;
      for (const EngineInfo& e : engine_registry()) valid += e.name + ", ";
      valid += "all";
      throw UsageError("unknown engine '" + name + "'; valid engines: " + valid +
                       " (see 'racepred engines')");
    }
    add(info);
  }
  if (out.empty()) throw UsageError("no engine selected (-e)");
  return out;
}

bool PipelineResult::any_failed() const {
  for (const EngineRun& run : runs)
    if (!run.error.empty()) return true;
  return false;
}

bool PipelineResult::any_finding() const {
  for (const EngineRun& run : runs)
    if (run.sink.any_failing()) return true;  // read-read violations alone: no
  return false;
}

TraceInfo PipelineResult::trace_info() const {
  return TraceInfo::of(path, symbols, read, events);
}

Report PipelineResult::report() const {
  Report r;
  r.trace = trace_info();
  r.symbols = &symbols;
  for (const EngineRun& run : runs)
    r.results.push_back({run.info->name, &run.sink, run.seconds, run.error,
                         run.info->guarantee.soundness == Soundness::FirstRace,
                         run.info->guarantee.confidence,
                         witnesses ? &run.witness_summaries : nullptr});
  return r;
}

namespace {

using Clock = std::chrono::steady_clock;

struct Batch {
  std::vector<EventId> ids;
  std::vector<Event> events;
  void clear() {
    ids.clear();
    events.clear();
  }
};

// Thrown in the reader thread when the main thread gave up; unwinds the reader.
struct Aborted {};

// Bounded hand-over between the reader thread and the main thread: a fixed pool of batches
// circulates between a free list and a queue of full batches.
class BatchQueue {
 public:
  BatchQueue(size_t batches, size_t batch_size) : pool_(batches) {
    for (Batch& b : pool_) {
      b.ids.reserve(batch_size);
      b.events.reserve(batch_size);
      free_.push_back(&b);
    }
  }

  // Reader side.
  Batch* take_free() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !free_.empty() || aborted_; });
    if (aborted_) throw Aborted{};
    Batch* b = free_.front();
    free_.pop_front();
    return b;
  }
  void push_full(Batch* b) {
    std::lock_guard lock(mutex_);
    full_.push_back(b);
    changed_.notify_all();
  }
  void close(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    closed_ = true;
    error_ = error;
    changed_.notify_all();
  }

  // Main side: the next full batch, or nullptr at the end (or after a reader error, or once
  // aborted).
  Batch* take_full() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !full_.empty() || closed_ || aborted_; });
    if (error_ || aborted_ || full_.empty()) return nullptr;
    Batch* b = full_.front();
    full_.pop_front();
    return b;
  }
  void give_back(Batch* b) {
    b->clear();
    std::lock_guard lock(mutex_);
    free_.push_back(b);
    changed_.notify_all();
  }
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    changed_.notify_all();
  }
  std::exception_ptr error() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  std::vector<Batch> pool_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch*> free_;
  std::deque<Batch*> full_;
  bool closed_ = false;
  bool aborted_ = false;
  std::exception_ptr error_;
};

// Collects validated events into batches and hands each full batch on.
class Batcher : public EventConsumer {
 public:
  // `handoff` consumes a full batch and returns the (empty) batch to fill next.
  Batcher(Batch* first, size_t batch_size, std::function<Batch*(Batch*)> handoff)
      : batch_(first), batch_size_(batch_size), handoff_(std::move(handoff)) {}

  void on_event(EventId id, const Event& event, uint32_t /*line*/) override {
    batch_->ids.push_back(id);
    batch_->events.push_back(event);
    if (batch_->events.size() >= batch_size_) batch_ = handoff_(batch_);
  }
  void on_lines(std::span<const EventId> ids, std::span<const Event> events,
                std::span<const uint32_t> /*lines*/) override {
    on_events(ids, events);
  }
  void on_events(std::span<const EventId> ids, std::span<const Event> events) override {
    for (size_t i = 0; i < events.size();) {
      const size_t n = std::min(events.size() - i, batch_size_ - batch_->events.size());
      batch_->ids.insert(batch_->ids.end(), ids.begin() + i, ids.begin() + i + n);
      batch_->events.insert(batch_->events.end(), events.begin() + i, events.begin() + i + n);
      i += n;
      if (batch_->events.size() >= batch_size_) batch_ = handoff_(batch_);
    }
  }
  void on_end() override {
    if (!batch_->events.empty()) batch_ = handoff_(batch_);
  }

 private:
  Batch* batch_;
  size_t batch_size_;
  std::function<Batch*(Batch*)> handoff_;
};

struct LiveEngine {
  std::unique_ptr<Engine> engine;
  EngineRun* run;
};

// Runs every engine over one batch, timing each.
// One engine over one batch, timed (on whichever thread runs it).
void run_engine_on(LiveEngine& live, const Batch& batch) {
  const auto start = Clock::now();
  live.engine->feed(batch.ids, batch.events);
  live.run->seconds += std::chrono::duration<double>(Clock::now() - start).count();
}

void run_batch(std::vector<LiveEngine>& engines, const Batch& batch) {
  for (LiveEngine& live : engines) run_engine_on(live, batch);
}

// Runs several engines over the batches of `queue` on `threads` threads (the calling thread and
// threads - 1 helpers). Each engine sees every batch in order and runs on one thread at a time,
// but not on a fixed one: a thread that is free takes the engine that is furthest behind among
// those not running and with a batch ready, so a slow engine keeps one core busy while the
// others share the rest (a fixed assignment of engines to threads waited for the slowest group
// at every batch). A batch goes back to the reader once every engine has passed it, so the
// engines may drift apart by the queue's batches. Engines share nothing but the symbol tables,
// which they do not touch while events arrive; the mutex hands an engine's state from one
// thread to the next. An exception of any engine stops all threads and is rethrown by run().
class EngineScheduler {
 public:
  EngineScheduler(std::vector<LiveEngine>& engines, BatchQueue& queue, size_t threads)
      : engines_(engines), queue_(queue), next_(engines.size(), 0), busy_(engines.size(), 0) {
    helpers_.reserve(threads - 1);
    for (size_t t = 1; t < threads; ++t) helpers_.emplace_back([this] { work(); });
  }
  ~EngineScheduler() {
    {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::make_exception_ptr(Aborted{});  // only if run() never ran
      changed_.notify_all();
    }
    if (!helpers_.empty()) queue_.abort();
    for (std::thread& t : helpers_) t.join();
  }

  // Runs until every engine has seen every batch; returns the number of events.
  uint64_t run() {
    work();
    bool failed;
    {
      std::lock_guard lock(mutex_);
      failed = error_ != nullptr;
    }
    if (failed) queue_.abort();  // a helper may wait for a batch the reader cannot fill
    for (std::thread& t : helpers_) t.join();
    helpers_.clear();
    if (error_) std::rethrow_exception(error_);
    return events_;
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (error_) return;
      // The engine furthest behind that is free and has a batch to run.
      size_t pick = engines_.size();
      for (size_t i = 0; i < engines_.size(); ++i)
        if (!busy_[i] && next_[i] < end_ && (pick == engines_.size() || next_[i] < next_[pick]))
          pick = i;
      if (pick < engines_.size()) {
        busy_[pick] = 1;
        const Batch& batch = *window_[next_[pick] - begin_];
        lock.unlock();
        try {
          run_engine_on(engines_[pick], batch);
        } catch (...) {
          lock.lock();
          if (!error_) error_ = std::current_exception();
          changed_.notify_all();
          return;
        }
        lock.lock();
        busy_[pick] = 0;
        ++next_[pick];
        release_passed();
        changed_.notify_all();
        continue;
      }
      const bool all_done =
          std::all_of(next_.begin(), next_.end(), [&](uint64_t n) { return n == end_; });
      if (input_done_ && all_done) {
        changed_.notify_all();
        return;
      }
      if (!input_done_ && !fetching_) {  // every free engine is at the end: fetch a batch
        fetching_ = true;
        lock.unlock();
        Batch* batch = queue_.take_full();
        lock.lock();
        fetching_ = false;
        if (batch) {
          events_ += batch->events.size();
          window_.push_back(batch);
          ++end_;
        } else {
          input_done_ = true;
        }
        changed_.notify_all();
        continue;
      }
      changed_.wait(lock);
    }
  }

  // Gives the batches every engine has passed back to the reader.
  void release_passed() {
    const uint64_t passed = *std::min_element(next_.begin(), next_.end());
    while (begin_ < passed) {
      queue_.give_back(window_.front());
      window_.pop_front();
      ++begin_;
    }
  }

  std::vector<LiveEngine>& engines_;
  BatchQueue& queue_;
  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch*> window_;  // batches begin_ .. end_ - 1, not yet passed by every engine
  uint64_t begin_ = 0, end_ = 0;
  std::vector<uint64_t> next_;  // per engine: the next batch it runs
  std::vector<char> busy_;      // per engine: running on some thread now
  bool fetching_ = false, input_done_ = false;
  uint64_t events_ = 0;
  std::exception_ptr error_;
};

// Keeps the validated events for the run's TraceIndex, when an offline engine is selected. It
// runs beside the streaming engines, on the same batches; ids are kept only once they stop
// being 1, 2, 3, …
class IndexCollector final : public Engine {
 public:
  void on_events(std::span<const EventId> ids, std::span<const Event> events) override {
    if (!gaps_ && !ids.empty() && ids.back() != events_.size() + ids.size()) {
      gaps_ = true;  // also when the first batch has the gap (no earlier ids to write out)
      ids_.reserve(events_.capacity());
      for (size_t k = 0; k < events_.size(); ++k) ids_.push_back(k + 1);
    }
    events_.insert(events_.end(), events.begin(), events.end());
    if (gaps_) ids_.insert(ids_.end(), ids.begin(), ids.end());
  }
  // The index of the events up to id `last` (a prefix of a well-formed trace is well formed).
  static constexpr EventId kAll = ~EventId{0};
  TraceIndex index(const Symbols& symbols, EventId last = kAll) {
    if (last != kAll) {
      const size_t keep =
          gaps_
              ? static_cast<size_t>(std::upper_bound(ids_.begin(), ids_.end(), last) - ids_.begin())
              : std::min<size_t>(events_.size(), last);
      events_.resize(keep);
      if (gaps_) ids_.resize(keep);
    }
    return TraceIndex(TraceIndex::Validated{}, std::move(events_), std::move(ids_), &symbols);
  }

 private:
  std::vector<Event> events_;
  std::vector<EventId> ids_;  // empty while ids_[k] would be k + 1
  bool gaps_ = false;         // some id was not its position + 1: ids_ holds every id
};

// Builds the witnesses of each engine's races and checks them with the independent checker.
class WitnessBuilder {
 public:
  WitnessBuilder(const TraceIndex& index, const Symbols& symbols) : index_(index) {
    // The checker judges a Trace of its own, built from the same validated events.
    trace_.symbols = symbols;
    trace_.events = index.events();
    trace_.ids.reserve(index.size());
    for (uint32_t i = 0; i < index.size(); ++i) trace_.ids.push_back(index.id(i));
    checker_.emplace(trace_);
  }

  // The witnesses of `run`'s kept races that the source's guarantee covers; `number` counts the
  // witnesses of the whole run (their places in the witness file).
  void add(EngineRun& run, WitnessSource& source, size_t& number) {
    const RaceSink& sink = run.sink;
    std::vector<Race> races;
    if (source.witness_scope() == WitnessScope::Every) {
      races = sink.races();
    } else if (sink.has_first_detected()) {
      for (const Race& race : sink.races())
        if (race.second.event == sink.first_detected().second.event) races.push_back(race);
    }
    const std::vector<std::optional<RaceWitness>> built = source.witnesses(index_, races);
    const bool adjacent = source.witness_notion() == WitnessNotion::Adjacent;
    for (size_t k = 0; k < races.size() && k < built.size(); ++k) {
      if (!built[k]) continue;
      const Race& race = races[k];
      witness::Witness w;
      w.engine = run.info->name;
      w.notion = adjacent ? witness::Notion::Adjacent : witness::Notion::Enabled;
      w.first = race.first.event;
      w.second = race.second.event;
      const RaceWitness& built_one = *built[k];
      const std::vector<uint32_t>& prefix = built_one.prefix;
      if (adjacent && prefix.size() >= 2) {  // in the order T' runs them
        w.first = index_.id(prefix[prefix.size() - 2]);
        w.second = index_.id(prefix.back());
      }
      w.cut.reserve(built_one.cut.size());
      for (const auto& [t, count] : built_one.cut)
        w.cut.push_back(index_.id(index_.thread_events(t)[count - 1]));
      w.prefix.reserve(prefix.size());
      for (const uint32_t i : prefix) w.prefix.push_back(index_.id(i));
      const witness::Verdict verdict = checker_->check(w);
      if (!verdict.valid()) {
        run.witness_errors.push_back("the witness of engine " + run.info->name +
                                     " for the race of events " + std::to_string(race.first.event) +
                                     " and " + std::to_string(race.second.event) + " breaks " +
                                     std::string(witness::rule_name(verdict.rule)) + " at event " +
                                     std::to_string(verdict.event) + ": " + verdict.message);
        continue;
      }
      run.witness_summaries[{race.first.event, race.second.event}] =
          summary(built_one, w, race, adjacent, ++number);
      run.witnesses.push_back(std::move(w));
    }
  }

 private:
  // What the report shows: the last kTail events of each thread in T', in T' order.
  WitnessSummary summary(const RaceWitness& built, const witness::Witness& w, const Race& race,
                         bool adjacent, size_t number) const {
    constexpr uint32_t kTail = 3;
    constexpr size_t kLook = 4096;  // events looked at from the end
    WitnessSummary s;
    s.number = number;
    s.adjacent = adjacent;
    // T' as far as the tail can reach: each cut thread's last kTail events in trace order, then
    // the listed prefix.
    std::vector<uint32_t> end;
    for (const auto& [t, count] : built.cut) {
      const std::vector<uint32_t>& events = index_.thread_events(t);
      for (uint32_t k = count > kTail ? count - kTail : 0; k < count; ++k) end.push_back(events[k]);
      s.events += count;
    }
    std::sort(end.begin(), end.end());
    end.insert(end.end(), built.prefix.begin(), built.prefix.end());
    s.events += built.prefix.size();
    std::map<ThreadId, uint32_t> shown;
    std::vector<uint32_t> tail;
    for (size_t k = end.size(); k-- > 0 && end.size() - k <= kLook;) {
      uint32_t& n = shown[index_.event(end[k]).thread];
      if (n < kTail) {
        ++n;
        tail.push_back(end[k]);
      }
    }
    std::reverse(tail.begin(), tail.end());
    for (const uint32_t i : tail) s.tail.push_back({index_.id(i), index_.event(i)});
    s.hidden = s.events - tail.size();
    const auto step = [&](const Access& a) {
      const uint32_t i = ClosureWitnesses::position(index_, a.event);
      return WitnessSummary::Step{a.event, i == kNoIndex ? Event{} : index_.event(i)};
    };
    s.first = step(race.first);
    s.second = step(race.second);
    s.cut = w.cut;
    const std::vector<uint32_t>& prefix = built.prefix;
    for (size_t k = 0; k < prefix.size();) {
      size_t j = k + 1;
      while (j < prefix.size() && index_.id(prefix[j]) == index_.id(prefix[j - 1]) + 1) ++j;
      s.runs.emplace_back(index_.id(prefix[k]), index_.id(prefix[j - 1]));
      k = j;
    }
    return s;
  }

  const TraceIndex& index_;
  Trace trace_;
  std::optional<witness::Checker> checker_;
};

// `read` streams the trace into the consumer it is given and returns the reader's summary.
using ReadFunction = std::function<ReadSummary(Symbols&, EventConsumer&)>;

// `rereadable`: `read` can run again (a regular file or text in memory, not a stream).
PipelineResult run(const std::string& path, const ReadFunction& read, bool rereadable,
                   const std::vector<const EngineInfo*>& infos, const PipelineOptions& options) {
  PipelineResult result;
  result.path = path;
  result.runs.reserve(infos.size());  // engines keep references to the sinks: no reallocation
  // Streaming engines get the batches; offline engines get the index once the trace is read.
  std::vector<LiveEngine> engines, offline;
  for (const EngineInfo* info : infos) {
    result.runs.push_back(EngineRun{info, RaceSink(options.max_races, options.max_races), 0, {}});
    EngineRun& run = result.runs.back();
    EngineContext context{result.symbols, run.sink, options.engine};
    context.witnesses = options.witnesses;
    const auto start = Clock::now();
    LiveEngine live{info->make(context), &run};
    run.seconds += std::chrono::duration<double>(Clock::now() - start).count();
    (live.engine->offline() ? offline : engines).push_back(std::move(live));
  }
  // The index's events are collected like a streaming engine's batches (timed apart).
  EngineRun collector_run{nullptr, RaceSink(0), 0, {}};
  IndexCollector* collector = nullptr;
  const bool witness_index =
      options.witnesses && std::any_of(engines.begin(), engines.end(), [](const LiveEngine& l) {
        return l.engine->witness_source() != nullptr;
      });
  result.witnesses = options.witnesses;
  // Witnesses alone need the events up to their races' last, which is known only at the end:
  // a trace that can be read again is read again that far, instead of keeping all its events.
  const bool reread = witness_index && offline.empty() && rereadable;
  if (!offline.empty() || (witness_index && !reread)) {
    auto owned = std::make_unique<IndexCollector>();
    collector = owned.get();
    engines.push_back({std::move(owned), &collector_run});
  }
  const size_t batch_size = std::max<size_t>(1, options.batch_size);
  const ValidationOptions validation{options.validation, path == "-" ? "<stdin>" : path};

  if (!options.threaded) {
    Batch batch;
    Batcher batcher(&batch, batch_size, [&](Batch* full) {
      result.events += full->events.size();
      if (options.on_progress) options.on_progress(result.events);
      run_batch(engines, *full);
      full->clear();
      return full;
    });
    Validator validator(result.symbols, validation, batcher);
    result.read = read(result.symbols, validator);
    validator.on_end();
    result.validation = validator.report();
  } else {
    // Several engines: as many engine threads as cores (the reader runs beside them).
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t threads =
        std::min(engines.size(), options.engine_threads ? options.engine_threads : cores);
    // A few batches in flight: the reader may run ahead of the engines by at most that much
    // (and, with several engine threads, the fastest engine ahead of the slowest).
    BatchQueue queue(threads > 1 ? 4 + 2 * threads : 4, batch_size);
    ValidationReport validation_report;
    ReadSummary summary;
    std::optional<EngineScheduler> scheduler;
    if (threads > 1) scheduler.emplace(engines, queue, threads);
    std::thread reader([&] {
      std::exception_ptr error;
      try {
        uint64_t handed = 0;
        Batcher batcher(queue.take_free(), batch_size, [&](Batch* full) {
          handed += full->events.size();
          if (options.on_progress) options.on_progress(handed);
          queue.push_full(full);
          return queue.take_free();
        });
        Validator validator(result.symbols, validation, batcher);
        summary = read(result.symbols, validator);
        validator.on_end();
        validation_report = validator.report();
      } catch (const Aborted&) {
      } catch (...) {
        error = std::current_exception();
      }
      queue.close(error);
    });
    try {
      if (scheduler) {
        result.events = scheduler->run();
      } else {
        while (Batch* batch = queue.take_full()) {
          result.events += batch->events.size();
          run_batch(engines, *batch);
          queue.give_back(batch);
        }
      }
    } catch (...) {
      queue.abort();
      reader.join();
      throw;
    }
    reader.join();
    scheduler.reset();
    if (std::exception_ptr error = queue.error()) std::rethrow_exception(error);
    result.read = std::move(summary);
    result.validation = std::move(validation_report);
  }

  std::optional<TraceIndex> index;
  const auto make_index = [&](EventId last) {
    const auto start = Clock::now();
    index.emplace(collector->index(result.symbols, last));
    engines.pop_back();  // the collector
    result.index_seconds =
        collector_run.seconds + std::chrono::duration<double>(Clock::now() - start).count();
  };
  // Offline engines need the whole trace; witnesses only the events up to their races' last.
  if (collector && !offline.empty()) make_index(IndexCollector::kAll);
  // In the order the engines were named: each offline engine runs on the shared index.
  for (EngineRun& run : result.runs) {
    auto is_run = [&](const LiveEngine& l) { return l.run == &run; };
    auto it = std::find_if(engines.begin(), engines.end(), is_run);
    if (it == engines.end()) it = std::find_if(offline.begin(), offline.end(), is_run);
    Engine& engine = *it->engine;
    const auto start = Clock::now();
    try {
      if (OfflineEngine* o = engine.offline()) o->run(*index);
      engine.finish();
    } catch (const BudgetError& e) {  // this engine's result is lost, not the others'
      run.error = e.what();
      run.sink = RaceSink(options.max_races, options.max_races);
    }
    run.seconds += std::chrono::duration<double>(Clock::now() - start).count();
    run.sink.finalize();
  }
  if ((collector || reread) && !index) {
    EventId last = 0;
    for (const EngineRun& run : result.runs)
      for (const Race& race : run.sink.races())
        last = std::max({last, race.second.event, race.first.known() ? race.first.event : 0});
    if (reread) {
      // The same reader and validator on the same input give the same events, ids and, in a
      // fresh table, the same symbol numbers for the prefix (numbered as they first appear).
      const auto start = Clock::now();
      IndexCollector again;
      Symbols symbols;
      struct Stop {};
      Batch batch;
      Batcher batcher(&batch, batch_size, [&](Batch* full) {
        again.on_events(full->ids, full->events);
        if (!full->ids.empty() && full->ids.back() >= last) throw Stop{};
        full->clear();
        return full;
      });
      Validator validator(symbols, validation, batcher);
      try {
        if (last > 0) {
          read(symbols, validator);
          validator.on_end();
        }
      } catch (const Stop&) {
      }
      index.emplace(again.index(result.symbols, last));
      result.index_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    } else {
      make_index(last);
    }
  }
  if (options.witnesses && index) {
    std::optional<WitnessBuilder> builder;
    size_t number = 0;
    for (EngineRun& run : result.runs) {
      auto is_run = [&](const LiveEngine& l) { return l.run == &run; };
      auto it = std::find_if(engines.begin(), engines.end(), is_run);
      if (it == engines.end()) it = std::find_if(offline.begin(), offline.end(), is_run);
      WitnessSource* source = it->engine->witness_source();
      if (!source || !run.error.empty()) continue;
      const auto start = Clock::now();
      if (!builder) builder.emplace(*index, result.symbols);
      builder->add(run, *source, number);
      run.witness_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    }
  }
  engines.clear();  // engines refer to result.symbols and the sinks: destroy them first
  offline.clear();
  return result;
}

std::string first_examples(const std::vector<ValidationIssue>& issues, size_t limit) {
  std::string s;
  for (size_t i = 0; i < issues.size() && i < limit; ++i)
    s += "\n  " + printable(issues[i].message, 4096);
  return s;
}

}  // namespace

PipelineResult run_pipeline(const std::string& path, const std::vector<const EngineInfo*>& engines,
                            const PipelineOptions& options) {
  return run(
      path,
      [&](Symbols& symbols, EventConsumer& consumer) {
        return read_events(path, options.read, symbols, consumer);
      },
      [&] {
        std::error_code ec;
        return path != "-" && std::filesystem::is_regular_file(path, ec);
      }(),
      engines, options);
}

PipelineResult run_pipeline_on_text(std::string_view text, std::string_view name,
                                    const std::vector<const EngineInfo*>& engines,
                                    const PipelineOptions& options) {
  return run(
      std::string(name),
      [&](Symbols& symbols, EventConsumer& consumer) {
        return read_events_from_string(text, name, options.read, symbols, consumer);
      },
      true, engines, options);
}

std::vector<std::string> pipeline_diagnostics(const PipelineResult& result) {
  std::vector<std::string> out;
  const std::string path = printable(result.path, 4096);
  const ReadSummary& read = result.read;
  const ValidationReport& v = result.validation;
  if (read.event_lines == 0)  // "0 races" alone would read as a verdict about a program
    out.push_back("note: " + path +
                  ": the input holds no events (it is empty, or only comments and blank lines): "
                  "there is nothing to analyze");
  if (read.malformed > 0) {
    // Binary formats have no lines: records, blocks or a cut.
    const bool binary = read.format == "binary" || read.format == "rapidbin";
    const char* what = binary ? " malformed part" : " malformed line";
    std::string s = "warning: " + path + ": skipped " + std::to_string(read.malformed) + what +
                    (read.malformed == 1 ? "" : "s") + " (--lenient); first:";
    for (const std::string& m : read.malformed_examples) s += "\n  " + printable(m, 4096);
    out.push_back(s);
  }
  if (v.violations > 0) {
    std::string s = "warning: " + path + ": dropped " + std::to_string(v.violations) + " event" +
                    (v.violations == 1 ? "" : "s") + " breaking well-formedness (--lenient)";
    if (v.dropped_with_acquire > 0)
      s += " and " + std::to_string(v.dropped_with_acquire) + " event" +
           (v.dropped_with_acquire == 1 ? "" : "s") +
           " that went with a dropped acquire (its release, nested acquires)";
    out.push_back(s + "; first:" + first_examples(v.errors, 5));
  }
  if (read.untranslated_syncs > 0) {
    out.push_back("warning: " + path + ": " + std::to_string(read.untranslated_syncs) +
                  " signal/wait event" + (read.untranslated_syncs == 1 ? "" : "s") +
                  " could not be translated to fork/join and are ignored: the synchronisation "
                  "they stand for is lost, so engines may report races that the program orders "
                  "(docs/FORMATS.md)");
  }
  if (v.threads_without_events > 0) {
    std::string s = "warning: " + path + ": " + std::to_string(v.threads_without_events) +
                    " thread" + (v.threads_without_events == 1 ? "" : "s") +
                    " forked or joined without an event of their own:";
    for (const std::string& t : v.threads_without_events_examples) s += " " + t;
    if (v.threads_without_events > v.threads_without_events_examples.size()) s += " ...";
    out.push_back(s);
  }
  if (v.reentrant_acquires > 0) {
    out.push_back("note: " + path + ": normalised " + std::to_string(v.reentrant_acquires) +
                  " re-entrant acquire" + (v.reentrant_acquires == 1 ? "" : "s") +
                  " (inner acquire/release pairs dropped)" +
                  (v.notes.empty() ? "" : "; first:" + first_examples(v.notes, 3)));
  }
  if (!read.skipped_ops.empty()) {
    std::string s = "note: " + path + ": skipped " + std::to_string(read.skipped_total()) +
                    " event" + (read.skipped_total() == 1 ? "" : "s") +
                    " with operations no engine uses (";
    bool first = true;
    for (const auto& [op, count] : read.skipped_ops) {
      s += (first ? "" : ", ") + op + " " + std::to_string(count);
      first = false;
    }
    out.push_back(s + ")");
  }
  return out;
}

}  // namespace racepred
