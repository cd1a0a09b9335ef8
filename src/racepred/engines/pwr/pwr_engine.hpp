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
#include <span>
#include <type_traits>
#include <unordered_map>
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

// Large frontiers (the flood of many threads on one variable; sparse clocks only). An RW(x) of
// many entries is indexed by slot (it holds at most one write and one read of a slot: an access
// drops the earlier reads of its slot, a write every earlier entry of it) and counts its writes
// and reads per lock set, so that an access finds the entries before it from the non-zero
// entries of its clock and, counting, counts its races per lock set instead of visiting each
// entry. A dropped entry becomes a hole (clock 0, never an access's) until RW(x) is compacted,
// so the entries keep their order. T: Entry, or an element with the Entry `entry` (pwr-cs).
template <class T>
class LargeFrontiers {
 public:
  explicit LargeFrontiers(uint64_t from) : from_(from) {}

  static Entry& entry(T& t) {
    if constexpr (std::is_same_v<T, Entry>)
      return t;
    else
      return t.entry;
  }
  static const Entry& entry(const T& t) {
    if constexpr (std::is_same_v<T, Entry>)
      return t;
    else
      return t.entry;
  }
  static bool hole(const T& t) { return entry(t).epoch.clock() == 0; }
  // pwr-cs: the entry has a record (its races may wait; they are not counted in bulk).
  static bool recorded(const T& t) {
    if constexpr (std::is_same_v<T, Entry>)
      return false;
    else
      return t.record != kNone;
  }

  // Entries from which RW(x) is made large (EngineOptions::bulk_count_from); a large one stays
  // large until it has fewer than an eighth of them, so RW(x) of at least that many looks here.
  uint64_t from() const { return from_; }
  size_t look_from() const { return static_cast<size_t>(from_ / 8); }

  // 1 + the index of x's index, 0 if RW(x) is not large.
  uint32_t find(VariableId x) const {
    const auto it = of_.find(x);
    return it == of_.end() ? 0 : it->second;
  }
  // RW(x) (its n entries, no holes) becomes large.
  [[gnu::noinline]] uint32_t make(VariableId x, const T* data, size_t n) {
    uint32_t b;
    if (!free_.empty()) {
      b = free_.back();
      free_.pop_back();
    } else {
      b = static_cast<uint32_t>(bigs_.size());
      bigs_.emplace_back();
    }
    Big& g = bigs_[b];
    g.repeats = false;
    g.serial = ++serials_;
    for (size_t q = 0; q < n; ++q) g.repeats |= mark(g, entry(data[q]));
    index(g, data, n);
    of_[x] = b + 1;
    return b + 1;
  }
  // The positions of the entries that happen before Th = th (nonzeros: its non-zero entries):
  // reads and writes apart.
  void ordered(uint32_t b, const T* data, size_t n, const Clock* th,
               std::span<const uint32_t> nonzeros, std::vector<uint32_t>& reads,
               std::vector<uint32_t>& writes) const {
    reads.clear();
    writes.clear();
    const Big& g = bigs_[b - 1];
    if (nonzeros.size() < n) {
      for (const uint32_t j : nonzeros) {
        if (const auto it = g.r_at.find(j);
            it != g.r_at.end() && entry(data[it->second]).epoch.clock() <= th[j])
          reads.push_back(it->second);
        if (const auto it = g.w_at.find(j);
            it != g.w_at.end() && entry(data[it->second]).epoch.clock() <= th[j])
          writes.push_back(it->second);
      }
      return;
    }
    for (uint32_t q = 0; q < n; ++q) {
      const Entry& f = entry(data[q]);
      if (!hole(data[q]) && f.epoch.clock() <= th[f.epoch.thread()])
        (f.write() ? writes : reads).push_back(q);
    }
  }
  // Races may be counted per lock set: no two entries of large sets share a location, and
  // few lock sets.
  bool countable(uint32_t b) const {
    const Big& g = bigs_[b - 1];
    return !g.repeats && !g.many_sets && g.recorded == 0;
  }
  // The live writes (or reads) whose lock set passes `disjoint`.
  template <class F>
  uint64_t count(uint32_t b, bool writes, F&& disjoint) const {
    uint64_t n = 0;
    for (const auto& [set, k] : writes ? bigs_[b - 1].w_sets : bigs_[b - 1].r_sets)
      if (k != 0 && disjoint(set)) n += k;
    return n;
  }
  // The entry at q leaves RW(x), dropped by the access `by`: a hole.
  void drop(uint32_t b, T* data, uint32_t q, EventId by) {
    Big& g = bigs_[b - 1];
    Entry& f = entry(data[q]);
    (f.write() ? g.w_at : g.r_at).erase(f.epoch.thread());
    count_set(g, f.write(), f.lockset, -1);
    g.recorded -= recorded(data[q]);
    if (log_) [[unlikely]] {
      const auto it = members_.find(f.location);
      if (it != members_.end() && it->second.serial == g.serial) it->second.dropped = by;
    }
    f.epoch = Epoch(f.epoch.thread(), 0);
    ++g.holes;
  }
  // The entry t was appended to RW(x) at position q.
  void add(uint32_t b, const T& t, uint32_t q) {
    Big& g = bigs_[b - 1];
    add(g, t, q);
    g.repeats |= mark(g, entry(t));
  }

  // pwr-cs (has_location_pair() for the location pairs of races counted in bulk): which
  // entries the races counted by count_races_in_bulk paired with an access. Logs every entry
  // of a large RW(x) at a location marked once and every bulk count.
  void log_members() { log_ = true; }
  // The access `second` (lock set ls) counted its races with the live entries of x's large RW
  // b that are not before it, less `excluded` (positions of writes before it that stay).
  void log_bulk(uint32_t b, const Access& second, SetId ls, const T* data,
                std::span<const uint32_t> excluded) {
    Bulk k{bigs_[b - 1].serial, second.event, ls, second.op == Op::Write, {}};
    for (const uint32_t q : excluded) k.excluded.push_back(entry(data[q]).location);
    bulks_[second.location].push_back(std::move(k));
  }
  // Whether a race at the location pair (first, second) was counted in bulk; disjoint(a, b):
  // the lock sets a and b have no lock in common.
  template <class F>
  bool counted_in_bulk(LocationId first, LocationId second, F&& disjoint) const {
    const auto m = members_.find(first);
    const auto k = bulks_.find(second);
    if (m == members_.end() || k == bulks_.end()) return false;
    const Member& f = m->second;
    for (const Bulk& c : k->second)
      if (c.serial == f.serial && f.id < c.event && c.event < f.dropped && (c.write || f.write) &&
          disjoint(f.lockset, c.lockset) &&
          std::find(c.excluded.begin(), c.excluded.end(), first) == c.excluded.end())
        return true;
    return false;
  }
  // After an access: closes the holes of RW(x) (its n entries) once they are half of them,
  // then RW(x) stops being large (b = 0) below an eighth of from(). Returns the entries left.
  size_t settle(VariableId x, uint32_t& b, T* data, size_t n) {
    Big& g = bigs_[b - 1];
    if (g.holes * 2 <= n) return n;
    size_t kept = 0;
    for (size_t q = 0; q < n; ++q)
      if (!hole(data[q])) data[kept++] = data[q];
    if (kept < from_ / 8) {
      free_.push_back(b - 1);
      of_.erase(x);
      b = 0;
      return kept;
    }
    index(g, data, kept);
    return kept;
  }

 private:
  static constexpr size_t kSets = 8;  // lock sets counted per kind; more: one by one
  struct Big {
    bool repeats = false;    // two entries of large sets may share a location (marks_)
    bool many_sets = false;  // more than kSets lock sets: w_sets and r_sets are not kept
    uint32_t holes = 0;
    uint32_t recorded = 0;  // live entries with a record (pwr-cs)
    uint64_t serial = 0;    // this RW(x)'s time as a large one (log_members)
    std::unordered_map<uint32_t, uint32_t> w_at, r_at;       // slot → position of its write, read
    std::vector<std::pair<SetId, uint32_t>> w_sets, r_sets;  // lock set → live writes, reads
  };
  static void count_set(Big& g, bool write, SetId s, int delta) {
    if (g.many_sets) return;
    auto& sets = write ? g.w_sets : g.r_sets;
    for (auto& [set, k] : sets)
      if (set == s) {
        k = static_cast<uint32_t>(static_cast<int64_t>(k) + delta);
        return;
      }
    if (sets.size() == kSets) {
      g.many_sets = true;
      return;
    }
    sets.emplace_back(s, static_cast<uint32_t>(delta));
  }
  static void add(Big& g, const T& t, uint32_t q) {
    const Entry& f = entry(t);
    (f.write() ? g.w_at : g.r_at)[f.epoch.thread()] = q;
    count_set(g, f.write(), f.lockset, 1);
    g.recorded += recorded(t);
  }
  static void index(Big& g, const T* data, size_t n) {
    g.w_at.clear();
    g.r_at.clear();
    g.w_sets.clear();
    g.r_sets.clear();
    g.many_sets = false;
    g.holes = 0;
    g.recorded = 0;
    for (size_t q = 0; q < n; ++q) add(g, data[q], static_cast<uint32_t>(q));
  }
  // Marks the location of f as held by a large RW; true if it was marked before.
  bool mark(const Big& g, const Entry& f) {
    const LocationId l = f.location;
    if (l >= marks_.size()) marks_.resize(std::max<size_t>(size_t{l} + 1, marks_.size() * 2));
    const bool was = marks_[l] != 0;
    marks_[l] = 1;
    if (log_ && !was) [[unlikely]]
      members_[l] = Member{g.serial, f.id(), kNoEvent, f.lockset, f.write()};
    return was;
  }

  // log_members(): the entry at a location marked once, and the bulk counts by the second
  // access's location.
  struct Member {
    uint64_t serial;
    EventId id, dropped;  // the access, and the access that dropped it (kNoEvent: none)
    SetId lockset;
    bool write;
  };
  struct Bulk {
    uint64_t serial;
    EventId event;
    SetId lockset;
    bool write;
    std::vector<LocationId> excluded;
  };
  bool log_ = false;
  std::unordered_map<LocationId, Member> members_;
  std::unordered_map<LocationId, std::vector<Bulk>> bulks_;
  uint64_t serials_ = 0;

  uint64_t from_;
  std::unordered_map<VariableId, uint32_t> of_;  // x → 1 + its index
  std::vector<Big> bigs_;
  std::vector<uint32_t> free_;
  std::vector<uint8_t> marks_;  // by location
};

// No edge constraints (pwr).
struct NoEdges {
  explicit NoEdges(const PwrOptions&) {}
  void ensure_variable(VariableId) {}
  bool none(VariableId) const { return true; }
  template <class Report>
  void conc(VariableId, const Entry&, const Entry&, const Clock*, const PwrClocks&, Report&&) {}
  void replaced(VariableId, const Entry&, EventId) {}
};

template <class Edges>
class PwrEngine final : public DispatchEngine<PwrEngine<Edges>> {
 public:
  PwrEngine(EngineContext& context, const PwrOptions& options)
      : sink_(context.sink), clocks_(options), edges_(options), large_(options.bulk_count_from) {}

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
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
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
    if (rw.size() >= large_.look_from() && clocks_.sparse()) [[unlikely]] {
      if (scan_large<Write>(x, cur, th, e)) return;
    }
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

  // scan() of a large RW(x) (LargeFrontiers); false: RW(x) is not large, scan it as usual.
  template <bool Write>
  [[gnu::noinline]] bool scan_large(VariableId x, const Entry& cur, const Clock* th,
                                    const Event& e) {
    Frontier& rw = rw_[x];
    uint32_t b = large_.find(x);
    if (b == 0) {
      if (rw.size() + 1 < large_.from()) return false;
      b = large_.make(x, rw.data(), rw.size());
    }
    Entry* data = rw.data();
    const size_t n = rw.size();
    // Counting: the races are the live writes (and, for a write, reads) whose lock sets are
    // disjoint from cur's, but those before cur. Edges of x would add races (pwr-edges).
    bool counted = false;
    if (!sink_.accepting() && large_.countable(b) && edges_.none(x)) {
      large_.ordered(b, data, n, th, clocks_.cur_nonzero_slots(), reads_, writes_);
      const auto disjoint = [&](SetId s) { return clocks_.disjoint(s, cur.lockset); };
      uint64_t races = large_.count(b, true, disjoint);
      if (Write) races += large_.count(b, false, disjoint);
      for (const uint32_t q : writes_) races -= disjoint(data[q].lockset);
      if (Write)
        for (const uint32_t q : reads_) races -= disjoint(data[q].lockset);
      counted = races == 0 || sink_.count_races_in_bulk(races, Access::of(cur.id(), e));
    }
    if (counted) {
      // [RW]: the reads before cur leave, and for a write the writes before it (in RW order).
      if (Write) reads_.insert(reads_.end(), writes_.begin(), writes_.end());
      std::sort(reads_.begin(), reads_.end());
      for (const uint32_t q : reads_) {
        edges_.replaced(x, data[q], cur.id());
        large_.drop(b, data, q, cur.id());
      }
    } else {
      for (uint32_t q = 0; q < n; ++q) {  // scan()'s loop, holes skipped
        const Entry& f = data[q];
        if (f.epoch.clock() == 0) continue;
        if (f.epoch.clock() > th[f.epoch.thread()]) {
          if (Write || f.write()) {
            if (clocks_.disjoint(f.lockset, cur.lockset)) [[unlikely]]
              report(f, cur.id(), e);
            edges_.conc(x, f, cur, th, clocks_, [&](const Entry& g) { report(g, cur.id(), e); });
          }
        } else if (Write || !f.write()) {
          edges_.replaced(x, f, cur.id());
          large_.drop(b, data, q, cur.id());
        }
      }
    }
    const size_t kept = large_.settle(x, b, data, n);
    rw.truncate(kept);
    rw.push_back(cur);
    if (b != 0) large_.add(b, cur, static_cast<uint32_t>(kept));
    return true;
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
  LargeFrontiers<Entry> large_;
  std::vector<uint32_t> reads_, writes_;  // scan_large: the entries before the access
};

}  // namespace racepred::pwr
