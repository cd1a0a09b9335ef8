// Goldilocks, eager form: the rules of Elmas and Qadeer §3 and §6 as the paper states them, every
// lock set updated at every acquire, fork and join. A test reference for the lazy engine
// (goldilocks.cpp), not registered. GoldilocksRules::AsPrinted follows the printed text
// verbatim; Corrected applies the two corrections explained in docs/ENGINES.md.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "racepred/engines/dispatch.hpp"
#include "support/goldilocks_eager.hpp"

namespace racepred {
namespace {

// A lock set; `universal` is the paper's initial Addr ∪ Tid (nothing accessed yet). With
// read-write locks, the locks of the standard reduction: `locks` holds l for all tokens (l,u)
// (write sections), `read_tokens` single tokens (l,u) (read sections of l by u).
struct TokenSet {
  bool universal = true;
  std::set<ThreadId> threads;
  std::set<LockId> locks;
  std::set<std::pair<LockId, ThreadId>> read_tokens;

  static TokenSet empty() {
    TokenSet s;
    s.universal = false;
    return s;
  }
  bool is_empty() const {
    return !universal && threads.empty() && locks.empty() && read_tokens.empty();
  }
  // Some token (l,u) of l in the set.
  bool has_token_of(LockId l) const {
    if (locks.count(l)) return true;
    auto it = read_tokens.lower_bound({l, 0});
    return it != read_tokens.end() && it->first == l;
  }
  bool intersects(const TokenSet& o) const {
    if (universal) return !o.is_empty();
    if (o.universal) return !is_empty();
    for (ThreadId t : threads)
      if (o.threads.count(t)) return true;
    for (LockId l : locks)
      if (o.has_token_of(l)) return true;
    for (const auto& token : read_tokens)
      if (o.locks.count(token.first) || o.read_tokens.count(token)) return true;
    return false;
  }
  void unite(const TokenSet& o) {
    if (universal) return;
    if (o.universal) {
      *this = TokenSet{};
      return;
    }
    threads.insert(o.threads.begin(), o.threads.end());
    locks.insert(o.locks.begin(), o.locks.end());
    read_tokens.insert(o.read_tokens.begin(), o.read_tokens.end());
  }
  TokenSet intersection(const TokenSet& o) const {
    if (universal) return o;
    if (o.universal) return *this;
    TokenSet r = empty();
    std::set_intersection(threads.begin(), threads.end(), o.threads.begin(), o.threads.end(),
                          std::inserter(r.threads, r.threads.end()));
    std::set_intersection(locks.begin(), locks.end(), o.locks.begin(), o.locks.end(),
                          std::inserter(r.locks, r.locks.end()));
    for (const auto& token : read_tokens)
      if (o.locks.count(token.first) || o.read_tokens.count(token)) r.read_tokens.insert(token);
    for (const auto& token : o.read_tokens)
      if (locks.count(token.first)) r.read_tokens.insert(token);
    return r;
  }
  GoldilocksSet to_set() const {
    GoldilocksSet s;
    s.undefined = universal;
    if (!universal) {
      s.threads.assign(threads.begin(), threads.end());
      s.locks.assign(locks.begin(), locks.end());
      for (const auto& token : read_tokens) s.read_locks.push_back(token.first);
      normalize(s);
    }
    return s;
  }
};

struct VariableState {
  bool accessed = false;
  TokenSet ls;  // §3 LS(q) / §6 LSW(q)
  Access last;  // §3 last access / §6 last write (event 0 if none)
  // §6: LSR(q, t) of threads that read since the last write, with that read. AsPrinted: the
  // threads whose LSR differs from `lsr_default` (the value of every other thread).
  std::map<ThreadId, std::pair<TokenSet, Access>> lsr;
  TokenSet lsr_default;
};

class GoldilocksEager final : public DispatchEngine<GoldilocksEager>, public Annotator {
 public:
  GoldilocksEager(EngineContext& context, GoldilocksDiscipline discipline, GoldilocksRules rules)
      : symbols_(context.symbols),
        sink_(context.sink),
        rw_(discipline == GoldilocksDiscipline::ConcurrentReads),
        printed_(rules == GoldilocksRules::AsPrinted) {}

  // A test reference, kept close to the paper's rule list: one handler per rule of §3 / §6.
  Annotator* annotator() override { return this; }

  void before(EventId, const Event& e) { held_of(e.thread); }
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  void access(EventId id, const Event& e) {
    if (e.target >= variables_.size()) variables_.resize(e.target + 1);
    VariableState& v = variables_[e.target];
    v.accessed = true;
    const Access now = Access::of(id, e);
    if (!rw_) {
      mutex_access(v, now, e.target);
    } else if (printed_) {
      e.op == Op::Read ? printed_read(v, now, e.target) : printed_write(v, now, e.target);
    } else {
      e.op == Op::Read ? read(v, now, e.target) : write(v, now, e.target);
    }
  }
  // The reduction: acq((l,t)) for a read section.
  void acquire(EventId, const Event& e) { acquire_token(e); }
  void read_acquire(EventId, const Event& e) { acquire_token(e); }
  void acquire_token(const Event& e) {
    const ThreadId t = e.thread;
    (e.op == Op::Acquire ? held_of(t) : read_held_of(t)).insert(e.target);
    const TokenSet lh = lh_of(t);
    for (VariableState& v : variables_) {
      if (!v.accessed) continue;
      if (rw_ && printed_) {
        if (printed_condition(v, t, lh)) {
          v.ls.unite(lh);
          v.lsr_default = v.ls;
          v.lsr.clear();
        }
      } else {
        for_each_set(v, [&](TokenSet& s) {
          if (s.intersects(lh)) s.unite(lh);
        });
      }
    }
  }
  void release(EventId, const Event& e) { held_of(e.thread).erase(e.target); }
  // Volatile accesses (Elmas and Qadeer): send(o), the volatile write, adds o to the lock sets
  // that hold the sender; recv(o), the volatile read, adds the receiver (with the locks it
  // holds, as the corrected join rule) to those that hold o.
  void send(EventId, const Event& e) {
    const TokenSet lh = lh_of(e.thread);
    TokenSet object = TokenSet::empty();
    object.locks.insert(e.target);
    for (VariableState& v : variables_)
      if (v.accessed)
        for_each_set(v, [&](TokenSet& s) {
          if (s.intersects(lh)) s.unite(object);
        });
  }
  void request(EventId, const Event&) {}  // takes and orders nothing
  void recv(EventId, const Event& e) {
    const TokenSet lh = lh_of(e.thread);
    TokenSet object = TokenSet::empty();
    object.locks.insert(e.target);
    for (VariableState& v : variables_)
      if (v.accessed)
        for_each_set(v, [&](TokenSet& s) {
          if (s.intersects(object)) s.unite(lh);
        });
  }
  void read_release(EventId, const Event& e) { read_held_of(e.thread).erase(e.target); }
  void fork(EventId, const Event& e) {
    const ThreadId t = e.thread;
    const TokenSet lh = lh_of(t);
    held_of(e.target).clear();  // LH(u) := {u}
    read_held_of(e.target).clear();
    TokenSet child = TokenSet::empty();
    child.threads.insert(e.target);
    for (VariableState& v : variables_) {
      if (!v.accessed) continue;
      if (rw_ && printed_) {
        if (printed_condition(v, t, lh)) {
          v.ls.unite(child);
          v.lsr_default.unite(child);
          for (auto& [u, entry] : v.lsr) entry.first.unite(child);
        }
      } else {
        for_each_set(v, [&](TokenSet& s) {
          if (s.intersects(lh)) s.unite(child);
        });
      }
    }
  }
  void join(EventId, const Event& e) {
    const ThreadId t = e.thread;
    const TokenSet joined = lh_of(e.target);
    TokenSet joiner = TokenSet::empty();
    joiner.threads.insert(t);
    // Rule 7 as printed adds {t}; corrected it adds LH(t) (locks held across the join).
    const TokenSet added = printed_ ? joiner : lh_of(t);
    for (VariableState& v : variables_) {
      if (!v.accessed) continue;
      if (rw_ && printed_) {
        if (printed_condition(v, t, joined)) {
          v.ls.unite(added);
          v.lsr_default.unite(added);
          for (auto& [u, entry] : v.lsr) entry.first.unite(added);
        }
      } else {
        for_each_set(v, [&](TokenSet& s) {
          if (s.intersects(joined)) s.unite(added);
        });
      }
    }
  }

  void before_event(EventId /*id*/, const Event& e) override {
    before_.clear();
    if (e.is_access()) describe(e.target, before_);
  }

  void annotate(EventId /*id*/, const Event& e, Annotation& row) override {
    const TokenSet lh = lh_of(e.thread);
    row.push_back({"LH", format_goldilocks_set(lh.to_set(), symbols_)});
    std::vector<std::string> after;
    if (e.is_access()) describe(e.target, after);
    const std::vector<std::string> columns =
        rw_ ? std::vector<std::string>{"LSW", "LSR"} : std::vector<std::string>{"LS"};
    for (size_t i = 0; i < columns.size(); ++i) {
      std::string value;
      if (e.is_access() && i < before_.size()) value = before_[i] + kGoldilocksArrow + after[i];
      row.push_back({columns[i], std::move(value)});
    }
  }

 private:
  std::set<LockId>& held_of(ThreadId t) {
    if (t >= held_.size()) held_.resize(t + 1);
    return held_[t];
  }
  std::set<LockId>& read_held_of(ThreadId t) {
    if (t >= read_held_.size()) read_held_.resize(t + 1);
    return read_held_[t];
  }
  TokenSet lh_of(ThreadId t) {
    TokenSet s = TokenSet::empty();
    s.threads.insert(t);
    s.locks = held_of(t);
    for (LockId l : read_held_of(t)) s.read_tokens.insert({l, t});
    return s;
  }
  template <typename F>
  void for_each_set(VariableState& v, F f) {
    f(v.ls);
    for (auto& [u, entry] : v.lsr) f(entry.first);
  }

  void report(const Access& first, const Access& second, VariableId x) {
    // Two reads: a discipline violation, not a data race (the engine's extras count them).
    if (first.known() && first.op == Op::Read && second.op == Op::Read)
      ++sink_.extras().read_read_pairs;
    sink_.report(Race{first, second, x});
  }

  // §3 rules 2 and 3 (restart: LS := LH(t) after a race too; as printed: LS := ∅).
  void mutex_access(VariableState& v, const Access& now, VariableId x) {
    const TokenSet lh = lh_of(now.thread);
    if (v.ls.intersects(lh)) {
      v.ls = lh;
    } else {
      report(v.last, now, x);
      v.ls = printed_ ? TokenSet::empty() : lh;
    }
    v.last = now;
  }

  // §6, corrected: the last write must be ordered before a read; LSR(q, t) := LH(t).
  void read(VariableState& v, const Access& now, VariableId x) {
    const TokenSet lh = lh_of(now.thread);
    if (!v.ls.intersects(lh)) report(v.last, now, x);
    v.lsr[now.thread] = {lh, now};
  }
  // §6, corrected: the last write and every read since must be ordered before a write.
  void write(VariableState& v, const Access& now, VariableId x) {
    const TokenSet lh = lh_of(now.thread);
    if (!v.ls.intersects(lh)) report(v.last, now, x);
    for (const auto& [u, entry] : v.lsr)
      if (u != now.thread && !entry.first.intersects(lh)) report(entry.second, now, x);
    v.ls = lh;
    v.last = now;
    v.lsr.clear();
  }

  const TokenSet& printed_lsr(const VariableState& v, ThreadId t) const {
    auto it = v.lsr.find(t);
    return it == v.lsr.end() ? v.lsr_default : it->second.first;
  }
  // The guard of §6 rules 3, 4, 6, 7: LSW ∩ H ≠ ∅ and ∀t' ≠ t. LSW ∩ H ∩ LSR(q, t') ≠ ∅.
  // Every thread id other than those listed in `lsr` has LSR = lsr_default.
  bool printed_condition(const VariableState& v, ThreadId t, const TokenSet& h) const {
    const TokenSet wh = v.ls.intersection(h);
    if (wh.is_empty()) return false;
    if (!wh.intersects(v.lsr_default)) return false;
    for (const auto& [u, entry] : v.lsr)
      if (u != t && !wh.intersects(entry.first)) return false;
    return true;
  }
  void printed_race(VariableState& v) {
    v.ls = TokenSet::empty();
    v.lsr_default = TokenSet::empty();
    v.lsr.clear();
  }
  // §6 rule 2 verbatim.
  void printed_read(VariableState& v, const Access& now, VariableId x) {
    const TokenSet lh = lh_of(now.thread);
    const TokenSet r = v.ls.intersection(lh).intersection(printed_lsr(v, now.thread));
    if (!r.is_empty()) {
      v.lsr[now.thread] = {r, now};
    } else {
      report(v.last, now, x);
      printed_race(v);
    }
  }
  // §6 rule 3 verbatim (with the erratum: q is the written variable).
  void printed_write(VariableState& v, const Access& now, VariableId x) {
    const TokenSet lh = lh_of(now.thread);
    if (printed_condition(v, now.thread, lh)) {
      v.ls = lh;
      v.lsr_default = lh;
      v.lsr.clear();
    } else {
      report(v.last, now, x);
      printed_race(v);
    }
    v.last = now;
  }

  void describe(VariableId x, std::vector<std::string>& out) {
    if (x >= variables_.size()) variables_.resize(x + 1);
    const VariableState& v = variables_[x];
    out.push_back(format_goldilocks_set(v.ls.to_set(), symbols_));
    if (!rw_) return;
    std::string lsr;
    for (const auto& [u, entry] : v.lsr) {
      if (!lsr.empty()) lsr += "; ";
      lsr += std::string(symbols_.threads.name(u)) + ":" +
             format_goldilocks_set(entry.first.to_set(), symbols_);
    }
    out.push_back(lsr.empty() ? "-" : lsr);
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  const bool rw_;
  const bool printed_;
  std::vector<std::set<LockId>> held_;       // write holds
  std::vector<std::set<LockId>> read_held_;  // read holds
  std::vector<VariableState> variables_;
  std::vector<std::string> before_;
};

}  // namespace

std::unique_ptr<Engine> make_goldilocks_eager(EngineContext& context,
                                              GoldilocksDiscipline discipline,
                                              GoldilocksRules rules) {
  return std::make_unique<GoldilocksEager>(context, discipline, rules);
}

}  // namespace racepred
