// PWR_L race prediction (PWR paper Alg. 1 + 2 + 3 + 4) over PwrClocks: the per-variable
// frontier RW(x) of the most recent mutually concurrent accesses, the WRD race test, and a hook
// for the edge constraints of pwr-edges (pwr_edges.cpp).
//
// State (besides PwrClocks):
//   RW(x)   entries (j#k, event, location, LSt, is_write): the accesses of x not yet known to
//           happen before a later access, plus, after reads, the writes before them (Alg. 3)
//
//   read(i,x):  [WRD]  if LW(x) = j#k with Th(i)[j] < k and LSt(i) ∩ LWL(x) = ∅: race (LW(x), e)
//               [sync] Th(i) = Th(i) ⊔ LW(x); w3(i)
//               [race] for f in RW(x): f a write, f ∥ e, LS(f) ∩ LSt(i) = ∅: race (f, e)
//               [RW]   RW(x) = {e} ∪ {f ∈ RW(x) | f ∥ e or f is a write}
//   write(i,x): [race] for f in RW(x): f ∥ e, LS(f) ∩ LSt(i) = ∅: race (f, e)
//               [RW]   RW(x) = {e} ∪ {f ∈ RW(x) | f ∥ e};  LW(x) = Th(i) …
// where f = j#k ∥ e iff k > Th(i)[j]. Every entry dropped from RW(x) happens before the access
// that dropped it (the edge f ≺ e of pwr-edges).
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/pwr/pwr_core.hpp"

namespace racepred::pwr {

// One access in RW(x), 24 bytes: the write flag shares a word with the event id (event ids are
// line ordinals, far below 2^63).
struct Entry {
  Entry() = default;
  Entry(Epoch e, EventId event, LocationId loc, SetId ls, bool is_write)
      : epoch(e), bits_(event | (uint64_t{is_write} << 63)), location(loc), lockset(ls) {}

  Epoch epoch;

 private:
  uint64_t bits_ = 0;

 public:
  LocationId location = 0;
  SetId lockset = LockSetTable::kEmptySet;

  EventId id() const { return bits_ & ~(uint64_t{1} << 63); }
  bool write() const { return (bits_ >> 63) != 0; }
  // The access, done by `thread` (the thread of the epoch's slot, PwrClocks::thread_at).
  Access access(ThreadId thread) const {
    return Access{id(), thread, location, write() ? Op::Write : Op::Read};
  }
};
static_assert(sizeof(Entry) == 24);

// RW(x): its entry in place while there is one (a variable accessed by one thread at a time),
// on the heap beyond, so that the many variables a large trace touches once allocate nothing.
class Frontier {
 public:
  Frontier() {}
  Frontier(Frontier&& o) noexcept : size_(o.size_), cap_(o.cap_) {
    if (cap_ > 1)
      heap_ = o.heap_;
    else
      one_ = o.one_;
    o.size_ = 0;
    o.cap_ = 1;
  }
  Frontier(const Frontier&) = delete;
  Frontier& operator=(const Frontier&) = delete;
  Frontier& operator=(Frontier&&) = delete;
  ~Frontier() {
    if (cap_ > 1) delete[] heap_;
  }

  Entry* data() { return cap_ > 1 ? heap_ : &one_; }
  size_t size() const { return size_; }
  // Keeps the first n entries (n <= size()).
  void truncate(size_t n) { size_ = static_cast<uint32_t>(n); }
  void push_back(const Entry& e) {
    if (size_ == cap_) [[unlikely]]
      grow();
    data()[size_++] = e;
  }

 private:
  [[gnu::noinline]] void grow() {
    const uint32_t cap = cap_ * 2;
    Entry* p = new Entry[cap];
    std::copy_n(data(), size_, p);
    if (cap_ > 1) delete[] heap_;
    heap_ = p;
    cap_ = cap;
  }

  union {
    Entry* heap_ = nullptr;  // cap_ > 1
    Entry one_;              // cap_ == 1
  };
  uint32_t size_ = 0;
  uint32_t cap_ = 1;
};

// No edge constraints (pwr).
struct NoEdges {
  explicit NoEdges(const PwrOptions&) {}
  void ensure_variable(VariableId) {}
  template <class Report>
  void conc(VariableId, const Entry&, const Entry&, const Clock*, const PwrClocks&, Report&&) {}
  void replaced(VariableId, const Entry&, EventId) {}
};

template <class Edges>
class PwrEngine final : public DispatchEngine<PwrEngine<Edges>> {
 public:
  PwrEngine(EngineContext& context, const PwrOptions& options)
      : sink_(context.sink), clocks_(options), edges_(options) {}

  // DispatchEngine handlers.
  void before(EventId, const Event& e) { clocks_.ensure_thread(e.thread); }
  [[gnu::always_inline]] void read(EventId id, const Event& e) { access<false>(id, e); }
  [[gnu::always_inline]] void write(EventId id, const Event& e) { access<true>(id, e); }
  void acquire(EventId, const Event& e) { clocks_.acquire(e.thread, e.target); }
  void release(EventId, const Event& e) { clocks_.release(e.thread, e.target); }
  void read_acquire(EventId, const Event& e) { clocks_.read_acquire(e.thread, e.target); }
  void read_release(EventId, const Event& e) { clocks_.read_release(e.thread, e.target); }
  void fork(EventId, const Event& e) { clocks_.fork(e.thread, e.target); }
  void join(EventId, const Event& e) { clocks_.join(e.thread, e.target); }
  void send(EventId, const Event& e) { clocks_.send(e.thread, e.target); }
  void recv(EventId, const Event& e) { clocks_.recv(e.thread, e.target); }
  void after(EventId, const Event& e) { clocks_.end(e.thread); }

 private:
  // One bound test per access for LW(x), RW(x) and the edges.
  void ensure_variable(VariableId x) {
    if (x >= variables_) [[unlikely]]
      grow_variables(x);
  }
  [[gnu::noinline]] void grow_variables(VariableId x) {
    clocks_.ensure_variable(x);
    if (x >= rw_.size()) {
      rw_.resize(std::max<size_t>(static_cast<size_t>(x) + 1, rw_.size() * 3 / 2));
      edges_.ensure_variable(static_cast<VariableId>(rw_.size() - 1));
    }
    variables_ = std::min(rw_.size(), clocks_.variable_count());
  }

  // Inlined into the dispatch loop, once per kind (Write: a write).
  template <bool Write>
  [[gnu::always_inline]] void access(EventId id, const Event& e) {
    const ThreadId i = e.thread;
    const VariableId x = e.target;
    ensure_variable(x);
    const uint32_t ls = clocks_.lockset(i);
    if constexpr (!Write) {
      // [WRD] the read's last write, unordered before the sync (PWR paper: WRD race).
      const bool unordered = clocks_.last_write_unordered(i, x);
      if (unordered) [[unlikely]] {
        const auto& w = clocks_.last_write(x);
        if (clocks_.disjoint(w.lockset, ls))
          report(Access{w.id, clocks_.thread_at(w.epoch), w.location, Op::Write}, id, e);
      }
      clocks_.sync_read(i, x, unordered);  // [sync]
    } else {
      clocks_.begin(i);
    }
    const Clock* th = clocks_.cur_th();
    const Entry cur{clocks_.now(i), id, e.location, ls, Write};
    scan<Write>(x, cur, th, e);
    if constexpr (Write) clocks_.set_last_write(i, x, id, e.location);
  }

  // [race] and [RW] for the access cur of x (Write: cur is a write). Entries are moved down
  // only once one was dropped; the new entry takes the first free slot.
  template <bool Write>
  [[gnu::always_inline]] void scan(VariableId x, const Entry& cur, const Clock* th,
                                   const Event& e) {
    Frontier& rw = rw_[x];
    Entry* data = rw.data();
    const size_t n = rw.size();
    size_t kept = 0;
    for (size_t k = 0; k < n; ++k) {
      const Entry& f = data[k];
      if (f.epoch.clock() > th[f.epoch.thread()]) {  // f ∥ e
        if (Write || f.write()) {                    // [race]
          if (clocks_.disjoint(f.lockset, cur.lockset)) [[unlikely]]
            report(f, cur.id(), e);
          edges_.conc(x, f, cur, th, clocks_, [&](const Entry& g) { report(g, cur.id(), e); });
        }
      } else if (Write || !f.write()) {  // f ≺ e (Alg. 3: writes stay after a read)
        edges_.replaced(x, f, cur.id());
        continue;
      }
      if (kept != k) data[kept] = f;
      ++kept;
    }
    if (kept < n) {  // [RW]
      data[kept] = cur;
      rw.truncate(kept + 1);
    } else {
      rw.push_back(cur);
    }
  }

  Access access_of(const Entry& f) const { return f.access(clocks_.thread_at(f.epoch)); }
  [[gnu::noinline, gnu::cold]] void report(const Access& first, EventId id, const Event& e) {
    sink_.report(Race{first, Access::of(id, e), e.target});
  }
  // Once the sink keeps no more races they are only counted (races come in detection order).
  [[gnu::noinline, gnu::cold]] void report(const Entry& f, EventId id, const Event& e) {
    if (!sink_.accepting())
      sink_.count_race(f.location, Access::of(id, e));
    else
      sink_.report(Race{access_of(f), Access::of(id, e), e.target});
  }

  RaceSink& sink_;
  PwrClocks clocks_;
  Edges edges_;
  std::vector<Frontier> rw_;  // RW(x)
  size_t variables_ = 0;      // the variables below this have LW(x) and RW(x)
};

}  // namespace racepred::pwr
