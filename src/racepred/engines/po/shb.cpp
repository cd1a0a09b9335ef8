// shb: schedulable happens-before (Mathur, Kini, Viswanathan, OOPSLA 2018): HB (with fork and
// join) plus an edge from the last write of every read to the read. Sulzmann and Thiemann,
// "Cross-thread critical sections and efficient dynamic race prediction methods" §8 recalls it
// ("all detected races have viable schedules") and notes that cross-thread critical sections do
// not affect it. Algorithm as in RAPID's SHB (Mathur, Kini, Viswanathan, OOPSLA 2018), with the
// race check of a read made before its last-write edge is joined.
//
// State (paper notation):
//   C_t    SHB time of thread t's current event (C_t(t) = 1 at start; +1 after each release,
//          fork and write, the events whose time escapes)
//   L_l    C of the last release of lock l
//   LW_x   C of the last write of x (a full vector clock)
//   W_x, R_x   C_u(u) of the latest write / read of x per thread u (race check)
//
//   acq(t,l):   C_t := C_t ⊔ L_l
//   rel(t,l):   L_l := C_t;  C_t(t) += 1
//   fork(t,u):  C_u := C_u ⊔ C_t;  C_t(t) += 1
//   join(t,u):  C_t := C_t ⊔ C_u
//   r(t,x):     race with every W_x(u) > C_t(u);  C_t := C_t ⊔ LW_x;  R_x(t) := C_t(t)
//   w(t,x):     race with every W_x(u), R_x(u) > C_t(u);  W_x(t) := C_t(t);  LW_x := C_t;
//               C_t(t) += 1
// Read-write locks (docs/ENGINES.md, "Read-write locks"): LR_l joins the read releases of l,
// which a write acquire joins and a read acquire does not (read sections are not ordered):
//   racq(t,l):  C_t := C_t ⊔ L_l
//   rrel(t,l):  LR_l := LR_l ⊔ C_t;  C_t(t) += 1
//   acq(t,l):   C_t := C_t ⊔ L_l ⊔ LR_l
// Synchronisation orders (docs/ENGINES.md, "Synchronisation orders"): S_o joins every send on o,
// a hard edge like fork/join:
//   send(t,o):  S_o := S_o ⊔ C_t;  C_t(t) += 1
//   recv(t,o):  C_t := C_t ⊔ S_o
// Every reported pair is a race under the enabled notion (`exact --enabled`): both events are
// enabled after some correct reordering that keeps HB and every read's last write.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "racepred/clock/thread_clocks.hpp"
#include "racepred/engines/clock_options.hpp"
#include "racepred/engines/po/po_common.hpp"
#include "racepred/engines/witness_source.hpp"

namespace racepred::po {
namespace {

// The optimised version (engine `shb`), with memory proportional to what is live:
//  - C_t, L_l, LR_l are the clock kit's ThreadClocks: rows indexed by slot, and a joined
//    thread's slot is given to a new thread once its forker knows all of the old one
//    (reuse_slots_beyond; clock/thread_clocks.hpp), so with thread churn the stride follows the
//    threads alive at once. The tick discipline is shb's (after release, fork, write only).
//  - W_x, R_x: per variable only the threads that accessed it (SparseHistory, po_common.hpp), each
//  entry
//    with its thread, its slot and its time there: an entry of a thread whose slot was reused
//    keeps its epoch s#k, which a later event knows iff k <= C(s) (the new tenant of s starts
//    past every value of the old one), so the reported pairs are those of per-thread rows.
//  - LW_x: the writer's slot and own entry k = C_u(u), and a shared snapshot of C_u: all writes
//    of u between two changes of C_u's other entries share one reference-counted snapshot
//    (SnapshotPool), whose own entry may be older than k (joined as max(snapshot, u#k)).
//  An O(1) test before the last-write join: a thread that knows u's time k already knows all of
//  LW_x (LW_x ⊑ C_t iff k <= C_t(u)).
//  Many threads alive at once: past the kit's sparse threshold C_t, L_l and LR_l are
//  ThreadClocks' sparse clocks and the snapshots are packed (SnapshotPool::make_sparse); the
//  last-write join goes through the kit (join_into_slot, raise_slot), which keeps each unpacked
//  row's list of non-zero entries, and the engine only reads C_t.
class Shb final : public PoEngine<Shb>, public WitnessSource {
 public:
  // Every pair is witnessed by the SHB closure of its two accesses (both enabled; Mathur, Kini
  // and Viswanathan, "What happens-after the first race?", §4): built from the trace index
  // after the run, so the engine keeps nothing for it and pays nothing when not asked.
  WitnessSource* witness_source() override { return this; }
  WitnessNotion witness_notion() const override { return WitnessNotion::Enabled; }
  WitnessScope witness_scope() const override { return WitnessScope::Every; }
  std::vector<std::optional<RaceWitness>> witnesses(const TraceIndex& index,
                                                    std::span<const Race> races) override {
    return closure_witnesses(index, races, ClosureWitnesses::Order::Schedulable);
  }

  explicit Shb(EngineContext& context)
      : PoEngine<Shb>(context),
        snapshots_(SnapshotPool::kChain, snapshot_options(context.options)) {
    set_clock_options(clocks_, context.options, context.annotate);
    hist_.large_from(context.annotate ? UINT64_MAX : context.options.bulk_count_from);
  }

  void before(EventId, const Event& e) {
    if (clocks_.add_thread(e.thread)) [[unlikely]]
      restride();
  }
  void acquire(EventId, const Event& e) {
    const uint32_t s = clocks_.slot(e.thread);
    // Re-acquiring a lock whose last release t already knows (often its own) changes nothing:
    // the snapshot stays valid. LR_l is not looked at: any read use invalidates.
    if ((e.target < read_locked_.size() && read_locked_[e.target]) || learns(s, e.target))
      changed(s);
    clocks_.acquire(e.thread, e.target);  // C_t := C_t ⊔ L_l ⊔ LR_l
  }
  void read_acquire(EventId, const Event& e) {
    const uint32_t s = clocks_.slot(e.thread);
    if (e.target >= read_locked_.size()) [[unlikely]]
      read_locked_.resize(size_t{e.target} + 1, false);
    read_locked_[e.target] = true;
    if (learns(s, e.target)) changed(s);
    clocks_.read_acquire(e.thread, e.target);  // C_t := C_t ⊔ L_l
  }
  void read_release(EventId, const Event& e) {
    clocks_.read_release(e.thread, e.target);  // LR_l := LR_l ⊔ C_t
    clocks_.tick_slot(clocks_.slot(e.thread), e.thread);
  }
  void release(EventId, const Event& e) {
    const uint32_t s = clocks_.slot(e.thread);
    clocks_.release(e.thread, e.target);  // L_l := C_t
    clocks_.tick_slot(s, e.thread);
  }
  void send(EventId, const Event& e) {
    clocks_.send(e.thread, e.target);  // S_o := S_o ⊔ C_t
    clocks_.tick_slot(clocks_.slot(e.thread), e.thread);
  }
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) {
    changed(clocks_.slot(e.thread));
    clocks_.recv(e.thread, e.target);  // C_t := C_t ⊔ S_o
  }
  void fork(EventId, const Event& e) {
    if (clocks_.fork(e.thread, e.target)) restride();  // C_u := C_u ⊔ C_t
    changed(clocks_.slot(e.target));
    clocks_.tick(e.thread);
  }
  void join(EventId, const Event& e) {
    if (clocks_.join(e.thread, e.target)) restride();  // C_t := C_t ⊔ C_u
    changed(clocks_.slot(e.thread));
  }
  void read(EventId id, const Event& e) {
    const uint32_t s = clocks_.slot(e.thread);
    const ThreadClocks::RowRef ct = clocks_.th_ref_at_slot(s);
    hist_.check(*this, id, e, ct.get(), clocks_, s);  // before the last-write edge
    const size_t x = e.target;
    if (x < writer_.size() && writer_[x].snapshot != SnapshotPool::kNone) {
      const Writer& w = writer_[x];
      if (w.time > ct[w.slot]) {  // C_t := C_t ⊔ LW_x (ct stays valid)
        const Clock* lw = snapshots_.row(w.snapshot);
        if (snapshots_.sparse())  // over the snapshot's non-zero entries
          clocks_.join_into_slot(s, lw, snapshots_.row_nonzeros());
        else
          clocks_.join_into_slot(s, lw);
        clocks_.raise_slot(s, w.slot, w.time);
        changed(s);
      }
    }
    hist_.record(id, e, s, ct[s]);  // R_x(t) := C_t(t)
  }
  void write(EventId id, const Event& e) {
    const ThreadId t = e.thread;
    const uint32_t s = clocks_.slot(t);
    Clock* ct = clocks_.th_at_slot(s);
    hist_.check(*this, id, e, ct, clocks_, s);
    hist_.record(id, e, s, ct[s]);  // W_x(t) := C_t(t)
    const size_t x = e.target;
    if (x >= writer_.size()) [[unlikely]]
      writer_.resize(std::max(x + 1, writer_.size() * 3 / 2));
    Writer& w = writer_[x];
    snapshots_.unref(w.snapshot);  // LW_x := C_t
    w = Writer{s, ct[s], current_snapshot(s, t)};
    snapshots_.ref(w.snapshot);
    clocks_.tick_slot(s, t);
  }

 protected:
  void columns(const Event& e, Annotation& row) override {
    const size_t w = width(e);
    const size_t n = clocks_.stride();
    row.push_back({"C_t", show_row(clocks_.th(e.thread), n, w)});
    const bool access = e.is_access();
    std::string lw;
    if (access && e.target < writer_.size() && writer_[e.target].snapshot != SnapshotPool::kNone) {
      const Writer& wr = writer_[e.target];
      std::vector<Clock> c(snapshots_.row(wr.snapshot), snapshots_.row(wr.snapshot) + n);
      c[wr.slot] = std::max(c[wr.slot], wr.time);
      lw = show_row(c.data(), n, w);
    }
    row.push_back({"LW_x", lw});
    row.push_back({"W_x", access ? hist_.show(e.target, true) : ""});
    row.push_back({"R_x", access ? hist_.show(e.target, false) : ""});
  }

 private:
  struct Writer {  // the last write of x: its slot, its own entry C_u(u), the snapshot of C_u
    uint32_t slot = 0;
    Clock time = 0;
    uint32_t snapshot = SnapshotPool::kNone;
  };

  // The snapshot of C_t (slot s) shared by t's writes since its other entries last changed.
  uint32_t current_snapshot(uint32_t s, ThreadId t) {
    if (s >= current_.size()) [[unlikely]]
      current_.resize(std::max<size_t>(size_t{s} + 1, current_.size() * 3 / 2),
                      SnapshotPool::kNone);
    if (current_[s] == SnapshotPool::kNone) {
      if (clocks_.sparse() && !snapshots_.sparse()) [[unlikely]]
        snapshots_.make_sparse();
      // Sparse: from the row's non-zero entries, not a pass over the stride (one snapshot per
      // writing thread: the flood of many threads on one variable).
      current_[s] =
          snapshots_.sparse()
              ? snapshots_.take_entries(
                    t, [&](std::vector<SnapshotPool::Entry>& list) { clocks_.pack_slot(s, list); })
              : snapshots_.take(clocks_.th_at_slot(s), t);
      snapshots_.ref(current_[s]);  // the thread's own reference
    }
    return current_[s];
  }
  // Entries of C in slot s other than its own may have changed: its snapshot is stale.
  void changed(uint32_t s) {
    if (s < current_.size() && current_[s] != SnapshotPool::kNone) {
      snapshots_.unref(current_[s]);
      current_[s] = SnapshotPool::kNone;
    }
  }
  // L_l has an entry C_t (slot s) does not know yet.
  bool learns(uint32_t s, LockId l) { return !clocks_.knows_release(s, l); }
  [[gnu::noinline]] void restride() { snapshots_.set_stride(clocks_.stride()); }

  ThreadClocks clocks_;  // C_t (by slot), L_l, LR_l
  std::vector<Writer> writer_;
  std::vector<bool> read_locked_;  // per lock: taken in read mode at least once
  std::vector<uint32_t> current_;  // per slot: its snapshot, or kNone
  SnapshotPool snapshots_;         // LW_x
  SparseHistory hist_;
};

}  // namespace

}  // namespace racepred::po

namespace racepred {
std::unique_ptr<Engine> make_shb(EngineContext& context) {
  return std::make_unique<po::Shb>(context);
}
}  // namespace racepred
