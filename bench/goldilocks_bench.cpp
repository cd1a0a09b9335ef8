// Goldilocks speed (docs/PERFORMANCE.md, "Goldilocks"): the lazy engines on a generated
// 5M-event, 8-thread trace already in memory, against FastTrack when it is registered and
// against a plain FastTrack-style vector-clock HB loop written here as a baseline; the eager
// reference against the lazy form on a smaller trace.
//
//   build/release/goldilocks_bench --benchmark_counters_tabular=true
//
// The trace: T0 forks T1..T7, every thread runs critical sections (nesting depth ≤ 2) on 64
// locks; inside a section it accesses the variables its lock protects, outside it accesses its
// own thread-local variables or read-mostly shared ones (those writes are the races); T0 joins
// the others at the end. About 76% accesses, 24% acquire/release.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "racepred/driver/registry.hpp"
#include "racepred/driver/run.hpp"
#include "racepred/engines/engine.hpp"
#include "racepred/engines/goldilocks/goldilocks.hpp"
#include "racepred/trace/trace.hpp"

namespace racepred {
namespace {

struct BenchShape {
  size_t events = 5'000'000;
  int threads = 8;
  int locks = 64;
  int protected_per_lock = 64;  // variables guarded by each lock
  int local_per_thread = 256;   // thread-local variables
  int shared_read_mostly = 512;
};

std::string named(char prefix, int i) {
  std::string name(1, prefix);
  name += std::to_string(i);  // (not prefix + to_string: g++ 12 warns falsely on that)
  return name;
}

Trace generate(const BenchShape& s, uint64_t seed) {
  Trace trace;
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&]() {  // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (state * 0x2545F4914F6CDD1Dull) >> 32;
  };
  for (int t = 0; t < s.threads; ++t) trace.symbols.threads.intern(named('T', t));
  for (int l = 0; l < s.locks; ++l) trace.symbols.locks.intern(named('m', l));
  const int protected_vars = s.locks * s.protected_per_lock;
  const int local_base = protected_vars;
  const int shared_base = local_base + s.threads * s.local_per_thread;
  for (int x = 0; x < shared_base + s.shared_read_mostly; ++x)
    trace.symbols.variables.intern(named('x', x));
  for (int i = 0; i < 100; ++i) trace.symbols.locations.intern(named('L', i));
  trace.events.reserve(s.events);
  trace.ids.reserve(s.events);
  auto emit = [&](Op op, int t, uint32_t target) {
    trace.events.push_back(
        Event{op, static_cast<ThreadId>(t), target, static_cast<LocationId>(next() % 100)});
    trace.ids.push_back(trace.events.size());
    trace.lines.push_back(static_cast<uint32_t>(trace.events.size()));
  };
  for (int t = 1; t < s.threads; ++t) emit(Op::Fork, 0, static_cast<uint32_t>(t));
  std::vector<std::vector<int>> held(s.threads);
  std::vector<int> owner(s.locks, -1);
  const size_t body = s.events - 2 * static_cast<size_t>(s.threads - 1);
  while (trace.events.size() < body + (s.threads - 1)) {
    const int t = static_cast<int>(next() % s.threads);
    const int roll = static_cast<int>(next() % 100);
    std::vector<int>& h = held[t];
    if (!h.empty() && roll < 12) {
      owner[h.back()] = -1;
      emit(Op::Release, t, static_cast<uint32_t>(h.back()));
      h.pop_back();
      continue;
    }
    if (roll < 24 && h.size() < 2) {
      const int l = static_cast<int>(next() % s.locks);
      if (owner[l] == -1) {
        owner[l] = t;
        h.push_back(l);
        emit(Op::Acquire, t, static_cast<uint32_t>(l));
        continue;
      }
    }
    uint32_t x;
    bool write;
    if (!h.empty()) {
      x = static_cast<uint32_t>(h.back() * s.protected_per_lock + next() % s.protected_per_lock);
      write = next() % 2 == 0;
    } else if (next() % 10 < 6) {
      x = static_cast<uint32_t>(local_base + t * s.local_per_thread + next() % s.local_per_thread);
      write = next() % 2 == 0;
    } else {
      x = static_cast<uint32_t>(shared_base + next() % s.shared_read_mostly);
      write = next() % 100 < 2;
    }
    emit(write ? Op::Write : Op::Read, t, x);
  }
  for (int t = 1; t < s.threads; ++t) {
    while (!held[t].empty()) {
      owner[held[t].back()] = -1;
      emit(Op::Release, t, static_cast<uint32_t>(held[t].back()));
      held[t].pop_back();
    }
    emit(Op::Join, 0, static_cast<uint32_t>(t));
  }
  return trace;
}

const Trace& big_trace() {
  static const Trace trace = generate(BenchShape{}, 1);
  return trace;
}

const Trace& small_trace() {
  static const Trace trace = [] {
    BenchShape s;
    s.events = 200'000;
    s.locks = 16;
    s.protected_per_lock = 16;
    s.local_per_thread = 32;
    s.shared_read_mostly = 64;
    return generate(s, 2);
  }();
  return trace;
}

void run_engine_loop(benchmark::State& state, const Trace& trace,
                     const std::function<std::unique_ptr<Engine>(EngineContext&)>& make) {
  uint64_t races = 0;
  for (auto _ : state) {
    const RaceSink sink = run_engine(make, trace, 1000);  // one batch, 1000 races kept
    races = sink.race_count();
    benchmark::DoNotOptimize(races);
  }
  state.counters["events/s"] = benchmark::Counter(
      static_cast<double>(trace.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["races"] = static_cast<double>(races);
  state.counters["events"] = static_cast<double>(trace.size());
}

void BM_Registered(benchmark::State& state, const char* name) {
  const EngineInfo* info = find_engine(name);
  if (!info) {
    state.SkipWithError("engine not registered (yet)");
    for (auto _ : state) {
    }
    return;
  }
  run_engine_loop(state, big_trace(), info->make);
}

// A plain FastTrack-style HB loop (epochs for the last write and for exclusive reads, a read
// vector clock once reads are shared; clocks tick at release and fork), counting racy accesses.
// The baseline until `fasttrack` is registered.
void BM_VectorClockBaseline(benchmark::State& state) {
  const Trace& trace = big_trace();
  const size_t nt = trace.symbols.threads.size();
  const size_t nl = trace.symbols.locks.size();
  const size_t nv = trace.symbols.variables.size();
  uint64_t races = 0;
  for (auto _ : state) {
    std::vector<uint32_t> c(nt * nt, 0), l(nl * nt, 0);
    for (size_t t = 0; t < nt; ++t) c[t * nt + t] = 1;
    struct Var {
      uint32_t w_thread = 0, w_clock = 0;  // last write epoch (clock 0: none)
      uint32_t r_thread = 0, r_clock = 0;  // last read epoch; r_shared: use the VC instead
      int32_t r_shared = -1;
    };
    std::vector<Var> vars(nv);
    std::vector<uint32_t> shared;  // read VCs, nt entries each
    races = 0;
    for (const Event& e : trace.events) {
      const size_t t = e.thread;
      uint32_t* ct = &c[t * nt];
      switch (e.op) {
        case Op::Read: {
          Var& v = vars[e.target];
          if (v.r_shared < 0 && v.r_thread == t && v.r_clock == ct[t]) break;
          if (v.w_clock > ct[v.w_thread] && v.w_thread != t) ++races;
          if (v.r_shared >= 0) {
            shared[v.r_shared * nt + t] = ct[t];
          } else if (v.r_clock == 0 || v.r_clock <= ct[v.r_thread]) {
            v.r_thread = static_cast<uint32_t>(t);
            v.r_clock = ct[t];
          } else {
            v.r_shared = static_cast<int32_t>(shared.size() / nt);
            shared.resize(shared.size() + nt, 0);
            shared[v.r_shared * nt + v.r_thread] = v.r_clock;
            shared[v.r_shared * nt + t] = ct[t];
          }
          break;
        }
        case Op::Write: {
          Var& v = vars[e.target];
          if (v.w_thread == t && v.w_clock == ct[t]) break;
          bool race = v.w_clock > ct[v.w_thread] && v.w_thread != t;
          if (v.r_shared >= 0) {
            const uint32_t* r = &shared[v.r_shared * nt];
            for (size_t u = 0; u < nt; ++u) race |= u != t && r[u] > ct[u];
            std::fill(&shared[v.r_shared * nt], &shared[v.r_shared * nt] + nt, 0);
            v.r_shared = -1;  // (the slot is leaked; fine for a benchmark baseline)
          } else {
            race |= v.r_clock > ct[v.r_thread] && v.r_thread != t;
          }
          v.r_clock = 0;
          races += race;
          v.w_thread = static_cast<uint32_t>(t);
          v.w_clock = ct[t];
          break;
        }
        case Op::Acquire: {
          const uint32_t* lk = &l[e.target * nt];
          for (size_t u = 0; u < nt; ++u) ct[u] = std::max(ct[u], lk[u]);
          break;
        }
        case Op::Release: {
          std::copy(ct, ct + nt, &l[e.target * nt]);
          ++ct[t];
          break;
        }
        case Op::Fork: {
          uint32_t* cu = &c[e.target * nt];
          for (size_t u = 0; u < nt; ++u) cu[u] = std::max(cu[u], ct[u]);
          ++ct[t];
          break;
        }
        case Op::Join: {
          const uint32_t* cu = &c[e.target * nt];
          for (size_t u = 0; u < nt; ++u) ct[u] = std::max(ct[u], cu[u]);
          ++c[e.target * nt + e.target];
          break;
        }
      }
    }
    benchmark::DoNotOptimize(races);
  }
  state.counters["events/s"] = benchmark::Counter(
      static_cast<double>(trace.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["races"] = static_cast<double>(races);
  state.counters["events"] = static_cast<double>(trace.size());
}

void BM_Small(benchmark::State& state, bool eager, bool rw) {
  const GoldilocksDiscipline d =
      rw ? GoldilocksDiscipline::ConcurrentReads : GoldilocksDiscipline::MutEx;
  run_engine_loop(state, small_trace(), [eager, d](EngineContext& c) {
    return eager ? make_goldilocks_eager(c, d) : make_goldilocks_lazy(c, d);
  });
}

BENCHMARK_CAPTURE(BM_Registered, goldilocks, "goldilocks")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Registered, goldilocks_rw, "goldilocks-rw")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_Registered, fasttrack, "fasttrack")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK(BM_VectorClockBaseline)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_CAPTURE(BM_Small, lazy_goldilocks_rw_200k, false, true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Small, eager_goldilocks_rw_200k, true, true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace racepred

BENCHMARK_MAIN();
