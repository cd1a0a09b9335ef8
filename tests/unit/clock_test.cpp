// The clock kit (clock/): thread clocks with the papers' synchronisation rules, per-id tables,
// event sets, and the overflow check of clock values.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "racepred/clock/event_set.hpp"
#include "racepred/clock/id_table.hpp"
#include "racepred/clock/shared_clock.hpp"
#include "racepred/clock/slot_map.hpp"
#include "racepred/clock/thread_clocks.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::string th(const ThreadClocks& c, ThreadId t) {
  return show_vc(c.th(t), c.threads());
}

TEST(ThreadClocks, StartWithOwnEntryOne) {
  ThreadClocks c;
  EXPECT_FALSE(c.add_thread(2));  // the first stride (4) holds threads 0..3
  EXPECT_EQ(c.threads(), 3u);
  EXPECT_EQ(th(c, 0), "[1,0,0]");
  EXPECT_EQ(th(c, 2), "[0,0,1]");
}

TEST(ThreadClocks, ReleaseThenAcquireOrdersCriticalSections) {
  // T0: acq(y) rel(y); T1: acq(y) — the paper's rules: Rel(y) = Th(0), Th(1) = Th(1) ⊔ Rel(y).
  ThreadClocks c;
  c.add_thread(1);
  c.apply({Op::Acquire, 0, 7, 0});
  c.apply({Op::Release, 0, 7, 0});
  EXPECT_EQ(show_vc(c.rel(7), 2), "[2,0]");  // Th(0) at the release, before its tick
  c.apply({Op::Acquire, 1, 7, 0});
  EXPECT_EQ(th(c, 1), "[2,2]");
  EXPECT_EQ(th(c, 0), "[3,0]");
}

TEST(ThreadClocks, ReadSectionsOrderAgainstWriteSectionsOnly) {
  // T0, T1: racq(y) rrel(y) — not ordered among themselves; T2: acq(y) after both read
  // releases joins them all (RelR(y)); T3: racq(y) after T2's rel(y) joins Rel(y).
  ThreadClocks c;
  c.add_thread(3);
  c.apply({Op::ReadAcquire, 0, 7, 0});
  c.apply({Op::ReadRelease, 0, 7, 0});
  c.apply({Op::ReadAcquire, 1, 7, 0});
  EXPECT_EQ(th(c, 1), "[0,2,0,0]");  // T0's read section is not joined
  c.apply({Op::ReadRelease, 1, 7, 0});
  c.apply({Op::Acquire, 2, 7, 0});
  EXPECT_EQ(th(c, 2), "[2,2,2,0]");  // both read releases
  c.apply({Op::Release, 2, 7, 0});
  c.apply({Op::ReadAcquire, 3, 7, 0});
  EXPECT_EQ(th(c, 3), "[2,2,2,2]");  // the write release, which covers the read releases
}

TEST(ThreadClocks, WithoutLockOrderOnlyForkAndJoinSynchronise) {
  ThreadClocks c(/*lock_order=*/false);
  c.apply({Op::Release, 0, 0, 0});
  c.apply({Op::Acquire, 1, 0, 0});
  EXPECT_EQ(th(c, 1), "[0,2]");
  c.apply({Op::Fork, 0, 2, 0});
  EXPECT_EQ(th(c, 2), "[2,0,1]");
  c.apply({Op::Join, 0, 2, 0});
  EXPECT_EQ(th(c, 0), "[4,0,1]");  // [3,0,1] ⊔ Th(2), then its own tick
}

TEST(ThreadClocks, GrowingPastTheStrideKeepsTheClocks) {
  ThreadClocks c;
  c.apply({Op::Write, 0, 0, 0});
  c.apply({Op::Release, 0, 3, 0});
  EXPECT_TRUE(c.fork(0, 9));  // stride 4 → 16
  EXPECT_EQ(c.stride(), 16u);
  EXPECT_EQ(c.th(0)[0], 3u);
  EXPECT_EQ(c.rel(3)[0], 2u);
  EXPECT_EQ(c.th(9)[0], 3u);
  EXPECT_EQ(c.th(9)[9], 1u);
}

// Past the sparse threshold the clocks are packed (the non-zero entries only) with a few rows
// unpacked; every clock stays what the flat rows hold. 40 threads (more than the 8 unpacked
// rows): T0 forks them, each passes lock 0 on (a chain), T0 joins every other one.
TEST(ThreadClocks, SparseClocksHoldWhatFlatClocksHold) {
  ThreadClocks flat, sparse;
  sparse.sparse_beyond(2);
  std::vector<Event> events;
  for (ThreadId t = 1; t < 40; ++t) events.push_back({Op::Fork, 0, t, 0});
  for (ThreadId t = 1; t < 40; ++t) {
    events.push_back({Op::Acquire, t, 0, 0});
    events.push_back({Op::Write, t, 5, 0});
    events.push_back({Op::Release, t, 0, 0});
  }
  for (ThreadId t = 1; t < 40; t += 2) events.push_back({Op::Join, 0, t, 0});
  for (const Event& e : events) {
    flat.apply(e);
    sparse.apply(e);
  }
  ASSERT_FALSE(flat.sparse());
  ASSERT_TRUE(sparse.sparse());
  for (ThreadId t = 0; t < 40; ++t) EXPECT_EQ(th(sparse, t), th(flat, t)) << "T" << t;
  EXPECT_EQ(show_vc(sparse.rel(0), 40), show_vc(flat.rel(0), 40));
  EXPECT_EQ(sparse.stride(), flat.stride());
  // The chain makes Th(t) know T0 … T(t-1): about 40²/2 entries, not 40 × 64.
  EXPECT_LT(sparse.sparse_entries(), 40u * 40u);
}

// Read-write locks past the sparse threshold: RelR(y) joins the read releases entry by entry;
// a write acquire joins it, a read acquire does not. Same clocks as the flat rows.
TEST(ThreadClocks, SparseReadReleaseClocksHoldWhatFlatOnesHold) {
  ThreadClocks flat, sparse;
  sparse.sparse_beyond(2);
  std::vector<Event> events;
  for (ThreadId t = 1; t < 20; ++t) events.push_back({Op::Fork, 0, t, 0});
  events.push_back({Op::ReadAcquire, 1, 0, 0});  // before the switch: RelR(0) is packed then
  events.push_back({Op::ReadRelease, 1, 0, 0});
  for (ThreadId t = 2; t < 20; ++t) {
    const bool reader = t % 3 != 0;
    events.push_back({reader ? Op::ReadAcquire : Op::Acquire, t, 0, 0});
    events.push_back({Op::Write, t, 5, 0});
    events.push_back({reader ? Op::ReadRelease : Op::Release, t, 0, 0});
    events.push_back({Op::ReadAcquire, t, 1, 0});
    events.push_back({Op::ReadRelease, t, 1, 0});
  }
  events.push_back({Op::Acquire, 0, 1, 0});
  for (const Event& e : events) {
    flat.apply(e);
    sparse.apply(e);
  }
  ASSERT_TRUE(sparse.sparse());
  for (ThreadId t = 0; t < 20; ++t) EXPECT_EQ(th(sparse, t), th(flat, t)) << "T" << t;
  EXPECT_EQ(show_vc(sparse.rel(0), 20), show_vc(flat.rel(0), 20));
}

// A clock per slot that starts empty (WCP's P beside H): acquire and release as for Th, rows
// of another ThreadClocks joined in (join_slot_from, assign_slot_from), an own entry lowered.
TEST(ThreadClocks, ClocksThatStartEmptyTakeRowsOfAnotherThreadClocks) {
  for (const size_t threshold : {size_t{2}, SIZE_MAX}) {
    ThreadClocks h, p;
    h.sparse_beyond(threshold);
    p.sparse_beyond(threshold);
    p.rows_start_empty();
    for (ThreadId t = 1; t < 12; ++t) h.apply({Op::Fork, 0, t, 0});
    p.add_thread(11);
    EXPECT_EQ(th(p, 3), "[0,0,0,0,0,0,0,0,0,0,0,0]");
    p.assign_slot_from(3, h, 0);  // P(3) := H(0) = [12,0,…]
    p.join_slot_from(3, h, 3);    // ⊔ H(3) = [3,0,0,1,…]
    EXPECT_EQ(th(p, 3), "[12,0,0,1,0,0,0,0,0,0,0,0]");
    p.release(3, 7);  // P_7 := P(3)
    p.acquire(4, 7);
    EXPECT_EQ(th(p, 4), "[12,0,0,1,0,0,0,0,0,0,0,0]");
    p.assign_slot_from(4, h, 5);
    EXPECT_EQ(th(p, 4), "[5,0,0,0,0,1,0,0,0,0,0,0]");
    h.lower_slot(5, 5, 0);
    EXPECT_EQ(th(h, 5), "[5,0,0,0,0,0,0,0,0,0,0,0]");
    p.assign_slot_from(4, h, 5);
    EXPECT_EQ(th(p, 4), "[5,0,0,0,0,0,0,0,0,0,0,0]");
    EXPECT_TRUE(h.slot_within_but_own(0, h.th(0)));
    EXPECT_TRUE(p.slot_within_but_own(4, p.th(3)));   // [5,0,…] ≤ [12,0,0,1,…]
    EXPECT_FALSE(p.slot_within_but_own(4, h.th(3)));  // [5,0,…] vs [3,0,0,1,…]
    EXPECT_TRUE(h.slot_within_but_own(3, h.th(0)));   // [3,0,0,1,…] ≤ [12,0,…] but entry 3
    EXPECT_EQ(p.sparse(), threshold == 2);
  }
}

// Slot reuse: slots are the thread ids until the budget is passed; then the mapping starts and
// the threads joined so far free their slots for threads forked by one that knows them.
TEST(ThreadClocks, SlotsStayTheIdentityUntilTheBudgetIsPassed) {
  ThreadClocks c;
  c.reuse_slots_beyond(2);
  c.apply({Op::Fork, 0, 1, 0});  // T0 forks T1: two slots, the identity
  EXPECT_EQ(c.slot(1), 1u);
  c.apply({Op::Write, 1, 0, 0});
  c.apply({Op::Join, 0, 1, 0});  // T1 ends; T0 knows all of it
  const Clock t1_last = c.th(0)[1];
  c.apply({Op::Fork, 0, 2, 0});  // past the budget: T2 takes T1's slot
  EXPECT_EQ(c.threads(), 2u);
  EXPECT_EQ(c.slot(2), 1u);
  EXPECT_EQ(c.th(2)[1], t1_last + 1);          // T2 starts after T1's last clock value
  EXPECT_EQ(c.thread_at(1, t1_last), 1u);      // epochs up to it name T1
  EXPECT_EQ(c.thread_at(1, t1_last + 1), 2u);  // later ones T2
  c.apply({Op::Fork, 0, 3, 0});                // no free slot T0 can reuse: a new one
  EXPECT_EQ(c.slot(3), 2u);
  EXPECT_EQ(c.threads(), 3u);
  EXPECT_EQ(c.thread_at(0, 1), 0u);
}

// The slot map ThreadClocks and Goldilocks share: a slot is reused only after its thread ended
// and only when the engine's test allows it; values in a slot map back to the thread that had
// them.
TEST(SlotMap, ReusesASlotAfterItsThreadEndedAndMapsValuesBack) {
  SlotMap m;
  EXPECT_EQ(m.find(0), SlotMap::kNoSlot);
  EXPECT_EQ(m.add(0), 0u);
  EXPECT_EQ(m.add(5), 1u);  // slots are numbered in order of first need, not by thread id
  EXPECT_EQ(m.add(2), 2u);
  EXPECT_EQ(m.find(5), 1u);
  EXPECT_EQ(m.slots(), 3u);
  const auto any = [](const SlotMap::FreeSlot&) { return true; };
  // Before any thread ended there is nothing to reuse.
  EXPECT_FALSE(m.has_free());
  EXPECT_FALSE(m.take_free(any).has_value());

  // Thread 5 ends with value 7 in slot 1 and loses its slot (release).
  EXPECT_TRUE(m.retire(1, 7, 42, /*release=*/true));
  EXPECT_EQ(m.find(5), SlotMap::kNoSlot);
  EXPECT_TRUE(m.has_free());
  // The engine's test decides; a refused slot stays free.
  std::vector<uint64_t> seen;
  EXPECT_FALSE(m.take_free([&](const SlotMap::FreeSlot& f) {
                  seen.push_back(f.at);
                  EXPECT_EQ(f.slot, 1u);
                  EXPECT_EQ(f.last, 7u);
                  return false;
                }).has_value());
  EXPECT_EQ(seen, std::vector<uint64_t>{42});
  const std::optional<SlotMap::FreeSlot> f = m.take_free(any);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->slot, 1u);
  EXPECT_FALSE(m.has_free());
  m.move_in(9, f->slot, 8);  // thread 9 continues after thread 5's last value
  EXPECT_EQ(m.find(9), 1u);
  EXPECT_EQ(m.slots(), 3u);  // no new slot
  EXPECT_EQ(m.tenant(1), 9u);
  EXPECT_EQ(m.tenant_count(1), 2u);
  EXPECT_EQ(m.thread_at(1, 0), 5u);
  EXPECT_EQ(m.thread_at(1, 1), 5u);
  EXPECT_EQ(m.thread_at(1, 7), 5u);
  EXPECT_EQ(m.thread_at(1, 8), 9u);
  EXPECT_EQ(m.thread_at(1, 100), 9u);
  EXPECT_EQ(m.thread_at(0, 100), 0u);
  // Thread 5 appearing again gets a fresh slot.
  EXPECT_EQ(m.add(5), 3u);
  EXPECT_EQ(m.thread_at(3, 1), 5u);
}

TEST(SlotMap, AThreadThatKeepsItsSlotLosesItOnlyToTheNextThread) {
  SlotMap m;
  m.add(0);
  m.add(1);
  m.add(2);
  EXPECT_TRUE(m.retire(1, 3, 0, /*release=*/false));
  EXPECT_TRUE(m.retire(2, 4, 0, /*release=*/false));
  EXPECT_FALSE(m.retire(1, 5, 0, /*release=*/false));  // free already (joined twice)
  EXPECT_EQ(m.find(1), 1u);                            // kept until another thread takes it
  // The most recently freed slot first.
  const std::optional<SlotMap::FreeSlot> f =
      m.take_free([](const SlotMap::FreeSlot&) { return true; });
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->slot, 2u);
  EXPECT_EQ(f->last, 4u);
  m.move_in(7, 2, 5);
  EXPECT_EQ(m.find(2), SlotMap::kNoSlot);
  EXPECT_EQ(m.find(7), 2u);
  EXPECT_EQ(m.find(1), 1u);  // its slot is still free, not taken
  EXPECT_TRUE(m.has_free());
  EXPECT_EQ(m.thread_at(2, 4), 2u);
  EXPECT_EQ(m.thread_at(2, 5), 7u);
  EXPECT_TRUE(m.retire(2, 9, 0, /*release=*/false));  // thread 7 ends: free again
}

TEST(ThreadClocks, AClockThatWouldWrapIsAnError) {
  ThreadClocks c;
  c.add_thread(1);
  c.th(1)[1] = UINT32_MAX - 1;
  c.tick(1);
  EXPECT_EQ(c.th(1)[1], UINT32_MAX);
  try {
    c.tick(1);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("thread #1 has more than 4294967295 events"),
              std::string::npos)
        << e.what();
  }
}

TEST(IdTable, GrowsOnDemandWithTheInitialValue) {
  IdTable<int> t(-1);
  EXPECT_EQ(t.find(5), nullptr);
  t[5] = 3;
  ASSERT_NE(t.find(5), nullptr);
  EXPECT_EQ(*t.find(5), 3);
  EXPECT_EQ(t[2], -1);
  EXPECT_GE(t.size(), 6u);
  t.ensure(100);
  EXPECT_EQ(t[99], -1);
}

TEST(EventSet, InsertUniteAndPrint) {
  EventSet a, b;
  a.insert(0);
  a.insert(70);
  b.insert(3);
  a.unite(b);
  EXPECT_TRUE(a.contains(70));
  EXPECT_TRUE(a.contains(3));
  EXPECT_FALSE(a.contains(4));
  EXPECT_EQ(a.to_string([](size_t pos) { return pos + 1; }), "{e1,e4,e71}");
}

// SharedClock against VectorClock on random sets, joins and copies over ids of every height
// (one leaf up to four levels), with copies made and dropped between: the shared nodes never
// change a value another copy holds, and join() says whether a value grew.
TEST(SharedClock, HoldsWhatAVectorClockHolds) {
  uint64_t r = 99;
  const auto next = [&r](uint64_t n) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    return (r >> 33) % n;
  };
  constexpr size_t kClocks = 12;
  for (const uint64_t ids : {20ull, 300ull, 5000ull, 70000ull}) {
    std::vector<SharedClock> s(kClocks);
    std::vector<VectorClock> v(kClocks);
    for (int step = 0; step < 4000; ++step) {
      const size_t a = next(kClocks), b = next(kClocks);
      switch (next(4)) {
        case 0: {  // set, sometimes lower
          const auto t = static_cast<ThreadId>(next(ids));
          const Clock c = static_cast<Clock>(next(4) == 0 ? next(3) : v[a].get(t) + 1 + next(5));
          s[a].set(t, c);
          v[a].set(t, c);
          break;
        }
        case 1: {
          const bool grew = !v[b].leq(v[a]);
          EXPECT_EQ(s[a].join(s[b]), grew) << ids << " step " << step;
          v[a].join(v[b]);
          break;
        }
        case 2:
          s[a] = s[b];
          v[a] = v[b];
          break;
        default:
          if (next(8) == 0) {
            s[a] = SharedClock{};
            v[a] = VectorClock{};
          }
      }
      if (step % 97 == 0) {
        for (size_t k = 0; k < kClocks; ++k) {
          ASSERT_TRUE(s[k].to_vector() == v[k]) << ids << " step " << step << " clock " << k;
        }
      }
    }
    for (size_t k = 0; k < kClocks; ++k) {
      EXPECT_EQ(s[k].to_string(4), v[k].to_string(4));
      EXPECT_EQ(s[k].size() == 0, v[k].is_zero());
    }
  }
}

// Copies share their nodes: a thousand copies of a clock over 10,000 threads, each with one entry
// changed, hold far fewer cells than a thousand vectors.
TEST(SharedClock, CopiesShareTheirNodes) {
  SharedClock base;
  for (ThreadId t = 0; t < 10000; ++t) base.set(t, t + 1);
  std::vector<SharedClock> copies(1000, base);
  for (size_t k = 0; k < copies.size(); ++k) copies[k].set(static_cast<ThreadId>(k * 7), 1000000);
  const uint32_t mark = SharedClock::new_mark();
  size_t cells = base.cells(mark);
  for (const SharedClock& c : copies) cells += c.cells(mark);
  EXPECT_GT(base.cells(SharedClock::new_mark()), 10000u);
  EXPECT_LT(cells, 200000u);  // vectors: 10,000,000
  EXPECT_EQ(copies[3].get(21), 1000000u);
  EXPECT_EQ(copies[3].get(22), 23u);
  EXPECT_EQ(base.get(21), 22u);
}

// Seeds (SharedClock::seed) in the family they are made for: clocks that are joins of HB times.
// Threads over ids of one to three tree levels tick and send each other their times; the
// clocks under test join those times at once or as seeds, join and copy one another, and must
// hold what vector clocks doing the same joins hold (get, in-order reads by a Reader, the whole
// vector); lowering an entry below a seed's keeps the other entries. for_each_above names exactly
// the entries where one HB time is above another.
TEST(SharedClock, SeedsHoldWhatTheirJoinsHold) {
  uint64_t r = 7;
  const auto next = [&r](uint64_t n) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    return (r >> 33) % n;
  };
  struct Time {  // an HB time of an event of `thread`
    ThreadId thread;
    SharedClock s;
    VectorClock v;
  };
  uint64_t seeds = 0;
  for (const uint64_t ids : {40ull, 900ull, 40000ull}) {
    const uint64_t seeds_before = SharedClock::seeds_made();
    constexpr size_t kThreads = 24, kClocks = 10;
    std::vector<ThreadId> id(kThreads);  // spread over the id range
    for (size_t u = 0; u < kThreads; ++u) id[u] = static_cast<ThreadId>(u * (ids / kThreads));
    std::vector<SharedClock> th(kThreads);
    std::vector<VectorClock> thv(kThreads);
    std::vector<Time> times;
    std::vector<SharedClock> p(kClocks);
    std::vector<VectorClock> pv(kClocks);
    for (int step = 0; step < 6000; ++step) {
      const size_t u = next(kThreads), a = next(kClocks), b = next(kClocks);
      switch (next(6)) {
        case 0: {  // an event of u: its time, kept
          th[u].set(id[u], th[u].get(id[u]) + 1);
          thv[u].set(id[u], thv[u].get(id[u]) + 1);
          times.push_back({id[u], th[u], thv[u]});
          break;
        }
        case 1:  // u learns a time (a message)
          if (!times.empty()) {
            const Time& m = times[next(times.size())];
            th[u].join(m.s);
            thv[u].join(m.v);
          }
          break;
        case 2:
        case 3:  // a clock takes a time, at once or as a seed
          if (!times.empty()) {
            const Time& m = times[times.size() - 1 - next(std::min<size_t>(times.size(), 50))];
            if (next(2) == 0)
              p[a].seed(m.s, m.thread);
            else
              p[a].join(m.s);
            pv[a].join(m.v);
          }
          break;
        case 4:
          p[a].join(p[b]);
          pv[a].join(pv[b]);
          break;
        default:
          if (next(4) == 0) {
            p[a] = p[b];
            pv[a] = pv[b];
          }
      }
      if (step % 61 == 0) {
        for (size_t k = 0; k < kClocks; ++k) {
          ASSERT_TRUE(p[k].to_vector() == pv[k]) << ids << " step " << step << " clock " << k;
          const SharedClock::Reader in_order = p[k].reader();
          for (size_t w = 0; w < kThreads; ++w) {
            ASSERT_EQ(in_order[id[w]], pv[k].get(id[w])) << ids << " step " << step;
            ASSERT_EQ(p[k].get(id[w] + 1), pv[k].get(id[w] + 1));
          }
        }
        if (times.size() >= 2) {  // for_each_above on two HB times
          const Time& x = times[next(times.size())];
          const Time& y = times[next(times.size())];
          VectorClock above;
          x.s.for_each_above(y.s, [&](ThreadId t, Clock c) { above.set(t, c); });
          for (size_t w = 0; w < kThreads; ++w) {
            const Clock want = x.v.get(id[w]) > y.v.get(id[w]) ? x.v.get(id[w]) : 0;
            ASSERT_EQ(above.get(id[w]), want) << ids << " step " << step;
          }
        }
      }
    }
    // Lowering an entry below a seed's: the seed joins the body first.
    for (size_t k = 0; k < kClocks; ++k) {
      const ThreadId t = id[k];
      const Clock low = pv[k].get(t) / 2;
      p[k].set(t, low);
      pv[k].set(t, low);
      EXPECT_TRUE(p[k].to_vector() == pv[k]) << ids << " clock " << k;
    }
    if (ids > 32) seeds += SharedClock::seeds_made() - seeds_before;
  }
  EXPECT_GT(seeds, 100u);  // the seeds were taken, not only joined at once
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
