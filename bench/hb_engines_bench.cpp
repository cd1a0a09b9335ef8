// Analysis speed of the HB race-location engines (djit, hb-epochs, hb-adaptive, fasttrack) over
// a 5M-event, 8-thread trace already in memory (reading and validation excluded).
//
//   build/bench/hb_engines_bench [--benchmark_filter=fasttrack] [--benchmark_repetitions=5]
//
// Two traces, made here (a local trace maker until trace/generator.hpp is on main):
//   structured  T0 forks T1..T7 and joins them at the end; 40% thread-local accesses, 45%
//               critical sections (1-4 accesses to variables guarded by the section's lock),
//               15% unguarded accesses to 64 shared variables (these race)
//   uniform     every event by a random thread: 90% accesses to 10,000 variables (2/3 reads),
//               10% acquire of a free lock or release of a held one (16 locks): mostly races
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {
namespace {

constexpr int kThreads = 8;
// prefix + n (appending avoids a false -Wrestrict of g++ 12 on operator+).
std::string name(const char* prefix, uint32_t n) {
  std::string s(prefix);
  s.append(std::to_string(n));
  return s;
}
constexpr size_t kEvents = 5'000'000;

class TraceMaker {
 public:
  explicit TraceMaker(uint64_t seed) : rng_(seed) {
    for (int t = 0; t < kThreads; ++t) trace_.symbols.threads.intern(name("T", t));
    for (int l = 0; l < 1000; ++l) trace_.symbols.locations.intern(name("L", l));
  }
  uint32_t pick(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  void emit(Op op, uint32_t t, uint32_t target) {
    trace_.events.push_back(Event{op, t, target, pick(1000)});
    trace_.ids.push_back(trace_.events.size());
  }
  uint32_t variable(const std::string& name) { return trace_.symbols.variables.intern(name); }
  uint32_t lock(const std::string& name) { return trace_.symbols.locks.intern(name); }
  Trace take() { return std::move(trace_); }
  size_t size() const { return trace_.events.size(); }

 private:
  std::mt19937_64 rng_;
  Trace trace_;
};

Trace structured_trace() {
  TraceMaker m(1);
  constexpr uint32_t kLocal = 100, kLocks = 16, kGuarded = 64, kShared = 64;
  std::vector<uint32_t> local, guarded, shared, locks;
  for (uint32_t i = 0; i < kThreads * kLocal; ++i) local.push_back(m.variable(name("t", i)));
  for (uint32_t i = 0; i < kLocks * kGuarded; ++i) guarded.push_back(m.variable(name("g", i)));
  for (uint32_t i = 0; i < kShared; ++i) shared.push_back(m.variable(name("s", i)));
  for (uint32_t i = 0; i < kLocks; ++i) locks.push_back(m.lock(name("l", i)));
  for (uint32_t t = 1; t < kThreads; ++t) m.emit(Op::Fork, 0, t);
  auto access = [&m](uint32_t t, uint32_t x) { m.emit(m.pick(3) ? Op::Read : Op::Write, t, x); };
  while (m.size() < kEvents - kThreads) {
    const uint32_t t = m.pick(kThreads);
    const uint32_t action = m.pick(100);
    if (action < 40) {
      access(t, local[t * kLocal + m.pick(kLocal)]);
    } else if (action < 85) {
      const uint32_t l = m.pick(kLocks);
      m.emit(Op::Acquire, t, locks[l]);
      for (uint32_t k = 1 + m.pick(4); k > 0; --k)
        access(t, guarded[l * kGuarded + m.pick(kGuarded)]);
      m.emit(Op::Release, t, locks[l]);
    } else {
      access(t, shared[m.pick(kShared)]);
    }
  }
  for (uint32_t t = 1; t < kThreads; ++t) m.emit(Op::Join, 0, t);
  return m.take();
}

Trace uniform_trace() {
  TraceMaker m(2);
  constexpr uint32_t kVariables = 10'000, kLocks = 16;
  for (uint32_t i = 0; i < kVariables; ++i) m.variable(name("v", i));
  for (uint32_t i = 0; i < kLocks; ++i) m.lock(name("l", i));
  std::vector<int> holder(kLocks, -1);
  std::vector<std::vector<uint32_t>> held(kThreads);
  while (m.size() < kEvents) {
    const uint32_t t = m.pick(kThreads);
    const uint32_t action = m.pick(100);
    if (action < 90) {
      m.emit(m.pick(3) ? Op::Read : Op::Write, t, m.pick(kVariables));
    } else if (action < 95 || held[t].empty()) {
      const uint32_t l = m.pick(kLocks);
      if (holder[l] != -1) continue;
      holder[l] = static_cast<int>(t);
      held[t].push_back(l);
      m.emit(Op::Acquire, t, l);
    } else {
      const uint32_t l = held[t].back();
      held[t].pop_back();
      holder[l] = -1;
      m.emit(Op::Release, t, l);
    }
  }
  return m.take();
}

const Trace& trace(int which) {
  static const Trace structured = structured_trace();
  static const Trace uniform = uniform_trace();
  return which == 0 ? structured : uniform;
}

void BM_Engine(benchmark::State& state, const char* engine, int which) {
  const Trace& t = trace(which);
  const EngineInfo* info = find_engine(engine);
  uint64_t races = 0, racy = 0;
  for (auto _ : state) {
    RaceSink sink;
    EngineContext context{t.symbols, sink};
    std::unique_ptr<Engine> e = info->make(context);
    const Event* events = t.events.data();
    const EventId* ids = t.ids.data();
    for (size_t i = 0, n = t.size(); i < n; ++i) e->on_event(ids[i], events[i]);
    e->finish();
    races = sink.race_count();
    racy = sink.racy_events().size();
    benchmark::DoNotOptimize(races);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.size()));
  state.counters["races"] = static_cast<double>(races);
  state.counters["racy_events"] = static_cast<double>(racy);
}

BENCHMARK_CAPTURE(BM_Engine, fasttrack_structured, "fasttrack", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, fasttrack_uniform, "fasttrack", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, djit_structured, "djit", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, djit_uniform, "djit", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_adaptive_structured, "hb-adaptive", 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_adaptive_uniform, "hb-adaptive", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_epochs_structured, "hb-epochs", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, hb_epochs_uniform, "hb-epochs", 1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
