// Goldilocks, lazy form (Elmas and Qadeer §3 and §6; the lazy evaluation of Elmas, Qadeer, Tasiran,
// "Goldilocks: Efficiently Computing the Happens-Before Relation Using Locksets", FATES/RV 2006).
//
// The paper's lock sets LS(q) (and LSW(q), LSR(q, t)) grow at every acquire, fork and join. The
// lazy form never touches a variable's lock set at a synchronisation event: it appends the event
// to one global list and, when the variable is next accessed, asks "is the thread now in the
// lock set of the previous access?" by replaying the list from that access's position.
//
// Replay rules. A lock set that starts as LH(j) at an access of thread j evolves, under the
// paper's rules (with rule 7 corrected, see docs/ENGINES.md), so that a thread k is in it iff
// the access happens before k's next event. Its lock part only matters through acquires, so the
// replay keeps the equivalent token form (docs/ENGINES.md, "Lazy form"): start with {j};
//   rel(u, l):  u ∈ S ⇒ l ∈ S        acq(u, l):  l ∈ S ⇒ u ∈ S
//   fork(u, w): u ∈ S ⇒ w ∈ S        join(u, w): w ∈ S ⇒ u ∈ S
// and the paper's LS is S ∪ {locks held by the threads of S} (annotations print that).
// Read-write locks follow the standard reduction (a read section of l by u holds (l,u), a write
// section holds (l,u) for every u). Of the tokens (l,u) only two facts matter: W(l), all of them
// are in S (a write release by a member), and R(l), some are (a read release by a member; a
// token (l,u) with u ∈ S matters only to write acquires, as u ∈ S already):
//   rel(u, l):  u ∈ S ⇒ W(l) ∈ S     acq(u, l):   W(l) ∈ S or R(l) ∈ S ⇒ u ∈ S
//   rrel(u, l): u ∈ S ⇒ R(l) ∈ S     racq(u, l):  W(l) ∈ S ⇒ u ∈ S
// A read release is an outgoing event (it starts an epoch), a read acquire an incoming one.
// Synchronisation orders (docs/ENGINES.md, "Synchronisation orders") are Elmas and Qadeer's
// volatile accesses: send(o) the volatile write of o (the variable joins the lock sets that
// hold the writer), recv(o) the volatile read (the reader joins the lock sets that hold o). In
// the token form o is the token W(o) (one namespace with the locks):
//   send(u, o): u ∈ S ⇒ W(o) ∈ S     recv(u, o): W(o) ∈ S ⇒ u ∈ S
// a send is outgoing (like a release, without a held lock), a recv incoming (like a read
// acquire). A name used both as a lock and a sync object shares the token: its sends order
// the lock's later acquires, and its releases the later recvs (more order, never less).
//
// Checks, cheapest first (an access of thread j at list position p, epoch c, current thread t):
//   1. j = t (short-circuit: same thread);
//   2. t holds the innermost lock j held at the access (short-circuit: common lock);
//   3. reach[t][j] ≥ c: an earlier replay already put t into S(j, c) or a later one of j, or
//      a direct edge did (t acquired a lock j released in epoch ≥ c, t was forked by j or
//      joined j: recorded at that event in O(1), from the lock's last releaser and epoch);
//   4. j had no outgoing event (release, fork, being joined) since: S is still {j} → no;
//   5. t had no incoming event (acquire, being forked, join) since p: t ∉ S → no;
//   6. the same question failed before and t had no incoming event since → no;
//   7. replay list[p .. t's last incoming event], stopping as soon as t ∈ S. The replay of j's
//      epoch c is kept live (one per thread j): a later question about epoch c of j continues
//      from where the last one stopped instead of restarting at the record's position. The
//      replay reads only its members' entries, by links between entries (section "Replay index"),
//      and stops early when a thread k that joined S in epoch e has reach[t][k] ≥ e.
// An epoch of j counts j's outgoing events: all accesses of j within one epoch have the same S,
// and S(j, c) ⊇ S(j, c') for c ≤ c', which makes the memo of check 3 valid.
//
// Memory. The list is trimmed when it reaches trim_at_ entries (≥ min_trim = 65536, ≥ 4 ×
// records): the older half is dropped. Entries older than every record are dropped as they are; the
// rest is first folded into an epoch summary Σ (one row of epochs per thread and per lock: token k
// is in the lock set of epoch c of thread j at the list start iff Σ[k][j] ≥ c). Σ is the lock sets
// of all older accesses at once, kept in O((threads + locks) × threads) space; a replay of a record
// older than the list start starts from it. So memory is O(variables + threads × (threads +
// locks)) plus at most max(65536, 4 × records) list entries, whatever the trace length (the live
// replay states of check 7 add threads × (threads + locks) stamps). Past 1024 slots the thread ×
// thread state turns sparse (section "Many threads"): memory then follows the cells in use.
#include "racepred/engines/goldilocks/goldilocks.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racepred/clock/lock_set.hpp"
#include "racepred/clock/slot_map.hpp"
#include "racepred/clock/thread_clocks.hpp"

namespace racepred {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Links (section "Replay index"): distances to later entries, 0 while there is none yet.
//   next_out:   the next outgoing entry of `thread` (release, read release, send, fork by it,
//               its join);
//   next_other: for an entry on a lock, the next acquire (either mode) or recv of it; for a fork or
//               join, the next outgoing entry of the thread `target`.
struct SyncEntry {
  ThreadId thread;
  uint32_t target;  // lock (acquire, release) or thread (fork, join)
  Op op;
  uint32_t epoch;  // the epoch of `thread` at the entry (before an outgoing entry's increment)
  uint32_t next_out = 0;
  uint32_t next_other = 0;
};

// An access the next accesses are checked against: the last access (§3), the last write (LSW)
// or a thread's last read since it (LSR).
// 32 bytes: two per cache line.
struct AccessRecord {
  EventId event = kNoEvent;  // kNoEvent: none (the paper's ⊥)
  // position << 1 | is_write: position = length of the sync list at the access. For the marker
  // of shared reads (event = kSharedReads): the index of the slice in the shared-reads pool.
  uint64_t bits = 0;
  ThreadId thread = 0;
  uint32_t epoch = 0;   // the thread's epoch at the access
  LockId lock = kNone;  // innermost lock held at the access (short-circuit 2)
  LocationId location = 0;

  bool defined() const { return event != kNoEvent; }
  uint64_t position() const { return bits >> 1; }
  Op op() const { return bits & 1 ? Op::Write : Op::Read; }
};
static_assert(sizeof(AccessRecord) == 32);
constexpr EventId kSharedReads = UINT64_MAX;

// --- state that follows the threads in use (20,000 threads alive at once) ---------
// A thread × thread table (row t, column j) of T, default T{}. Dense: rows of one stride in a
// flat array, lookups one multiply-add. Sparse: each row is the list of the columns set so
// far, sorted, found by binary search; memory follows the cells used, not slots².
template <class T>
class ThreadTable {
 public:
  bool sparse() const { return sparse_; }
  T get(size_t row, size_t column) const {
    if (!sparse_) [[likely]]
      return dense_[row * stride_ + column];
    const std::vector<Cell>& cells = rows_[row];
    const auto it = lower(cells, column);
    return it != cells.end() && it->column == column ? it->value : T{};
  }
  T& at(size_t row, size_t column) {
    if (!sparse_) [[likely]]
      return dense_[row * stride_ + column];
    std::vector<Cell>& cells = rows_[row];
    auto it = lower(cells, column);
    if (it == cells.end() || it->column != column)
      it = cells.insert(it, Cell{static_cast<uint32_t>(column), T{}});
    return it->value;
  }
  // Dense: stride × stride cells, the old ones kept (stride only grows). Sparse: stride rows.
  void set_stride(size_t stride) {
    if (sparse_) {
      rows_.resize(stride);
    } else if (stride != stride_) {
      std::vector<T> dense(stride * stride);
      for (size_t a = 0; a < stride_; ++a)
        std::copy_n(dense_.begin() + static_cast<std::ptrdiff_t>(a * stride_), stride_,
                    dense.begin() + static_cast<std::ptrdiff_t>(a * stride));
      dense_.swap(dense);
    }
    stride_ = stride;
  }
  // Keeps the cells that differ from T{} as sorted rows.
  void make_sparse() {
    if (sparse_) return;
    rows_.assign(stride_, {});
    for (size_t a = 0; a < stride_; ++a)
      for (size_t b = 0; b < stride_; ++b)
        if (!(dense_[a * stride_ + b] == T{}))
          rows_[a].push_back(Cell{static_cast<uint32_t>(b), dense_[a * stride_ + b]});
    std::vector<T>().swap(dense_);
    sparse_ = true;
  }

 private:
  struct Cell {
    uint32_t column;
    T value;
  };
  template <class Cells>
  static auto lower(Cells& cells, size_t column) {
    return std::lower_bound(cells.begin(), cells.end(), column,
                            [](const Cell& c, size_t col) { return c.column < col; });
  }
  bool sparse_ = false;
  size_t stride_ = 0;
  std::vector<T> dense_;
  std::vector<std::vector<Cell>> rows_;
};

// A monotone priority queue of list positions (a radix heap): every position pushed is larger
// than the last one taken. Bucket b holds the positions whose highest bit differing from the
// last one taken is bit b - 1 (bucket 0: equal to it); taking the smallest refills the low
// buckets from the lowest non-empty one. A push is O(1), and each position moves down at most
// once per bit: cheaper here than a binary heap's unpredictable sifts (measured).
class PositionQueue {
 public:
  // Empties the queue for positions ≥ start.
  void clear(uint64_t start) {
    for (uint64_t m = mask_; m != 0; m &= m - 1) buckets_[std::countr_zero(m)].clear();
    mask_ = 0;
    last_ = start;
  }
  void push(uint64_t position) {
    const int b = std::bit_width(position ^ last_);
    buckets_[b].push_back(position);
    mask_ |= uint64_t{1} << b;
  }
  // Takes the smallest position if it is below `limit`. Otherwise the queue is left as it was
  // (the last position taken stays the bound for later pushes, which may be below the
  // smallest one queued now).
  bool pop_below(uint64_t limit, uint64_t& position) {
    if (mask_ == 0) return false;
    if (!buckets_[0].empty()) {
      position = last_;
    } else {
      const std::vector<uint64_t>& from = buckets_[std::countr_zero(mask_)];
      position = *std::min_element(from.begin(), from.end());
      if (position >= limit) return false;
      refill(position);
    }
    if (position >= limit) return false;
    buckets_[0].pop_back();
    if (buckets_[0].empty()) mask_ &= ~uint64_t{1};
    return true;
  }

 private:
  // The lowest non-empty bucket goes down to the buckets of its smallest position `least`.
  void refill(uint64_t least) {
    const int b = std::countr_zero(mask_);
    std::vector<uint64_t>& from = buckets_[b];
    last_ = least;
    for (const uint64_t p : from) {
      const int to = std::bit_width(p ^ last_);
      buckets_[to].push_back(p);
      mask_ |= uint64_t{1} << to;
    }
    from.clear();
    mask_ &= ~(uint64_t{1} << b);
  }
  // Positions stay below 2^63, so bit_width(p ^ last) ≤ 63.
  std::array<std::vector<uint64_t>, 64> buckets_;
  uint64_t mask_ = 0;
  uint64_t last_ = 0;
};

// A row of the epoch summary Σ (below): epochs per slot. Dense (an array over the slots seen)
// while the engine's thread × thread state is; sparse (the non-zero epochs, sorted by slot) once
// it switched, so rows of threads that know few others stay short whatever the number of slots.
// Rows are joined only with rows of the same form.
class EpochRow {
 public:
  struct Cell {
    uint32_t slot;
    uint32_t epoch;
  };
  uint32_t get(uint32_t slot) const {
    if (!sparse_) return slot < dense_.size() ? dense_[slot] : 0;
    const auto it = lower(slot);
    return it != cells_.end() && it->slot == slot ? it->epoch : 0;
  }
  void increment(uint32_t slot) {
    if (!sparse_) {
      if (slot >= dense_.size()) dense_.resize(static_cast<size_t>(slot) + 1, 0);
      ++dense_[slot];
      return;
    }
    const auto it = lower(slot);
    if (it != cells_.end() && it->slot == slot)
      ++it->epoch;
    else
      cells_.insert(it, Cell{slot, 1});
  }
  // this := this ⊔ o (point-wise maximum); `scratch` is reused between calls.
  void join(const EpochRow& o, std::vector<Cell>& scratch) {
    if (!sparse_) {
      if (o.dense_.size() > dense_.size()) dense_.resize(o.dense_.size(), 0);
      for (size_t i = 0; i < o.dense_.size(); ++i) dense_[i] = std::max(dense_[i], o.dense_[i]);
      return;
    }
    if (o.cells_.empty()) return;
    scratch.clear();
    auto a = cells_.begin();
    auto b = o.cells_.begin();
    while (a != cells_.end() || b != o.cells_.end()) {
      if (b == o.cells_.end() || (a != cells_.end() && a->slot < b->slot)) {
        scratch.push_back(*a++);
      } else if (a == cells_.end() || b->slot < a->slot) {
        scratch.push_back(*b++);
      } else {
        scratch.push_back(Cell{a->slot, std::max(a->epoch, b->epoch)});
        ++a;
        ++b;
      }
    }
    cells_.swap(scratch);
  }
  // Calls f(slot, epoch) for every non-zero epoch.
  template <class F>
  void for_each(F f) const {
    if (!sparse_) {
      for (size_t i = 0; i < dense_.size(); ++i)
        if (dense_[i] != 0) f(static_cast<uint32_t>(i), dense_[i]);
      return;
    }
    for (const Cell& c : cells_) f(c.slot, c.epoch);
  }
  void make_sparse() {
    if (sparse_) return;
    for (size_t i = 0; i < dense_.size(); ++i)
      if (dense_[i] != 0) cells_.push_back(Cell{static_cast<uint32_t>(i), dense_[i]});
    std::vector<uint32_t>().swap(dense_);
    sparse_ = true;
  }

 private:
  std::vector<Cell>::iterator lower(uint32_t slot) {
    return std::lower_bound(cells_.begin(), cells_.end(), slot,
                            [](const Cell& c, uint32_t s) { return c.slot < s; });
  }
  std::vector<Cell>::const_iterator lower(uint32_t slot) const {
    return std::lower_bound(cells_.begin(), cells_.end(), slot,
                            [](const Cell& c, uint32_t s) { return c.slot < s; });
  }
  bool sparse_ = false;
  std::vector<uint32_t> dense_;
  std::vector<Cell> cells_;
};

class GoldilocksLazy final : public DispatchEngine<GoldilocksLazy>, public Annotator {
 public:
  GoldilocksLazy(EngineContext& context, GoldilocksDiscipline discipline,
                 GoldilocksLazyOptions options)
      : symbols_(context.symbols),
        sink_(context.sink),
        rw_(discipline == GoldilocksDiscipline::ConcurrentReads),
        min_trim_(std::max<uint64_t>(options.min_trim, 2)),
        records_factor_(options.scale_with_records ? 4 : 0),
        // Annotations name every thread of a lock set: no slot reuse there.
        slot_budget_(context.annotate ? SIZE_MAX : options.slot_budget),
        sparse_beyond_(options.sparse_beyond),
        trim_at_(min_trim_),
        live_rows_budget_(options.live_rows) {}

  // Every handler works on slots (section "Thread slots" below): cur_ is the slot of the
  // event's thread.
  void before(EventId, const Event& e) { cur_ = slot_for(e.thread); }
  void read(EventId id, const Event& e) {
    ensure_variable(e.target);
    rw_ ? read_rw(id, e) : access(id, e);
  }
  void write(EventId id, const Event& e) {
    ensure_variable(e.target);
    rw_ ? write_rw(id, e) : access(id, e);
  }
  // A write section (acq/rel) and a read section (racq/rrel) follow the standard reduction
  // (docs/ENGINES.md "Read-write locks"): the header comment gives the replay rules.
  void acquire(EventId, const Event& e) {
    const uint32_t t = cur_;
    ensure_lock(e.target);
    held_[t].push_back(e.target);
    threads_[t].innermost = e.target;
    holder_[e.target] = t;
    take(t, e.target, Op::Acquire);
  }
  void release(EventId, const Event& e) {
    const uint32_t t = cur_;
    ensure_lock(e.target);
    if (holder_[e.target] == t) holder_[e.target] = kNone;
    give(t, e, e.target, Op::Release);
  }
  // A read section is held in held_ as read_mode(l); it is never the innermost lock of check 2
  // (two read holds of l do not order each other) and never in holder_.
  void read_acquire(EventId, const Event& e) {
    const uint32_t t = cur_;
    enable_read_locks();
    ensure_lock(e.target);
    held_[t].push_back(read_mode(e.target));
    take(t, e.target, Op::ReadAcquire);
  }
  void read_release(EventId, const Event& e) {
    const uint32_t t = cur_;
    enable_read_locks();
    ensure_lock(e.target);
    give(t, e, read_mode(e.target), Op::ReadRelease);
  }
  // send(o): u ∈ S ⇒ W(o) ∈ S, an outgoing entry like a release (no lock is held or freed);
  // the last sender gives the next recvs' direct edge (a lower bound of what they learn).
  void send(EventId, const Event& e) {
    const uint32_t t = cur_;
    ensure_lock(e.target);
    last_release_[e.target] = LastRelease{t, threads_[t].epoch};
    append(SyncEntry{t, e.target, Op::Send, threads_[t].epoch});
    increment_clock(threads_[t].epoch, e.thread);
  }
  // recv(o): W(o) ∈ S ⇒ u ∈ S, an incoming entry like a read acquire.
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) {
    const uint32_t t = cur_;
    ensure_lock(e.target);
    if (const LastRelease last = last_release_[e.target]; last.thread != kNone)
      raise_reach(t, last.thread, last.epoch);
    append(SyncEntry{t, e.target, Op::Recv, threads_[t].epoch});
    threads_[t].in_next = end_;
  }
  // An acquire in either mode: the direct edges into check 3's memo from the lock's last write
  // release (and, for a write acquire, its last read release), then the list entry.
  void take(uint32_t t, LockId l, Op op) {
    if (const LastRelease last = last_release_[l]; last.thread != kNone)
      raise_reach(t, last.thread, last.epoch);
    if (op == Op::Acquire && read_locks_) {
      if (const LastRelease last = last_read_release_[l]; last.thread != kNone)
        raise_reach(t, last.thread, last.epoch);
    }
    append(SyncEntry{t, l, op, threads_[t].epoch});
    threads_[t].in_next = end_;
  }
  // A release in either mode (`hold`: the entry of held_), remembered for the next acquires'
  // direct edges; it starts the thread's next epoch.
  void give(uint32_t t, const Event& e, LockId hold, Op op) {
    drop_held(t, hold);
    (op == Op::Release ? last_release_ : last_read_release_)[e.target] =
        LastRelease{t, threads_[t].epoch};
    append(SyncEntry{t, e.target, op, threads_[t].epoch});
    increment_clock(threads_[t].epoch, e.thread);
  }
  void fork(EventId, const Event& e) {
    const uint32_t t = cur_;
    const uint32_t u = fork_slot(e.target, t);
    raise_reach(u, t, threads_[t].epoch);
    append(SyncEntry{t, u, Op::Fork, threads_[t].epoch});
    threads_[u].in_next = end_;
    increment_clock(threads_[t].epoch, e.thread);
  }
  void join(EventId, const Event& e) {
    const uint32_t t = cur_;
    const uint32_t u = slot_for(e.target);
    const uint32_t last = threads_[u].epoch;  // the epoch of u's last events
    raise_reach(t, u, last);
    const uint64_t at = end_;
    append(SyncEntry{t, u, Op::Join, threads_[t].epoch});
    threads_[t].in_next = end_;
    increment_clock(threads_[u].epoch, e.target);
    slots_.retire(u, last, at, /*release=*/false);  // (joined twice: free already)
  }

  Annotator* annotator() override { return this; }

  void before_event(EventId /*id*/, const Event& e) override {
    before_.clear();
    if (!e.is_access()) return;
    slot_for(e.thread);
    ensure_variable(e.target);
    describe_variable(e.target, before_);
  }

  void annotate(EventId /*id*/, const Event& e, Annotation& row) override {
    GoldilocksSet lh;
    lh.undefined = false;
    lh.threads = {e.thread};
    add_held(slot_for(e.thread), lh);
    normalize(lh);
    row.push_back({"LH", format_goldilocks_set(lh, symbols_)});
    std::vector<std::string> after;
    if (e.is_access()) describe_variable(e.target, after);
    const std::vector<std::string> columns =
        rw_ ? std::vector<std::string>{"LSW", "LSR"} : std::vector<std::string>{"LS"};
    for (size_t i = 0; i < columns.size(); ++i) {
      std::string value;
      if (e.is_access() && i < before_.size()) value = before_[i] + kGoldilocksArrow + after[i];
      row.push_back({columns[i], std::move(value)});
    }
  }

 private:
  struct Negative {
    uint32_t epoch = kNone;         // S(j, epoch) did not contain the thread …
    uint64_t in_next = UINT64_MAX;  // … while its in_next had this value
    friend bool operator==(const Negative&, const Negative&) = default;
  };
  struct ThreadState {
    uint32_t epoch = 1;        // 1 + outgoing events (release, fork, being joined)
    LockId innermost = kNone;  // the last acquired lock still held
    uint64_t in_next = 0;      // 1 + position of the last incoming entry (acquire, forked, join)
    uint32_t first_epoch = 1;  // the first epoch of the slot's current thread
  };
  // §3: the last access. §6: the last write (LSW) and the reads since (LSR): inline while one
  // thread reads; once a second one does, `reader` is a marker (event = kSharedReads) naming a
  // slice of slices_: the last read of each thread that read since the write, like FastTrack's
  // read-shared clocks but only as long as the readers (a variable read by 3 of 200 threads
  // keeps 3 records). Past kIndexFrom readers a slice also gets a per-slot index.
  struct VariableState {
    AccessRecord last;
    AccessRecord reader;
  };
  struct ReaderAt {
    uint32_t slot;
    uint32_t position;  // in reads
  };
  struct ReadSlice {
    std::vector<AccessRecord> reads;  // in the order of their first read since the write
    std::vector<uint32_t> index;      // empty, or per slot: the position of its current read
    std::vector<ReaderAt> sorted;     // sparse: the same as (slot, position), sorted by slot
  };
  static constexpr size_t kIndexFrom = 16;

  // --- locks held ---------------------------------------------------------------------------

  void drop_held(ThreadId t, LockId hold) {
    std::vector<LockId>& held = held_[t];
    for (size_t i = held.size(); i-- > 0;) {
      if (held[i] == hold) {
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    LockId innermost = kNone;
    for (size_t i = held.size(); i-- > 0;) {
      if (!is_read_mode(held[i])) {
        innermost = held[i];
        break;
      }
    }
    threads_[t].innermost = innermost;
  }
  // The locks thread t holds, into `set` (write holds as locks, read holds as read_locks).
  void add_held(ThreadId t, GoldilocksSet& set) const {
    for (LockId h : held_[t]) (is_read_mode(h) ? set.read_locks : set.locks).push_back(lock_of(h));
  }

  // --- thread slots ---------------------------------------------------------------------------
  // Thread × thread state (reach_, negative_, live replays, Σ, read slices) is indexed by slot,
  // not by thread id. A thread gets a fresh slot when it first appears; once there are
  // slot_budget_ slots, a forked thread w takes instead the slot s of a joined thread u whose
  // last events happen before the fork (ordered(), with u's last epoch). w continues s's epochs
  // (its first epoch follows u's last), and s's token stands for u and then w: every record of
  // u happens before w's events, so S(s, c) ⊇ S(s, c') for c ≤ c' still holds, u ∈ S ⇒ w ∈ S
  // is right, and every memo stays valid. The slot's history of threads (its tenants) names the
  // thread of a record (its epoch) in reports. A joined thread keeps its slot until another
  // thread takes it; joined again after that, it starts a fresh slot (it passes on no order
  // then, as in ThreadClocks). The map, free list and owners are the clock kit's SlotMap, which
  // ThreadClocks uses too; the reuse test (ordered()) is this engine's.
  uint32_t slot_for(ThreadId t) {
    const uint32_t s = slots_.find(t);
    if (s != SlotMap::kNoSlot) [[likely]]
      return s;
    return new_slot(t);
  }
  [[gnu::noinline]] uint32_t new_slot(ThreadId t) {
    const uint32_t s = slots_.add(t);  // == threads_.size(): slots are numbered as the state
    grow_threads(s);
    return s;
  }
  // The slot of thread w forked by the thread in slot i.
  uint32_t fork_slot(ThreadId w, uint32_t i) {
    if (slots_.find(w) != SlotMap::kNoSlot || threads_.size() < slot_budget_ || !slots_.has_free())
        [[likely]]
      return slot_for(w);
    return reuse_slot(w, i);
  }
  [[gnu::noinline]] uint32_t reuse_slot(ThreadId w, uint32_t i) {
    // Reusable when the last events of the slot's thread u (its last epoch, up to its join)
    // happen before the fork.
    const std::optional<SlotMap::FreeSlot> f = slots_.take_free([&](const SlotMap::FreeSlot& f) {
      AccessRecord last;  // u's last events
      last.event = 0;
      last.bits = f.at << 1;
      last.thread = f.slot;
      last.epoch = f.last;
      return ordered(last, i);
    });
    if (!f) return slot_for(w);
    ThreadState& ts = threads_[f->slot];
    slots_.move_in(w, f->slot, ts.epoch);
    ts.first_epoch = ts.epoch;
    ts.innermost = kNone;
    held_[f->slot].clear();
    return f->slot;
  }
  // The thread of the access with epoch `epoch` in slot s.
  ThreadId thread_at(uint32_t s, uint32_t epoch) const { return slots_.thread_at(s, epoch); }
  // The record belongs to the thread now in its slot.
  bool current_owner(const AccessRecord& r) const {
    return r.epoch >= threads_[r.thread].first_epoch;
  }

  // --- state growth -------------------------------------------------------------------------
  void ensure_thread(ThreadId t) {
    if (t >= threads_.size()) grow_threads(t);
  }
  void grow_threads(ThreadId t) {
    const size_t old = threads_.size();
    const size_t n = static_cast<size_t>(t) + 1;
    threads_.resize(n);
    held_.resize(n);
    thread_stamp_.resize(n, 0);
    live_.resize(n);
    pending_thread_.resize(n);
    epoch_ends_.resize(n);
    sigma_threads_.resize(n);
    if (n > sparse_beyond_ && !sparse_) make_sparse();
    for (size_t k = old; k < n; ++k) {
      if (sparse_) sigma_threads_[k].make_sparse();
      sigma_threads_[k].increment(static_cast<uint32_t>(k));
    }
    if (n > stride_) {  // re-layout the thread × thread tables
      size_t stride = std::max<size_t>(stride_, 8);
      while (stride < n) stride *= 2;
      reach_.set_stride(stride);
      negative_.set_stride(stride);
      if (!sparse_)
        for (ReadSlice& slice : slices_)
          if (!slice.index.empty()) slice.index.resize(stride, kNone);
      stride_ = stride;
      // Fresh live stamps (zero never equals a generation ≥ 1); the live states restart.
      for (LiveReplay& live : live_) live.epoch = 0;
      if (live_rows_.size() > live_rows_cap()) {
        for (size_t row = live_rows_cap(); row < live_rows_.size(); ++row)
          live_[live_rows_[row].owner].row = kNone;
        live_rows_.resize(live_rows_cap());
        live_rows_hand_ = 0;
      }
      live_thread_stamp_.assign(live_rows_.size() * stride_, 0);
    }
  }

  // --- many threads ---------------------------------------------------------------------------
  // Past sparse_beyond_ slots (default 1024) the thread × thread state would be slots² cells of
  // which a thread uses few (20,000 threads alive at once: gigabytes). Then reach_ and
  // negative_ keep per row only the columns set, a read slice's index is a sorted list of
  // (slot, position), and the live replays share a bounded set of stamp rows (about 32 MB).
  // Σ rows are sorted lists in both modes. Tests switch early (sparse_beyond 0) and compare.
  [[gnu::noinline]] void make_sparse() {
    sparse_ = true;
    reach_.make_sparse();
    negative_.make_sparse();
    for (std::vector<EpochRow>* rows : {&sigma_threads_, &sigma_locks_, &sigma_rlocks_})
      for (EpochRow& row : *rows) row.make_sparse();
    for (ReadSlice& slice : slices_) {
      if (slice.index.empty()) continue;
      slice.index.clear();
      for (size_t p = 0; p < slice.reads.size(); ++p)
        note_reader(slice, slice.reads[p].thread, static_cast<uint32_t>(p));
    }
  }
  // Σ rows for new ids, in the current form.
  void grow_sparse_rows(std::vector<EpochRow>& rows, size_t n) {
    const size_t old = rows.size();
    rows.resize(n);
    if (sparse_)
      for (size_t i = old; i < n; ++i) rows[i].make_sparse();
  }
  size_t live_rows_cap() const {
    if (!sparse_) return SIZE_MAX;
    if (live_rows_budget_ != 0) return live_rows_budget_;
    const size_t words = stride_ + 2 * holder_.size() + 1;
    return std::max<size_t>(16, (size_t{8} << 20) / words);
  }
  uint32_t* live_thread_stamps(uint32_t row) {
    return live_thread_stamp_.data() + static_cast<size_t>(row) * stride_;
  }
  // Gives slot j a row of live stamps: a new one, or (at the cap) the next one in turn.
  [[gnu::noinline]] void take_live_row(uint32_t j) {
    uint32_t row;
    if (live_rows_.size() < live_rows_cap()) {
      row = static_cast<uint32_t>(live_rows_.size());
      LiveRow& fresh = live_rows_.emplace_back();
      fresh.locks.assign(holder_.size(), 0);
      if (read_locks_) fresh.read_locks.assign(holder_.size(), 0);
      live_thread_stamp_.resize(live_rows_.size() * stride_, 0);
    } else {
      row = static_cast<uint32_t>(live_rows_hand_);
      live_rows_hand_ = (live_rows_hand_ + 1) % live_rows_.size();
      LiveReplay& evicted = live_[live_rows_[row].owner];
      evicted.row = kNone;
      evicted.epoch = 0;
    }
    live_rows_[row].owner = j;
    live_[j].row = row;
  }
  void clear_live_row(uint32_t row) {
    std::fill_n(live_thread_stamps(row), stride_, 0);
    std::fill(live_rows_[row].locks.begin(), live_rows_[row].locks.end(), 0);
    std::fill(live_rows_[row].read_locks.begin(), live_rows_[row].read_locks.end(), 0);
  }
  void ensure_lock(LockId l) {
    if (l >= holder_.size()) grow_locks(l);
  }
  [[gnu::noinline]] void grow_locks(LockId l) {
    holder_.resize(static_cast<size_t>(l) + 1, kNone);
    lock_stamp_.resize(holder_.size(), 0);
    last_release_.resize(holder_.size());
    pending_lock_.resize(holder_.size());
    grow_sparse_rows(sigma_locks_, holder_.size());
    for (LiveRow& row : live_rows_) row.locks.resize(holder_.size(), 0);
    if (read_locks_) grow_read_tokens();
  }
  // The R tokens of locks exist from the first read-lock event on (traces without read locks
  // pay nothing for them).
  void enable_read_locks() {
    if (read_locks_) return;
    read_locks_ = true;
    grow_read_tokens();
  }
  [[gnu::noinline]] void grow_read_tokens() {
    const size_t locks = holder_.size();
    rlock_stamp_.resize(locks, 0);
    last_read_release_.resize(locks);
    for (LiveRow& row : live_rows_) row.read_locks.resize(locks, 0);
    grow_sparse_rows(sigma_rlocks_, locks);
  }
  void ensure_variable(VariableId x) {
    if (x >= variables_.size()) variables_.resize(static_cast<size_t>(x) + 1);
  }

  AccessRecord record(EventId id, const Event& e) const {
    const ThreadState& ts = threads_[cur_];
    return AccessRecord{
        id, end_ << 1 | (e.op == Op::Write ? 1u : 0u), cur_, ts.epoch, ts.innermost, e.location};
  }
  // The read of the thread now in slot s in the slice, or nullptr.
  AccessRecord* find_reader(ReadSlice& slice, uint32_t s) {
    if (!slice.index.empty()) {
      const uint32_t p = slice.index[s];
      return p != kNone && current_owner(slice.reads[p]) ? &slice.reads[p] : nullptr;
    }
    if (!slice.sorted.empty()) {
      const auto it = lower_reader(slice, s);
      if (it == slice.sorted.end() || it->slot != s) return nullptr;
      AccessRecord& r = slice.reads[it->position];
      return current_owner(r) ? &r : nullptr;
    }
    for (AccessRecord& r : slice.reads)
      if (r.thread == s && current_owner(r)) return &r;
    return nullptr;
  }
  void add_reader(ReadSlice& slice, const AccessRecord& r) {
    slice.reads.push_back(r);
    const auto last = static_cast<uint32_t>(slice.reads.size() - 1);
    if (!slice.index.empty() || !slice.sorted.empty()) {
      note_reader(slice, r.thread, last);
    } else if (slice.reads.size() > kIndexFrom) {
      if (!sparse_) slice.index.assign(stride_, kNone);
      for (uint32_t p = 0; p <= last; ++p) note_reader(slice, slice.reads[p].thread, p);
    }
  }
  // The index entry of slot s: its read is reads[p].
  void note_reader(ReadSlice& slice, uint32_t s, uint32_t p) {
    if (!sparse_) {
      slice.index[s] = p;
      return;
    }
    const auto it = lower_reader(slice, s);
    if (it != slice.sorted.end() && it->slot == s)
      it->position = p;
    else
      slice.sorted.insert(it, ReaderAt{s, p});
  }
  static std::vector<ReaderAt>::iterator lower_reader(ReadSlice& slice, uint32_t s) {
    return std::lower_bound(slice.sorted.begin(), slice.sorted.end(), s,
                            [](const ReaderAt& a, uint32_t slot) { return a.slot < slot; });
  }
  // Calls f(record) for every read since the last write (LSR).
  template <typename F>
  void for_each_reader(VariableState& v, F f) {
    if (v.reader.event == kSharedReads) {
      for (AccessRecord& r : slices_[v.reader.bits].reads) f(r);
    } else if (v.reader.defined()) {
      f(v.reader);
    }
  }

  void report(const AccessRecord& first, EventId id, const Event& e) {
    const Access a{first.event, thread_at(first.thread, first.epoch), first.location, first.op()};
    // Two reads: a discipline violation, not a data race (the engine's extras count them).
    if (a.known() && a.op == Op::Read && e.op == Op::Read) ++sink_.extras().read_read_pairs;
    sink_.report(Race{a, Access::of(id, e), e.target});
  }

  // --- the three access rules -------------------------------------------------------------
  // §3 rules 2/3: LS(q) ∩ LH(t) = ∅ is a race; LS(q) := LH(t) in both cases (restart rule).
  void access(EventId id, const Event& e) {
    VariableState& v = variables_[e.target];
    if (v.last.defined() && !ordered(v.last, cur_)) report(v.last, id, e);
    v.last = record(id, e);
  }

  // §6 read: the last write must be ordered before; LSR(q, t) := LH(t).
  void read_rw(EventId id, const Event& e) {
    VariableState& v = variables_[e.target];
    if (v.last.defined() && !ordered(v.last, cur_)) report(v.last, id, e);
    const AccessRecord now = record(id, e);
    if (v.reader.event == kSharedReads) {
      ReadSlice& slice = slices_[v.reader.bits];
      if (AccessRecord* mine = find_reader(slice, cur_))
        *mine = now;
      else
        add_reader(slice, now);
    } else if (!v.reader.defined() || (v.reader.thread == cur_ && current_owner(v.reader))) {
      v.reader = now;
    } else {  // a second thread reads: switch to a shared slice (an earlier thread of the same
              // slot keeps its record there too)
      uint64_t index;
      if (free_slices_.empty()) {
        index = slices_.size();
        slices_.emplace_back();
      } else {
        index = free_slices_.back();
        free_slices_.pop_back();
      }
      ReadSlice& slice = slices_[index];
      add_reader(slice, v.reader);
      add_reader(slice, now);
      v.reader.event = kSharedReads;
      v.reader.bits = index;
    }
  }

  // §6 write: the last write and every read since must be ordered before; LSW(q) := LH(t) and
  // no reads since.
  void write_rw(EventId id, const Event& e) {
    VariableState& v = variables_[e.target];
    if (v.last.defined() && !ordered(v.last, cur_)) report(v.last, id, e);
    if (v.reader.event == kSharedReads) {
      ReadSlice& slice = slices_[v.reader.bits];
      for (const AccessRecord& r : slice.reads)
        if (!ordered(r, cur_)) report(r, id, e);
      slice.reads.clear();
      slice.index.clear();
      slice.sorted.clear();
      free_slices_.push_back(v.reader.bits);
    } else if (v.reader.defined() && !ordered(v.reader, cur_)) {
      report(v.reader, id, e);
    }
    v.last = record(id, e);
    v.reader = AccessRecord{};
  }

  // --- is access `r` happens-before thread t's current event? -------------------------------
  [[gnu::always_inline]] bool ordered(const AccessRecord& r, ThreadId t) {
    const ThreadId j = r.thread;
    if (j == t) return true;                                   // 1
    if (r.lock != kNone && holder_[r.lock] == t) return true;  // 2
    if (reach_.get(t, j) >= r.epoch) return true;              // 3
    return ordered_slow(r, t);
  }
  [[gnu::noinline]] bool ordered_slow(const AccessRecord& r, ThreadId t) {
    const ThreadId j = r.thread;
    if (threads_[j].epoch == r.epoch) return false;  // 4
    const uint64_t in_next = threads_[t].in_next;
    if (in_next <= r.position()) return false;  // 5
    const Negative no = negative_.get(t, j);
    if (no.in_next == in_next && r.epoch >= no.epoch) return false;  // 6
    const bool yes = replay_live(r, in_next, t);                     // 7
    if (!yes) negative_.at(t, j) = Negative{r.epoch, in_next};
    return yes;
  }

  // Direct edges into check 3's memo: epoch c of thread j happens before thread t's next event.
  void raise_reach(ThreadId t, ThreadId j, uint32_t c) {
    uint32_t& reach = reach_.at(t, j);
    reach = std::max(reach, c);
  }

  uint32_t next_generation() {
    if (++generation_ == 0) {
      std::fill(thread_stamp_.begin(), thread_stamp_.end(), 0);
      std::fill(lock_stamp_.begin(), lock_stamp_.end(), 0);
      std::fill(rlock_stamp_.begin(), rlock_stamp_.end(), 0);
      generation_ = 1;
    }
    return generation_;
  }

  // Replays list positions [max(r.position, base_), to) on S(r.thread, r.epoch); returns true as
  // soon as `target` joins S. Members are stamped with generation_ (plus, for a record older
  // than the list start, the tokens Σ says are in S).
  bool replay(const AccessRecord& r, uint64_t to, ThreadId target) {
    return r.position() >= base_ ? replay_from<false>(r, to, target)
                                 : replay_from<true>(r, to, target);
  }

  // Check 7 with the live state of r.thread: S(j, c) as the last replay of j's epoch c left it
  // at list position live.end. Within epoch c, S stays {j} until j's next outgoing event, so a
  // live state of the same epoch is S(j, c) for every record of that epoch, whatever position
  // it started from; the replay continues from live.end instead of restarting at the record. If
  // live.end ≥ to, t ∈ S is already decided: t has no incoming entry at positions ≥ to.
  //
  // The replay visits only the entries that can change S (section "Replay index"): the outgoing
  // entries of its threads and the acquires of its locks, in list order, by following the links
  // of the entries from a min-heap of positions (one per member thread, one per member lock).
  // Entries no member touches are never read: with thousands of locks S(j, c) = {j, l} can wait
  // across tens of thousands of entries for the next acquire of l.
  bool replay_live(const AccessRecord& r, uint64_t to, ThreadId target) {
    const ThreadId j = r.thread;
    const uint32_t c = r.epoch;
    LiveReplay& live = live_[j];
    if (live.epoch != c || live.end < base_) {
      if (r.position() < base_) return replay_from<true>(r, to, target);
      if (live.row == kNone) take_live_row(j);
      LiveRow& row = live_rows_[live.row];
      if (++row.generation == 0) {
        clear_live_row(live.row);
        row.generation = 1;
      }
      live.epoch = c;
      live.end = r.position();
      live_thread_stamps(live.row)[j] = row.generation;
      row.heap.clear(r.position());
      row.waiting.clear();
      // The first entry that can change S(j, c) = {j}: j's outgoing entry that ended epoch c.
      push_position(row, epoch_ends_[j][c - 1]);
    }
    LiveRow& row = live_rows_[live.row];
    const uint32_t g = row.generation;
    uint32_t* ts = live_thread_stamps(live.row);
    if (ts[target] == g) return true;
    if (live.end >= to) return false;
    resume_waiting(row);
    uint32_t* ls = row.locks.data();
    uint32_t* rls = read_locks_ ? row.read_locks.data() : nullptr;
    const SyncEntry* const begin = list_.data() - base_;
    bool found = false;
    // k joins S at the entry at `at`; its next outgoing entry is the entry's link `link`.
    // Shortcut: k joins S in its epoch e (k is the entry's thread: an acquire or a join), so
    // from k's next outgoing entry on S(j, c) ⊇ S(k, e); the memo reach[t][k] ≥ e says t is in
    // S(k, e) by its next event, so t is in S(j, c) by then too.
    auto add_thread = [&](ThreadId k, uint64_t at, uint32_t SyncEntry::*link) {
      ts[k] = g;
      uint32_t& reach = reach_.at(k, j);
      reach = std::max(reach, c);
      if (k == target ||
          (link == &SyncEntry::next_out && reach_.get(target, k) >= begin[at].epoch)) {
        found = true;
      }
      follow(row, at, link);
    };
    // A token of lock l joins S at the release at `at`: the acquires of l after it matter (one
    // heap position per lock, whichever of its tokens came first).
    auto add_lock = [&](uint32_t* stamps, LockId l, uint64_t at) {
      if (stamps[l] == g) return;
      const bool watched = ls[l] == g || (rls && rls[l] == g);
      stamps[l] = g;
      if (!watched) follow(row, at, &SyncEntry::next_other);
    };
    uint64_t at;
    while (row.heap.pop_below(to, at)) {
      const SyncEntry& e = begin[at];
      switch (e.op) {  // acquires come from a lock's position, the others from a thread's
        case Op::Acquire:
          if ((ls[e.target] == g || (rls && rls[e.target] == g)) && ts[e.thread] != g)
            add_thread(e.thread, at, &SyncEntry::next_out);
          follow(row, at, &SyncEntry::next_other);
          break;
        case Op::ReadAcquire:
        case Op::Recv:
          if (ls[e.target] == g && ts[e.thread] != g)
            add_thread(e.thread, at, &SyncEntry::next_out);
          follow(row, at, &SyncEntry::next_other);
          break;
        case Op::Release:
        case Op::Send:
          add_lock(ls, e.target, at);
          follow(row, at, &SyncEntry::next_out);
          break;
        case Op::ReadRelease:
          add_lock(rls, e.target, at);
          follow(row, at, &SyncEntry::next_out);
          break;
        case Op::Fork:
          if (ts[e.target] != g) add_thread(e.target, at, &SyncEntry::next_other);
          follow(row, at, &SyncEntry::next_out);
          break;
        case Op::Join:  // from the joined thread's position
          if (ts[e.thread] != g) add_thread(e.thread, at, &SyncEntry::next_out);
          follow(row, at, &SyncEntry::next_other);
          break;
        default:
          break;
      }
      if (found) {
        live.end = at + 1;
        raise_reach(target, j, c);
        return true;
      }
    }
    live.end = to;
    return false;
  }

  // --- replay index ---------------------------------------------------------------------------
  // Every entry links to the next entry its thread and its lock (or target thread) can be
  // followed to (SyncEntry). A link is filled in when that later entry is appended: each thread
  // and each lock keeps the entries still waiting for it (pending_). epoch_ends_ gives the entry
  // that ended each epoch of a slot (a replay of epoch c starts there).
  struct Pending {
    uint64_t position;
    uint32_t SyncEntry::*link;
  };
  void link_entry(const SyncEntry& entry, uint64_t position) {
    auto settle = [&](std::vector<Pending>& pending) {
      for (const Pending& p : pending)
        if (p.position >= base_)
          list_[p.position - base_].*p.link = static_cast<uint32_t>(position - p.position);
      pending.clear();
    };
    switch (entry.op) {
      case Op::Acquire:
      case Op::ReadAcquire:
      case Op::Recv:
        settle(pending_lock_[entry.target]);
        pending_lock_[entry.target].push_back(Pending{position, &SyncEntry::next_other});
        break;
      case Op::Release:
      case Op::ReadRelease:
      case Op::Send:
        settle(pending_thread_[entry.thread]);
        epoch_ends_[entry.thread].at.push_back(position);
        pending_lock_[entry.target].push_back(Pending{position, &SyncEntry::next_other});
        break;
      case Op::Fork:
        settle(pending_thread_[entry.thread]);
        epoch_ends_[entry.thread].at.push_back(position);
        pending_thread_[entry.target].push_back(Pending{position, &SyncEntry::next_other});
        break;
      case Op::Join:
        settle(pending_thread_[entry.target]);
        epoch_ends_[entry.target].at.push_back(position);
        pending_thread_[entry.target].push_back(Pending{position, &SyncEntry::next_other});
        break;
      default:
        break;
    }
    pending_thread_[entry.thread].push_back(Pending{position, &SyncEntry::next_out});
  }
  // Per slot: the list position of the entry that ended epoch c is at[c - 1 - dropped].
  struct EpochEnds {
    std::vector<uint64_t> at;
    uint64_t dropped = 0;
    uint64_t operator[](uint64_t i) const { return at[i - dropped]; }
  };
  // The members of a live state are stamped with the generation of its row of stamps. Dense:
  // a thread gets a row at its first replay and keeps it. Sparse: at most live_rows_cap_ rows;
  // a thread without one takes the next row in turn, whose owner's live state is dropped (its
  // next replay restarts at the record: only the speed-up is lost).
  struct LiveReplay {
    uint32_t epoch = 0;  // 0: none
    uint32_t row = kNone;
    uint64_t end = 0;
  };
  struct LiveRow {
    uint32_t owner = kNone;
    uint32_t generation = 0;
    PositionQueue heap;                // positions of the members' next entries
    std::vector<Pending> waiting;      // members whose next entry is not in the list yet
    std::vector<uint32_t> locks;       // per lock (W tokens)
    std::vector<uint32_t> read_locks;  // per lock (R tokens)
  };
  // After a trim to `cut`: entries below it wait for no link any more, and a live replay that
  // waits at such an entry restarts (its link cannot be read).
  void drop_links_below(uint64_t cut) {
    auto below = [cut](const Pending& p) { return p.position < cut; };
    for (std::vector<Pending>& pending : pending_thread_) std::erase_if(pending, below);
    for (std::vector<Pending>& pending : pending_lock_) std::erase_if(pending, below);
    for (EpochEnds& ends : epoch_ends_) {
      const auto kept = std::lower_bound(ends.at.begin(), ends.at.end(), cut);
      ends.dropped += static_cast<uint64_t>(kept - ends.at.begin());
      ends.at.erase(ends.at.begin(), kept);
    }
    for (LiveRow& row : live_rows_) {
      if (row.owner == kNone) continue;
      if (std::any_of(row.waiting.begin(), row.waiting.end(), below)) {
        live_[row.owner].epoch = 0;
        row.waiting.clear();
      }
    }
  }
  void push_position(LiveRow& row, uint64_t position) { row.heap.push(position); }
  // Continues at the entry `link` of the entry at `at` leads to, or waits for it.
  void follow(LiveRow& row, uint64_t at, uint32_t SyncEntry::*link) {
    const uint32_t step = list_[at - base_].*link;
    if (step != 0)
      push_position(row, at + step);
    else
      row.waiting.push_back(Pending{at, link});
  }
  // Links filled in since a position waited go to the heap.
  void resume_waiting(LiveRow& row) {
    size_t kept = 0;
    for (size_t i = 0; i < row.waiting.size(); ++i) {
      const Pending w = row.waiting[i];
      const uint32_t step = list_[w.position - base_].*w.link;
      if (step != 0)
        push_position(row, w.position + step);
      else
        row.waiting[kept++] = w;
    }
    row.waiting.resize(kept);
  }

  template <bool kFromSummary>
  bool replay_from(const AccessRecord& r, uint64_t to, ThreadId target) {
    const ThreadId j = r.thread;
    const uint32_t c = r.epoch;
    const uint32_t g = next_generation();
    uint32_t* ts = thread_stamp_.data();
    uint32_t* ls = lock_stamp_.data();
    uint32_t* rls = rlock_stamp_.data();
    auto in_thread = [&](ThreadId k) {
      return ts[k] == g || (kFromSummary && sigma_threads_[k].get(j) >= c);
    };
    auto in_lock = [&](LockId l) {
      return ls[l] == g || (kFromSummary && sigma_locks_[l].get(j) >= c);
    };
    auto in_rlock = [&](LockId l) {
      return read_locks_ && (rls[l] == g || (kFromSummary && sigma_rlocks_[l].get(j) >= c));
    };
    auto add_thread = [&](ThreadId k) {
      ts[k] = g;
      uint32_t& reach = reach_.at(k, j);
      reach = std::max(reach, c);
    };
    // The entry's thread joined S in the entry's epoch: the shortcut of replay_live (not when
    // materialising a whole set, target kNone).
    auto shortcut = [&](const SyncEntry& e) {
      if (target == kNone || reach_.get(target, e.thread) < e.epoch) return false;
      raise_reach(target, j, c);
      return true;
    };
    if (!kFromSummary) ts[j] = g;
    const uint64_t from = std::max(r.position(), base_);
    const SyncEntry* p = list_.data() + (from - base_);
    const SyncEntry* const stop = list_.data() + (to - base_);
    for (; p < stop; ++p) {
      switch (p->op) {
        case Op::Acquire:
          if ((in_lock(p->target) || in_rlock(p->target)) && !in_thread(p->thread)) {
            add_thread(p->thread);
            if (p->thread == target || shortcut(*p)) return true;
          }
          break;
        case Op::ReadAcquire:
        case Op::Recv:
          if (in_lock(p->target) && !in_thread(p->thread)) {
            add_thread(p->thread);
            if (p->thread == target || shortcut(*p)) return true;
          }
          break;
        case Op::Release:
        case Op::Send:
          if (in_thread(p->thread)) ls[p->target] = g;
          break;
        case Op::ReadRelease:
          if (in_thread(p->thread)) rls[p->target] = g;
          break;
        case Op::Fork:
          if (in_thread(p->thread) && !in_thread(p->target)) {
            add_thread(p->target);
            if (p->target == target) return true;
          }
          break;
        case Op::Join:
          if (in_thread(p->target) && !in_thread(p->thread)) {
            add_thread(p->thread);
            if (p->thread == target || shortcut(*p)) return true;
          }
          break;
        default:
          break;
      }
    }
    return false;
  }

  // The paper's lock set of record `r` now: S ∪ {locks held by threads of S}. (Annotating runs
  // without slot reuse: each slot has one thread.)
  GoldilocksSet materialize(const AccessRecord& r) {
    GoldilocksSet set;
    if (!r.defined()) return set;
    set.undefined = false;
    replay(r, end_, kNone);
    const uint32_t g = generation_;
    const bool summary = r.position() < base_;
    for (uint32_t k = 0; k < threads_.size(); ++k) {
      if (thread_stamp_[k] == g || (summary && sigma_threads_[k].get(r.thread) >= r.epoch)) {
        set.threads.push_back(slots_.tenant(k));
        add_held(k, set);
      }
    }
    std::sort(set.threads.begin(), set.threads.end());
    for (LockId l = 0; l < holder_.size(); ++l) {
      if (lock_stamp_[l] == g || (summary && sigma_locks_[l].get(r.thread) >= r.epoch))
        set.locks.push_back(l);
      if (read_locks_ &&
          (rlock_stamp_[l] == g || (summary && sigma_rlocks_[l].get(r.thread) >= r.epoch)))
        set.read_locks.push_back(l);
    }
    normalize(set);
    return set;
  }

  // LS (§3) or LSW, LSR (§6) of variable x, formatted.
  void describe_variable(VariableId x, std::vector<std::string>& out) {
    VariableState& v = variables_[x];
    out.push_back(format_goldilocks_set(materialize(v.last), symbols_));
    if (!rw_) return;
    std::vector<std::pair<ThreadId, const AccessRecord*>> readers;
    for_each_reader(
        v, [&](const AccessRecord& r) { readers.emplace_back(thread_at(r.thread, r.epoch), &r); });
    std::sort(readers.begin(), readers.end());
    std::string lsr;
    for (const auto& [thread, r] : readers) {
      if (!lsr.empty()) lsr += "; ";
      lsr += std::string(symbols_.threads.name(thread)) + ":" +
             format_goldilocks_set(materialize(*r), symbols_);
    }
    out.push_back(lsr.empty() ? "-" : lsr);
  }

  // --- the global list ---------------------------------------------------------------------
  void append(const SyncEntry& entry) {
    if (list_.size() >= trim_at_) trim();
    list_.push_back(entry);
    link_entry(entry, end_);
    ++end_;
  }

  // Drops the older half of the list. Entries below every record are dropped as they are
  // (no record can replay them; only the threads' own epochs in Σ are advanced); the others
  // are first folded into Σ.
  void trim() {
    const uint64_t cut = end_ - trim_at_ / 2;
    uint64_t oldest = end_;
    uint64_t records = 0;
    auto visit = [&](const AccessRecord& r) {
      oldest = std::min(oldest, r.position());
      ++records;
    };
    for (VariableState& v : variables_) {
      if (v.last.defined()) visit(v.last);
      for_each_reader(v, visit);
    }
    const uint64_t fold_from = std::clamp(oldest, base_, cut);
    bool folded = false;
    for (uint64_t i = base_; i < cut; ++i) {
      const SyncEntry& e = list_[i - base_];
      if (i < fold_from) {
        advance_own_epoch(e);
      } else {
        fold(e);
        folded = true;
      }
    }
    if (folded) {
      for (size_t k = 0; k < threads_.size(); ++k) {
        sigma_threads_[k].for_each([&](uint32_t slot, uint32_t epoch) {
          uint32_t& reach = reach_.at(k, slot);
          reach = std::max(reach, epoch);
        });
      }
    }
    list_.erase(list_.begin(), list_.begin() + static_cast<std::ptrdiff_t>(cut - base_));
    base_ = cut;
    drop_links_below(cut);
    // Links are 32-bit distances: the list stays below 2^31 entries.
    trim_at_ = std::min(std::max(min_trim_, records_factor_ * records), uint64_t{1} << 31);
  }

  void advance_own_epoch(const SyncEntry& e) {
    switch (e.op) {
      case Op::Release:
      case Op::ReadRelease:
      case Op::Send:
      case Op::Fork:
        sigma_threads_[e.thread].increment(e.thread);
        break;
      case Op::Join:
        sigma_threads_[e.target].increment(e.target);
        break;
      default:
        break;
    }
  }

  // Σ as vector clocks of epochs: the rules above applied to all lock sets at once.
  void fold(const SyncEntry& e) {
    switch (e.op) {
      case Op::Acquire:
        sigma_threads_[e.thread].join(sigma_locks_[e.target], sigma_scratch_);
        if (read_locks_) sigma_threads_[e.thread].join(sigma_rlocks_[e.target], sigma_scratch_);
        break;
      case Op::ReadAcquire:
      case Op::Recv:
        sigma_threads_[e.thread].join(sigma_locks_[e.target], sigma_scratch_);
        break;
      case Op::Release:
      case Op::Send:
        sigma_locks_[e.target].join(sigma_threads_[e.thread], sigma_scratch_);
        sigma_threads_[e.thread].increment(e.thread);
        break;
      case Op::ReadRelease:
        sigma_rlocks_[e.target].join(sigma_threads_[e.thread], sigma_scratch_);
        sigma_threads_[e.thread].increment(e.thread);
        break;
      case Op::Fork:
        sigma_threads_[e.target].join(sigma_threads_[e.thread], sigma_scratch_);
        sigma_threads_[e.thread].increment(e.thread);
        break;
      case Op::Join:
        sigma_threads_[e.thread].join(sigma_threads_[e.target], sigma_scratch_);
        sigma_threads_[e.target].increment(e.target);
        break;
      default:
        break;
    }
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  const bool rw_;
  const uint64_t min_trim_;
  const uint64_t records_factor_;

  // Thread slots (section "thread slots"): the slot per thread id (none yet, or its slot went
  // to another thread), the threads of each slot with their first epochs, and the slots of
  // joined threads (FreeSlot: `last` the last epoch of its thread's events, `at` the list
  // position of its (first) join).
  SlotMap slots_;
  size_t slot_budget_;
  uint32_t cur_ = 0;  // the slot of the current event's thread

  std::vector<ThreadState> threads_;       // per slot
  std::vector<std::vector<LockId>> held_;  // LH(t) without t, in acquisition order
  // Thread × thread tables, row t, column j (stride_ ≥ threads): reach: the largest epoch of j
  // known to happen before t's next event; negative: check 6.
  size_t stride_ = 0;
  ThreadTable<uint32_t> reach_;
  ThreadTable<Negative> negative_;
  // Past sparse_beyond_ slots the tables above, the read slices' indexes and the live replays
  // switch to the forms that follow the threads in use (section "Many threads").
  const size_t sparse_beyond_;
  bool sparse_ = false;
  std::vector<ThreadId> holder_;  // per lock: the thread holding it, kNone if free
  // Per lock: the thread that released it last and its epoch before that release; an acquire
  // puts that epoch into the acquirer's row of reach_ (check 3) without a replay.
  struct LastRelease {
    ThreadId thread = kNone;
    uint32_t epoch = 0;
  };
  std::vector<LastRelease> last_release_;       // write releases
  std::vector<LastRelease> last_read_release_;  // read releases (once read_locks_)
  bool read_locks_ = false;                     // a read-lock event was seen: R tokens exist
  std::vector<VariableState> variables_;
  std::vector<ReadSlice> slices_;
  std::vector<uint64_t> free_slices_;

  std::vector<SyncEntry> list_;                       // positions [base_, end_)
  std::vector<std::vector<Pending>> pending_thread_;  // per slot
  std::vector<std::vector<Pending>> pending_lock_;    // per lock
  std::vector<EpochEnds> epoch_ends_;                 // per slot
  uint64_t base_ = 0;
  uint64_t end_ = 0;
  uint64_t trim_at_;
  std::vector<EpochRow> sigma_threads_;  // Σ rows of threads (at position base_)
  std::vector<EpochRow> sigma_locks_;    // Σ rows of locks (W tokens)
  std::vector<EpochRow> sigma_rlocks_;   // Σ rows of the R tokens of locks
  std::vector<EpochRow::Cell> sigma_scratch_;

  // Live replay states, one per thread j (check 7): S(j, live.epoch) at list position live.end;
  // members are stamped with live.generation in row j of the live stamp tables.
  std::vector<LiveReplay> live_;  // per slot
  std::vector<LiveRow> live_rows_;
  std::vector<uint32_t> live_thread_stamp_;  // per row: per slot (stride_)
  const size_t live_rows_budget_;
  size_t live_rows_cap_ = SIZE_MAX;
  size_t live_rows_hand_ = 0;

  std::vector<uint32_t> thread_stamp_;  // replay membership: stamp == generation_
  std::vector<uint32_t> lock_stamp_;
  std::vector<uint32_t> rlock_stamp_;
  uint32_t generation_ = 0;

  std::vector<std::string> before_;  // annotation: the lock sets before the current access
};

}  // namespace

void normalize(GoldilocksSet& set) {
  for (std::vector<LockId>* v : {&set.locks, &set.read_locks}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::erase_if(set.read_locks, [&](LockId l) {
    return std::binary_search(set.locks.begin(), set.locks.end(), l);
  });
}

std::string format_goldilocks_set(const GoldilocksSet& set, const Symbols& symbols) {
  if (set.undefined) return "⊥";
  std::string s = "{";
  bool first = true;
  auto item = [&](std::string_view prefix, std::string_view name) {
    if (!first) s += ", ";
    first = false;
    s += prefix;
    s += name;
  };
  for (ThreadId t : set.threads) item("", symbols.threads.name(t));
  for (LockId l : set.locks) item("", symbols.locks.name(l));
  for (LockId l : set.read_locks) item("r:", symbols.locks.name(l));
  return s + "}";
}

std::unique_ptr<Engine> make_goldilocks_lazy(EngineContext& context,
                                             GoldilocksDiscipline discipline,
                                             GoldilocksLazyOptions options) {
  return std::make_unique<GoldilocksLazy>(context, discipline, options);
}

std::unique_ptr<Engine> make_goldilocks(EngineContext& context) {
  return make_goldilocks_lazy(context, GoldilocksDiscipline::MutEx);
}
std::unique_ptr<Engine> make_goldilocks_rw(EngineContext& context) {
  return make_goldilocks_lazy(context, GoldilocksDiscipline::ConcurrentReads);
}

}  // namespace racepred
