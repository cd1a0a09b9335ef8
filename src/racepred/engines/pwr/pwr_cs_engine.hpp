// PWR^CS (Sulzmann and Thiemann Algorithm 1) and PWR-E (Sulzmann and Thiemann App. G): PWR race
// prediction whose race check uses the thread-indexed PWR lock sets LH_pwr (§6.2) instead of the
// standard lock sets. pwr_cs.cpp and pwr_e.cpp document the two engines; this is their common
// machinery.
//
// State (besides PwrClocks: Th(t), L_S(t) = LSt, L_all, Acq(x), H, LW):
//   RC(a)      race candidates of variable a: the entries of RW(a) (pwr_engine.hpp), each with
//              the record of its access when it has potential guard locks
//   record     (e, V, ls, gs): epoch and event of e, its standard lock set ls, the potential
//              guard locks z? still open (`pending`) and the confirmed guard locks (z, t)
//   W(z)       the records waiting for the release of z (registered "with the guard locks they
//              wait for", §6.3 "actual implementation"), instead of scanning every RC(a)
//   pairs      race pairs (f, e) that are PWR races (concurrent or WRD, ls disjoint) and wait
//              for a record of theirs to be resolved before RACECHECK
//
//   READ/WRITE(t, a), line 2: Th(t) = PWR(e)                      (PwrClocks: sync, w3)
//                     line 3: gs = {z? | z ∈ L_all \ L_S(t), Acq(z) ⪯ Th(t)}
//                     line 5: RC(a) ∪= {(e, Th(t), L_S(t), gs)}; register e in W(z) per z?
//   RELEASE(t, z),    line 7: for (e, V, ls, gs) in W(z): z? ∈ gs and V ⪯ Th(t)
//                     line 8:   gs' = gs \ {z?} ∪ {(z, t)}         (a guard-lock confirmation)
//                     line 10:  else gs' = gs \ {z?}
//   RACECHECK(e, f):  no z? left in gs_e, gs_f; e ∥ f (or WRD);
//                     (ls_e ∪ gs_e) ∩' (ls_f ∪ gs_f) = ∅ (locks of different threads, Def. 5.9)
// A lock still held at the end of the trace is released virtually after its thread's last
// event (as the exact lock sets do), so every candidate is decided by finish().
//
// Read-write locks (the standard reduction, pwr_core.hpp): every read hold of z is a hold of
// its own (the reduced lock (z,t)), so W(z) records the holder each record waits for and a read
// release confirms only its own waiters; a confirmed guard keeps its mode, and in RACECHECK a
// lock meets another hold of it unless both are read holds.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <unordered_set>
#include <utility>
#include <vector>

#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/pwr/pwr_core.hpp"
#include "racepred/engines/pwr/pwr_engine.hpp"

namespace racepred::pwr {

// A cross-thread guard lock (Sulzmann and Thiemann, "Cross-thread critical sections…", §6.3):
// `lock` held by `thread` around an access of another thread (acq <PWR access <PWR rel), i.e. an
// element (lock, thread) of LH_pwr beyond LH_S.
struct GuardLock {
  LockId lock = 0;
  ThreadId thread = 0;
  bool read = false;  // the guarding section holds the lock in read mode
};

// E1 = true: pwr-e (PWRE-3 with cross-thread sections, applied when a guard is confirmed).
template <bool E1>
class PwrCsEngine final : public DispatchEngine<PwrCsEngine<E1>> {
 public:
  PwrCsEngine(EngineContext& context, const PwrOptions& options)
      : sink_(context.sink), clocks_(options), large_(options.bulk_count_from) {
    sink_.store_all_location_pairs();  // publish_extras() asks has_location_pair()
    large_.log_members();              // and of races counted in bulk, large_
  }

  // DispatchEngine handlers.
  void before(EventId, const Event& e) { clocks_.ensure_thread(e.thread); }
  void read(EventId id, const Event& e) { access<false>(id, e); }
  void write(EventId id, const Event& e) { access<true>(id, e); }
  void acquire(EventId, const Event& e) { clocks_.acquire(e.thread, e.target); }
  void read_acquire(EventId, const Event& e) { clocks_.read_acquire(e.thread, e.target); }
  void release(EventId, const Event& e) {
    const ThreadId i = e.thread;
    clocks_.begin(i);  // Th(i) = PWR(rel)
    if (clocks_.holder(e.target) == i) release_guards(e.target, i, false);
    clocks_.release(i, e.target);
  }
  void read_release(EventId, const Event& e) {
    const ThreadId i = e.thread;
    clocks_.begin(i);
    if (clocks_.holds_read(i, e.target)) release_guards(e.target, i, true);
    clocks_.read_release(i, e.target);
  }
  void fork(EventId, const Event& e) { clocks_.fork(e.thread, e.target); }
  void join(EventId, const Event& e) { clocks_.join(e.thread, e.target); }
  void send(EventId, const Event& e) { clocks_.send(e.thread, e.target); }
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event& e) { clocks_.recv(e.thread, e.target); }
  void after(EventId, const Event& e) { clocks_.end(e.thread); }

  void finish() override {
    // Locks held at the end: virtual release after the holder's last event.
    const std::vector<PwrClocks::Held> held = clocks_.held();
    for (const PwrClocks::Held& h : held) release_guards(h.lock, h.holder, h.read);
    publish_extras();
  }

 private:
  struct CsEntry {
    Entry entry;
    uint32_t record = kNone;  // kNone: no potential guard locks at the access
  };
  struct Record {
    Epoch epoch;              // by slot
    ThreadId thread = kNone;  // the access's thread
    uint32_t pending = 0;     // potential guard locks z? not decided yet
    uint32_t refs = 0;
    std::vector<GuardLock> guards;  // confirmed (z, t)
    std::vector<uint32_t> pairs;    // undecided pairs that wait for this record
    std::vector<Clock> vc;          // pwr-e: V of the access, grown by PWRE-3
    std::vector<Clock> extra;       // pwr-e: what PWRE-3 added (the release clocks joined)
    // pwr-e, a record made while the clocks are sparse (many threads): vc is the snapshot
    // `snap` of Th(t) (shared, PwrClocks::share_snapshot) with the entry of `epoch`, until
    // PWRE-3 grows it; then vc and extra are lists of non-zero entries (slot, value). rod_cross
    // unpacks them into scratch rows.
    bool packed = false;
    uint32_t snap = kNone;
    std::vector<ThreadClocks::Entry> vc_packed, extra_packed;
  };
  struct Side {
    Access access;
    SetId lockset = LockSetTable::kEmptySet;
    uint32_t record = kNone;
  };
  struct Pair {
    Side first, second;
    VariableId variable = 0;
    uint32_t waiting = 0;
  };

  // --- records ---
  uint32_t new_record(Epoch epoch, ThreadId thread) {
    uint32_t r;
    if (!free_records_.empty()) {
      r = free_records_.back();
      free_records_.pop_back();
    } else {
      r = static_cast<uint32_t>(records_.size());
      records_.emplace_back();
    }
    Record& rec = records_[r];
    rec.epoch = epoch;
    rec.thread = thread;
    rec.pending = 0;
    rec.refs = 0;
    return r;
  }
  void ref(uint32_t r) {
    if (r != kNone) ++records_[r].refs;
  }
  void unref(uint32_t r) {
    if (r == kNone || --records_[r].refs != 0) return;
    Record& rec = records_[r];
    rec.guards.clear();
    rec.pairs.clear();
    rec.vc.clear();
    rec.extra.clear();
    if (rec.snap != kNone) clocks_.drop_snapshot(rec.snap);
    rec.snap = kNone;
    if (clocks_.sparse()) [[unlikely]] {  // rows of the stride are not reused from here on
      std::vector<Clock>().swap(rec.vc);
      std::vector<Clock>().swap(rec.extra);
    }
    rec.packed = false;
    rec.vc_packed.clear();
    rec.extra_packed.clear();
    free_records_.push_back(r);
  }

  // line 3–5: the potential guard locks of the current access of i. The set depends only on
  // L_all (with the acquires) and Th(i): when neither changed since i's last access found none,
  // it is still empty and the scan is skipped.
  uint32_t candidate(ThreadId i, Epoch epoch) {
    if (i >= scans_.size()) scans_.resize(static_cast<size_t>(i) + 1);
    Scan& last = scans_[i];
    const uint64_t lv = clocks_.lock_version(), cv = clocks_.clock_version(i);
    if (last.empty && last.locks == lv && last.clock == cv) return kNone;
    uint32_t r = kNone;
    const Clock* th = clocks_.th(i);
    for (const PwrClocks::Held& h : clocks_.held()) {
      if (h.holder == i || h.acq.clock() > th[h.acq.thread()]) continue;
      if (r == kNone) {
        r = new_record(epoch, i);
        if constexpr (E1) {
          Record& rec = records_[r];
          if (clocks_.sparse()) [[unlikely]] {
            rec.packed = true;
            rec.snap = clocks_.share_snapshot(i);
          } else {
            rec.vc.assign(th, th + clocks_.stride());
          }
        }
      }
      if (h.lock >= waiting_.size()) waiting_.resize(static_cast<size_t>(h.lock) + 1);
      waiting_[h.lock].push_back(Wait{r, h.holder});
      ++records_[r].pending;
      ref(r);
    }
    last = Scan{lv, cv, r == kNone};
    return r;
  }

  // RELEASE lines 5–15 for the records waiting for z, released by t (Th(t) = PWR(rel)); `read`:
  // t's read hold of z (the other holds of z keep their waiters).
  void release_guards(LockId z, ThreadId t, bool read) {
    if (z >= waiting_.size() || waiting_[z].empty()) return;
    std::vector<Wait> list;
    list.swap(waiting_[z]);
    for (const Wait w : list) {
      if (w.holder != t) [[unlikely]] {  // another read hold of z
        waiting_[z].push_back(w);
        continue;
      }
      const uint32_t r = w.record;
      Record& rec = records_[r];
      // (looked up per record: with sparse clocks, rod_cross's merges may unpack other rows)
      const Clock* th = clocks_.th(t);
      if (rec.epoch.clock() <= th[rec.epoch.thread()]) {  // line 7: V ⪯ Th(t)
        rec.guards.push_back(GuardLock{z, t, read});      // line 8
        ++confirmations_;
        if constexpr (E1) rod_cross(r, z, t, read);
      }
      if (--rec.pending == 0) resolve(r);
      unref(r);
    }
    list.clear();
    if (waiting_[z].empty()) waiting_[z].swap(list);  // keep the capacity
  }

  // PWRE-3 (pwr-e): the access f of record r is in the cross-thread section of z held by t.
  // Every earlier section (a1, r1) of z of another thread with a1 ⪯ V(f) has r1 <PWR-E f:
  // V(f) ⊔= V(r1), and so for every later event of f's thread: Th(u) ⊔= V(r1).
  // A read section of t skips the read sections of z (no reduced lock in common).
  void rod_cross(uint32_t r, LockId z, ThreadId t, bool read) {
    if constexpr (E1) {
      Record& rec = records_[r];
      const ThreadId u = rec.thread;
      const uint32_t ts = clocks_.slot(t);
      const bool packed = rec.packed;
      std::vector<Clock>& vc = packed ? scratch_vc_ : rec.vc;
      std::vector<Clock>& extra = packed ? scratch_extra_ : rec.extra;
      if (packed) {
        if (rec.snap != kNone)
          clocks_.unpack_snapshot(rec.snap, rec.epoch, vc);
        else
          unpack(rec.vc_packed, vc);
        unpack(rec.extra_packed, extra);
      } else {
        vc.resize(clocks_.stride(), 0);
        extra.resize(clocks_.stride(), 0);
      }
      bool joined = false;
      for (bool changed = true; changed;) {
        changed = false;
        clocks_.for_each_section(z, [&](const PwrClocks::Section& s) {
          const ThreadId j = s.acquire.thread();
          if (j == ts || (read && s.read) || s.at(j) <= vc[j] || s.acquire.clock() > vc[j]) return;
          clocks_.join_section(vc.data(), s);
          clocks_.join_section(extra.data(), s);
          clocks_.merge_into_thread(u, s);
          changed = joined = true;
        });
      }
      if (packed && joined) {
        pack(vc, rec.vc_packed);
        pack(extra, rec.extra_packed);
        if (rec.snap != kNone) clocks_.drop_snapshot(rec.snap);
        rec.snap = kNone;
      }
    }
  }
  // A packed clock into a row of the stride, and back.
  void unpack(const std::vector<ThreadClocks::Entry>& p, std::vector<Clock>& row) const {
    row.assign(clocks_.stride(), 0);
    for (const ThreadClocks::Entry& e : p) row[e.slot] = e.value;
  }
  static void pack(const std::vector<Clock>& row, std::vector<ThreadClocks::Entry>& p) {
    p.clear();
    for (size_t k = 0; k < row.size(); ++k)
      if (row[k] != 0) p.push_back(ThreadClocks::Entry{static_cast<uint32_t>(k), row[k]});
  }
  // What PWRE-3 added to record r's clock, entry j.
  Clock extra_at(const Record& rec, uint32_t j) const {
    if (!rec.packed) return j < rec.extra.size() ? rec.extra[j] : 0;
    for (const ThreadClocks::Entry& e : rec.extra_packed)
      if (e.slot == j) return e.value;
    return 0;
  }

  // A record lost its last potential guard lock: decide the pairs that waited for it.
  void resolve(uint32_t r) {
    std::vector<uint32_t> pairs;
    pairs.swap(records_[r].pairs);
    for (uint32_t p : pairs)
      if (--pairs_[p].waiting == 0) {
        decide(pairs_[p]);
        unref(pairs_[p].first.record);
        unref(pairs_[p].second.record);
        free_pairs_.push_back(p);
      }
  }

  const std::vector<GuardLock>& guards_of(const Side& s) const {
    return s.record == kNone ? no_guards_ : records_[s.record].guards;
  }

  // RACECHECK: (ls_e ∪ gs_e) ∩' (ls_f ∪ gs_f) = ∅.
  void decide(const Pair& p) {
    const Race race{p.first.access, p.second.access, p.variable};
    if constexpr (E1) {
      if (p.second.record != kNone) {
        // Ordered through a release PWRE-3 added (for a WRD pair: something between the write
        // and the read): no race.
        const Record& rec = records_[p.second.record];
        const Epoch f = first_epoch(p);
        if (rec.packed) {
          if (f.clock() <= extra_at(rec, f.thread())) return;
        } else if (f.thread() < rec.extra.size() && f.clock() <= rec.extra[f.thread()]) {
          return;
        }
      }
    }
    const auto& ga = guards_of(p.first);
    const auto& gb = guards_of(p.second);
    const ThreadId ta = p.first.access.thread, tb = p.second.access.thread;
    bool common = !clocks_.disjoint(p.first.lockset, p.second.lockset);
    for (const GuardLock& g : gb)
      common = common || (g.thread != ta && clocks_.excludes(p.first.lockset, g.lock, g.read));
    for (const GuardLock& g : ga)
      common = common || (g.thread != tb && clocks_.excludes(p.second.lockset, g.lock, g.read));
    for (const GuardLock& g : ga)
      for (const GuardLock& h : gb)
        common = common || (g.lock == h.lock && g.thread != h.thread && !(g.read && h.read));
    if (common)
      guarded_pairs_.insert(location_pair_key(race));  // Fig. 12 "cs guarded"
    else
      report(race, ga, gb);
  }

  // A race with the guard locks of its accesses, kept with the race if the sink keeps it (stale
  // entries are dropped in publish_extras()).
  void report(const Race& race, std::span<const GuardLock> ga, std::span<const GuardLock> gb) {
    if (!(ga.empty() && gb.empty()) && sink_.would_keep(race)) {
      RaceLocks& locks = guards_[{race.first.event, race.second.event}];
      locks = {};
      for (const GuardLock& g : ga) locks.first.push_back(HeldLock{g.lock, g.thread, g.read});
      for (const GuardLock& g : gb) locks.second.push_back(HeldLock{g.lock, g.thread, g.read});
    }
    sink_.report(race);
  }

  // Fig. 12 of the cross-thread paper: location pairs all of whose races a guard lock removed,
  // the guard-lock confirmations (line 7 of RELEASE), and the guard locks of the kept races.
  void publish_extras() {
    uint64_t cs_guarded = 0;
    const auto disjoint = [&](SetId a, SetId b) { return clocks_.disjoint(a, b); };
    for (uint64_t p : guarded_pairs_)
      cs_guarded += !sink_.has_location_pair(p) &&
                    !large_.counted_in_bulk(static_cast<LocationId>(p >> 32),
                                            static_cast<LocationId>(p), disjoint);
    EngineExtras& x = sink_.extras();
    x.stats = {{"cs_guarded_location_pairs", "cs guarded",
                "location pair with races removed by a cross-thread guard lock",
                "location pairs with races removed by a cross-thread guard lock", cs_guarded},
               {"guard_lock_confirmations", "guard locks", "guard-lock confirmation",
                "guard-lock confirmations", confirmations_}};
    x.locks_key = "guard_locks";
    x.locks_text = "Cross-thread guard locks";
    x.race_locks.clear();
    for (const Race& r : sink_.races()) {
      auto it = guards_.find({r.first.event, r.second.event});
      if (it != guards_.end()) x.race_locks.insert(std::move(*it));
    }
    guards_.clear();
  }
  Epoch first_epoch(const Pair& p) const { return first_epochs_[&p - pairs_.data()]; }

  // A PWR race pair (concurrent or WRD, standard lock sets disjoint): RACECHECK now or later.
  void pair(const Side& first, Epoch first_epoch, const Side& second, VariableId x) {
    uint32_t waiting = 0;
    for (const Side* s : {&first, &second})
      if (s->record != kNone && records_[s->record].pending > 0) ++waiting;
    if (first.record == kNone && second.record == kNone) {
      sink_.report(Race{first.access, second.access, x});
      return;
    }
    uint32_t p;
    if (!free_pairs_.empty()) {
      p = free_pairs_.back();
      free_pairs_.pop_back();
    } else {
      p = static_cast<uint32_t>(pairs_.size());
      pairs_.emplace_back();
      first_epochs_.emplace_back();
    }
    pairs_[p] = Pair{first, second, x, waiting};
    first_epochs_[p] = first_epoch;
    if (waiting == 0) {
      decide(pairs_[p]);
      free_pairs_.push_back(p);
      return;
    }
    ref(first.record);
    ref(second.record);
    for (const Side* s : {&first, &second})
      if (s->record != kNone && records_[s->record].pending > 0)
        records_[s->record].pairs.push_back(p);
  }

  // Inlined into the dispatch loop, once per kind (Write: a write).
  template <bool Write>
  [[gnu::always_inline]] void access(EventId id, const Event& e) {
    constexpr bool write = Write;
    const ThreadId i = e.thread;
    const VariableId x = e.target;
    clocks_.ensure_variable(x);
    if (x >= rc_.size()) [[unlikely]]
      rc_.resize(std::max<size_t>(static_cast<size_t>(x) + 1, rc_.size() * 3 / 2));
    const uint32_t ls = clocks_.lockset(i);
    bool wrd = false;
    Side lw;
    Epoch lw_epoch;
    if constexpr (!write) {
      const bool unordered = clocks_.last_write_unordered(i, x);
      if (unordered) [[unlikely]] {
        const auto& w = clocks_.last_write(x);
        if (clocks_.disjoint(w.lockset, ls)) {
          wrd = true;
          lw = Side{Access{w.id, clocks_.thread_at(w.epoch), w.location, Op::Write}, w.lockset,
                    w.record};
          lw_epoch = w.epoch;
        }
      }
      clocks_.sync_read(i, x, unordered);  // line 2
    } else {
      clocks_.begin(i);  // line 2
    }
    const Clock* th = clocks_.cur_th();
    const Epoch epoch = clocks_.now(i);
    const uint32_t rec = clocks_.may_have_guards(i) ? candidate(i, epoch) : kNone;  // line 3
    const Side cur{Access::of(id, e), ls, rec};
    if (wrd) pair(lw, lw_epoch, cur, x);
    std::vector<CsEntry>& rc = rc_[x];
    if (!(rc.size() >= large_.look_from() && clocks_.sparse() &&
          scan_large<write>(x, cur, epoch, th, e))) [[likely]] {
      size_t kept = 0;
      for (size_t k = 0, n = rc.size(); k < n; ++k) {
        const CsEntry f = rc[k];
        if (f.entry.epoch.clock() > th[f.entry.epoch.thread()]) {  // f ∥ e
          if ((write || f.entry.write()) && clocks_.disjoint(f.entry.lockset, ls))
            pair(Side{f.entry.access(clocks_.thread_at(f.entry.epoch)), f.entry.lockset, f.record},
                 f.entry.epoch, cur, x);
          rc[kept++] = f;
        } else if (!write && f.entry.write()) {
          rc[kept++] = f;
        } else {
          unref(f.record);  // evicted (Fig. 10)
        }
      }
      rc.resize(kept);
      ref(rec);
      rc.push_back(CsEntry{Entry{epoch, id, e.location, ls, write}, rec});  // line 5
    }
    if constexpr (write) {
      unref(clocks_.last_write(x).record);
      ref(rec);
      clocks_.set_last_write(i, x, id, e.location, rec);
    }
  }

  // The loop of access() over a large RC(x) (LargeFrontiers, pwr_engine.hpp); false: RC(x) is
  // not large, the loop runs as usual. Races are counted in bulk only while no entry involved
  // has a record (pairs that may wait for a guard lock are decided one by one).
  template <bool Write>
  [[gnu::noinline]] bool scan_large(VariableId x, const Side& cur, Epoch epoch, const Clock* th,
                                    const Event& e) {
    std::vector<CsEntry>& rc = rc_[x];
    uint32_t b = large_.find(x);
    if (b == 0) {
      if (rc.size() + 1 < large_.from()) return false;
      b = large_.make(x, rc.data(), rc.size());
    }
    CsEntry* data = rc.data();
    const size_t n = rc.size();
    const SetId ls = cur.lockset;
    const EventId id = cur.access.event;
    bool counted = false;
    if (cur.record == kNone && !sink_.accepting() && large_.countable(b)) {
      large_.ordered(b, data, n, th, clocks_.cur_nonzero_slots(), reads_, writes_);
      const auto disjoint = [&](SetId s) { return clocks_.disjoint(s, ls); };
      uint64_t races = large_.count(b, true, disjoint);
      if (Write) races += large_.count(b, false, disjoint);
      for (const uint32_t q : writes_) races -= disjoint(data[q].entry.lockset);
      if (Write)
        for (const uint32_t q : reads_) races -= disjoint(data[q].entry.lockset);
      counted = races == 0 || sink_.count_races_in_bulk(races, cur.access);
      if (counted && races != 0)
        large_.log_bulk(b, cur.access, ls, data,
                        Write ? std::span<const uint32_t>() : std::span<const uint32_t>(writes_));
    }
    if (counted) {
      if (Write) reads_.insert(reads_.end(), writes_.begin(), writes_.end());
      for (const uint32_t q : reads_) {
        unref(data[q].record);
        large_.drop(b, data, q, id);
      }
    } else {
      for (uint32_t q = 0; q < n; ++q) {  // access()'s loop, holes skipped
        const CsEntry& f = data[q];
        if (f.entry.epoch.clock() == 0) continue;
        if (f.entry.epoch.clock() > th[f.entry.epoch.thread()]) {  // f ∥ e
          if ((Write || f.entry.write()) && clocks_.disjoint(f.entry.lockset, ls))
            pair(Side{f.entry.access(clocks_.thread_at(f.entry.epoch)), f.entry.lockset, f.record},
                 f.entry.epoch, cur, x);
        } else if (Write || !f.entry.write()) {
          unref(f.record);  // evicted (Fig. 10)
          large_.drop(b, data, q, id);
        }
      }
    }
    const size_t kept = large_.settle(x, b, data, n);
    rc.resize(kept);
    ref(cur.record);
    rc.push_back(CsEntry{Entry{epoch, id, e.location, ls, Write}, cur.record});  // line 5
    if (b != 0) large_.add(b, rc.back(), static_cast<uint32_t>(kept));
    return true;
  }

  RaceSink& sink_;
  PwrClocks clocks_;
  std::vector<std::vector<CsEntry>> rc_;  // RC(a) = RW(a) with records
  LargeFrontiers<CsEntry> large_;
  std::vector<uint32_t> reads_, writes_;  // scan_large: the entries before the access
  struct Wait {
    uint32_t record;
    ThreadId holder;  // the hold of z the record waits for
  };
  std::vector<std::vector<Wait>> waiting_;  // W(z)
  std::vector<Record> records_;
  std::vector<uint32_t> free_records_;
  std::vector<Pair> pairs_;
  std::vector<Epoch> first_epochs_;  // the first access's epoch, per pair (pwr-e)
  std::vector<uint32_t> free_pairs_;
  struct Scan {
    uint64_t locks = 0, clock = 0;
    bool empty = false;
  };
  std::vector<Scan> scans_;                        // per thread: the last guard-lock scan
  std::vector<Clock> scratch_vc_, scratch_extra_;  // pwr-e: a packed record's, in rod_cross
  const std::vector<GuardLock> no_guards_;
  uint64_t confirmations_ = 0;
  std::map<std::pair<EventId, EventId>, RaceLocks> guards_;  // of races reported while kept
  std::unordered_set<uint64_t> guarded_pairs_;               // location pairs of removed races
};

}  // namespace racepred::pwr
