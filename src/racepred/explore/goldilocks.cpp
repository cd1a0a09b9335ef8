#include "racepred/explore/goldilocks.hpp"

#include <algorithm>
#include <unordered_map>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/raw_recording.hpp"

namespace racepred::explore {
namespace {

namespace fmt = format;

constexpr uint64_t kThreadToken = uint64_t{1} << 62;
constexpr uint64_t kObjectToken = uint64_t{1} << 61;  // a send/recv order's object
constexpr uint64_t kMaxRangeWords = 4096;

// A lock set: a few locks, threads and objects (unsorted: the sets stay small).
using Set = std::vector<uint64_t>;

bool contains(const Set& s, uint64_t x) {
  return std::find(s.begin(), s.end(), x) != s.end();
}
bool meets(const Set& a, const Set& b) {
  for (uint64_t x : a)
    if (contains(b, x)) return true;
  return false;
}
void add(Set& s, uint64_t x) {
  if (!contains(s, x)) s.push_back(x);
}

struct Variable {
  bool top = true;  // Addr ∪ Tid: not accessed yet
  Set ls;
  size_t la = SIZE_MAX;  // the event of its last access
};

}  // namespace

std::vector<LsEvent> lockset_events(const std::string& raw) {
  recording::RawFile file(raw);
  return lockset_events(recording::decode_recording(file.bytes(), raw));
}

std::vector<LsEvent> lockset_events(const recording::RawRecording& rec) {
  const uint64_t cut = recording::consistent_cut(rec);
  std::vector<LsEvent> out;
  for (const auto& [tid, stream] : rec.threads) {
    uint64_t prev = 0;
    size_t range_at = SIZE_MAX;  // the range access waiting for its length
    uint64_t range_addr = 0;
    for (const recording::RawBlock& block : stream.blocks) {
      fmt::RawUnpacker u;
      u.p = block.data;
      u.end = block.end;
      u.left = block.count;
      fmt::RawRecord r;
      while (u.next(r)) {
        if (r.seq >= cut) break;
        const uint8_t rawop = static_cast<uint8_t>(r.op_pc >> 56);
        const uint8_t op = rawop & fmt::kRawOpMask;
        const uint8_t code = rawop >> fmt::kRawSizeShift;
        if (op == fmt::kRawSize) {
          // The length of the range access before it: one event per further word.
          if (range_at != SIZE_MAX && r.addr) {
            const LsEvent first = out[range_at];
            const uint64_t last_word = (range_addr + r.addr - 1) >> 3;
            for (uint64_t w = first.obj + 1; w <= last_word && w - first.obj < kMaxRangeWords;
                 ++w) {
              LsEvent e = first;
              e.obj = w;
              out.push_back(e);
            }
          }
          range_at = SIZE_MAX;
          continue;
        }
        range_at = SIZE_MAX;
        LsEvent e;
        e.tid = tid;
        e.seq = r.seq;
        e.prev = prev;
        e.obj = r.addr;
        switch (op) {
          case fmt::kRead:
          case fmt::kWrite:
            e.kind = LsEvent::Access;
            e.obj = r.addr >> 3;
            e.atomic = code == fmt::kSizeAtom;
            e.write = op == fmt::kWrite;
            if (code == fmt::kSizeRange) {
              range_at = out.size();
              range_addr = r.addr;
            }
            break;
          case fmt::kAcquire:
            e.kind = LsEvent::Acquire;
            break;
          case fmt::kRelease:
            e.kind = LsEvent::Release;
            break;
          case fmt::kFork:
            e.kind = LsEvent::Fork;
            break;
          case fmt::kJoin:
            e.kind = LsEvent::Join;
            break;
          case fmt::kReadRelease:
          case fmt::kSend:
            e.kind = LsEvent::Send;
            break;
          case fmt::kReadAcquire:
          case fmt::kRecv:
            e.kind = LsEvent::Recv;
            break;
          default:
            continue;  // allocation, names, stacks: no order
        }
        prev = r.seq + 1;
        out.push_back(e);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LsEvent& a, const LsEvent& b) { return a.seq < b.seq; });
  return out;
}

uint64_t mark_racy_points(const std::vector<LsEvent>& events, std::vector<ChoicePoint>& points) {
  // The access points of each thread, in order: the node before an access is the thread's
  // last access point at or before it and after its previous event.
  std::unordered_map<uint32_t, std::vector<size_t>> access_points;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].is_access()) access_points[points[i].current].push_back(i);
  auto mark = [&](const LsEvent& e) {
    auto it = access_points.find(e.tid);
    if (it == access_points.end()) return;
    const std::vector<size_t>& at = it->second;
    auto after = std::upper_bound(at.begin(), at.end(), e.seq,
                                  [&](uint64_t seq, size_t i) { return seq < points[i].seq; });
    if (after == at.begin()) return;
    ChoicePoint& p = points[*(after - 1)];
    if (p.seq >= e.prev) p.racy = true;  // else: no other thread could run before it
  };

  std::unordered_map<uint32_t, Set> held;  // LH: the thread itself and the locks it holds
  auto lh = [&](uint32_t tid) -> Set& {
    auto [it, fresh] = held.try_emplace(tid);
    if (fresh) it->second.push_back(kThreadToken | tid);
    return it->second;
  };
  std::unordered_map<uint64_t, Variable> vars;
  // For every variable whose lock set meets `with`: add `what` (the update rules of acq, fork,
  // join and the send/recv orders).
  auto extend = [&](const Set& with, const Set& what) {
    for (auto& [q, v] : vars)
      if (!v.top && meets(v.ls, with))
        for (uint64_t x : what) add(v.ls, x);
  };
  uint64_t races = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const LsEvent& e = events[i];
    switch (e.kind) {
      case LsEvent::Access: {
        Variable& v = vars[e.obj];
        Set& mine = lh(e.tid);
        // Two atomic accesses never race (their order is the atomics' synchronisation).
        const bool both_atomic = e.atomic && v.la != SIZE_MAX && events[v.la].atomic;
        if (!v.top && !meets(v.ls, mine) && !both_atomic) {
          // A potential race: the node before this access and the node before the last
          // access of the variable become full branching points.
          ++races;
          mark(e);
          if (v.la != SIZE_MAX) mark(events[v.la]);
        }
        v.top = false;
        v.ls = mine;
        v.la = i;
        break;
      }
      case LsEvent::Acquire: {
        Set& mine = lh(e.tid);
        add(mine, e.obj);
        extend(mine, mine);
        // A lock released by readers (a rwlock) orders them before the writer: its object.
        extend(Set{kObjectToken | e.obj}, Set{kThreadToken | e.tid});
        break;
      }
      case LsEvent::Release: {
        Set& mine = lh(e.tid);
        extend(mine, Set{kObjectToken | e.obj});  // for readers that acquire it next
        mine.erase(std::remove(mine.begin(), mine.end(), e.obj), mine.end());
        break;
      }
      case LsEvent::Fork: {
        const uint32_t child = static_cast<uint32_t>(e.obj);
        held[child] = Set{kThreadToken | child};
        extend(lh(e.tid), Set{kThreadToken | child});
        break;
      }
      case LsEvent::Join:
        extend(lh(static_cast<uint32_t>(e.obj)), Set{kThreadToken | e.tid});
        break;
      case LsEvent::Send:
        extend(lh(e.tid), Set{kObjectToken | e.obj});
        break;
      case LsEvent::Recv:
        extend(Set{kObjectToken | e.obj}, Set{kThreadToken | e.tid});
        break;
    }
  }
  return races;
}

}  // namespace racepred::explore

namespace racepred::explore {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

using Clock = std::vector<uint32_t>;

void join_into(Clock& c, const Clock& d) {
  if (c.size() < d.size()) c.resize(d.size(), 0);
  for (size_t i = 0; i < d.size(); ++i) c[i] = std::max(c[i], d[i]);
}

}  // namespace

uint64_t trace_class(const std::vector<LsEvent>& events) {
  uint32_t threads = 0;
  for (const LsEvent& e : events) {
    threads = std::max(threads, e.tid + 1);
    if (e.kind == LsEvent::Fork || e.kind == LsEvent::Join)
      threads = std::max<uint64_t>(threads, std::min<uint64_t>(e.obj, 1u << 20) + 1);
  }
  std::vector<Clock> clock(threads, Clock(threads, 0));
  // A word: the last write's clock and the join of the reads since; a lock: its last
  // operation's; an object: the join of its sends and of its receives.
  struct Word {
    Clock write, reads;
  };
  struct Object {
    Clock sends, recvs;
  };
  std::unordered_map<uint64_t, Word> words;
  std::unordered_map<uint64_t, Clock> locks;
  std::unordered_map<uint64_t, Object> objects;
  Clock forks;
  uint64_t sum = 0;
  for (const LsEvent& e : events) {
    Clock& c = clock[e.tid];
    ++c[e.tid];
    switch (e.kind) {
      case LsEvent::Access: {
        Word& w = words[e.obj];
        join_into(c, w.write);
        if (e.write) {
          join_into(c, w.reads);
          w.write = c;
          w.reads.clear();
        } else {
          join_into(w.reads, c);
        }
        break;
      }
      case LsEvent::Acquire:
      case LsEvent::Release: {
        Clock& l = locks[e.obj];
        join_into(c, l);
        l = c;
        break;
      }
      case LsEvent::Send: {
        Object& o = objects[e.obj];
        join_into(c, o.recvs);
        join_into(o.sends, c);
        break;
      }
      case LsEvent::Recv: {
        Object& o = objects[e.obj];
        join_into(c, o.sends);
        join_into(o.recvs, c);
        break;
      }
      case LsEvent::Fork:
        join_into(c, forks);
        forks = c;
        if (e.obj < threads) join_into(clock[e.obj], c);
        break;
      case LsEvent::Join:
        if (e.obj < threads) join_into(c, clock[e.obj]);
        break;
    }
    // The event by its place (thread, number in the thread), what it is, and its past.
    uint64_t h = mix(uint64_t{e.tid} << 32 | c[e.tid]);
    h = mix(h ^ (uint64_t{e.kind} << 1 | (e.write ? 1 : 0)));
    h = mix(h ^ e.obj);
    for (uint32_t u = 0; u < threads; ++u)
      if (u != e.tid && c[u]) h = mix(h ^ (uint64_t{u} << 32 | c[u]));
    sum += h;  // events are told apart by their place: the order of the sum does not matter
  }
  return mix(sum ^ events.size());
}

}  // namespace racepred::explore
