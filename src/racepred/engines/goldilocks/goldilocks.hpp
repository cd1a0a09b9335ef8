// Goldilocks (Elmas and Qadeer, "A New Lockset Algorithm and Its Applications"): happens-before
// computed with lock sets only. Two disciplines: §3 MutExAccessDiscipline (`goldilocks`: every two
// accesses of a variable, reads included, must be HB-ordered) and §6 concurrent reads / exclusive
// writes (`goldilocks-rw`: LSW for the last write, LSR per thread for the reads since it).
// The registered engines use the lazy form (goldilocks.cpp); the eager form, the paper's rules
// touching every lock set at each acquire/fork/join, is a test reference
// (tests/support/goldilocks_eager.hpp). docs/ENGINES.md explains both and the two corrections to
// the printed rules.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "racepred/engines/dispatch.hpp"

namespace racepred {

// A lock set of the paper: locks and thread ids. `undefined` is the paper's ⊥ (no access yet;
// the first access always passes, as with the paper's initial value Addr ∪ Tid).
// With read-write locks the sets are those of the standard reduction (a read section of l by u
// holds the lock (l,u), a write section holds (l,u) for every u): `locks` lists the l whose
// tokens (l,u) are all in the set, `read_locks` the other l with some token (l,u) in it.
struct GoldilocksSet {
  bool undefined = true;
  std::vector<ThreadId> threads;   // sorted, distinct
  std::vector<LockId> locks;       // sorted, distinct
  std::vector<LockId> read_locks;  // sorted, distinct, none of them in `locks`
  friend bool operator==(const GoldilocksSet&, const GoldilocksSet&) = default;
};

// Sorts and deduplicates the lock lists and drops read_locks that are also in locks.
void normalize(GoldilocksSet& set);

// "{T1, m, r:n}" with the trace's names (threads, locks, then read tokens as r:l), "⊥" when
// undefined.
std::string format_goldilocks_set(const GoldilocksSet& set, const Symbols& symbols);

enum class GoldilocksDiscipline {
  MutEx,            // §3: LS(q)
  ConcurrentReads,  // §6: LSW(q), LSR(q, t)
};

// Annotation columns: "LH" (LH(t) after the event) and, for accesses, "LS" or "LSW" and "LSR"
// as "before → after" (empty for synchronisation events). LSR lists the threads that read since
// the last write: "T1:{T1}; T2:{T2, m}", "-" when there is none.
inline constexpr const char* kGoldilocksArrow = " → ";

// The lazy engine (registered as `goldilocks` / `goldilocks-rw`). The synchronisation list is
// trimmed once it holds trim_at = max(min_trim, 4 × records) entries (records: the accesses the
// next ones are checked against); the older half is dropped. Tests pass a tiny min_trim without
// the records term to trim at nearly every event and so exercise the epoch summary.
// Thread × thread state is indexed by slots; once slot_budget slots exist, a forked thread
// reuses the slot of a joined thread that happens before the fork (tests pass a tiny budget).
// Past sparse_beyond slots the thread × thread state turns sparse, and at most live_rows
// threads keep a live replay (0: as many as fit in about 32 MB); tests pass 0 and a few rows
// to compare the sparse form with the dense one on small traces.
struct GoldilocksLazyOptions {
  uint64_t min_trim = uint64_t{1} << 16;
  bool scale_with_records = true;
  size_t slot_budget = 256;
  size_t sparse_beyond = 1024;
  size_t live_rows = 0;
};
std::unique_ptr<Engine> make_goldilocks_lazy(EngineContext& context,
                                             GoldilocksDiscipline discipline,
                                             GoldilocksLazyOptions options = {});

}  // namespace racepred
