#include "racepred/clock/thread_clocks.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "racepred/trace/error.hpp"

namespace racepred {

void clock_overflow(ThreadId i) {
  throw InputError("thread #" + std::to_string(i) + " has more than " + std::to_string(Clock(-1)) +
                   " events: its 32-bit vector-clock entry would wrap around; split the trace");
}

size_t ThreadClocks::sparse_entries() const {
  size_t n = 0;
  for (const Packed& p : packed_) n += p.size();
  for (const Packed& p : rel_sparse_) n += p.size();
  for (const Packed& p : rrel_sparse_) n += p.size();
  for (const Packed& p : sync_sparse_) n += p.size();
  for (const std::vector<uint32_t>& t : touched_) n += t.size();
  return n;
}

bool ThreadClocks::sparse_grow(size_t n) {
  RACEPRED_DEBUG_ONLY(++generation_;)  // the rows may move or be packed (RowRef)
  if (!sparse_) {
    // Pack every row and every lock's clock; the flat rows are freed.
    packed_.resize(threads_);
    for (size_t u = 0; u < threads_; ++u) {
      const Clock* r = th_.row(u);
      for (size_t k = 0; k < threads_; ++k)
        if (r[k] != 0) packed_[u].push_back(Entry{static_cast<uint32_t>(k), r[k]});
    }
    rel_sparse_.resize(rel_.rows());
    for (size_t y = 0; y < rel_.rows(); ++y) {
      const Clock* r = rel_.row(y);
      for (size_t k = 0; k < threads_; ++k)
        if (r[k] != 0) rel_sparse_[y].push_back(Entry{static_cast<uint32_t>(k), r[k]});
    }
    rrel_sparse_.resize(rrel_.rows());
    for (size_t y = 0; y < rrel_.rows(); ++y) {
      const Clock* r = rrel_.row(y);
      for (size_t k = 0; k < threads_; ++k)
        if (r[k] != 0) rrel_sparse_[y].push_back(Entry{static_cast<uint32_t>(k), r[k]});
    }
    sync_sparse_.resize(sync_.rows());
    for (size_t o = 0; o < sync_.rows(); ++o) {
      const Clock* r = sync_.row(o);
      for (size_t k = 0; k < threads_; ++k)
        if (r[k] != 0) sync_sparse_[o].push_back(Entry{static_cast<uint32_t>(k), r[k]});
    }
    const size_t stride = th_.stride();
    th_ = ClockRows<Clock>();
    rel_ = ClockRows<Clock>();
    rrel_ = ClockRows<Clock>();
    sync_ = ClockRows<Clock>();
    th_.set_stride(stride);
    cache_.set_stride(stride);
    cache_.ensure_rows(kResident);
    touched_.assign(kResident, {});
    owner_.assign(kResident, kNoSlot);
    used_at_.assign(kResident, 0);
    resident_.assign(threads_, kNoSlot);
    sparse_ = true;
  }
  if (n <= threads_) return false;
  bool grew = false;
  if (n > th_.stride()) {
    const size_t stride = std::bit_ceil(n);
    th_.set_stride(stride);
    cache_.set_stride(stride);
    grew = true;
  }
  packed_.resize(n);
  resident_.resize(n, kNoSlot);
  if (start_ != 0)
    for (size_t u = threads_; u < n; ++u)
      packed_[u].push_back(Entry{static_cast<uint32_t>(u), start_});  // Th(u) = [0,…,1,…,0]
  threads_ = n;
  return grew;
}

Clock* ThreadClocks::unpack(uint32_t s) const {
  // The least recently used cache row gives way: its clock is packed back.
  const uint32_t c =
      static_cast<uint32_t>(std::min_element(used_at_.begin(), used_at_.end()) - used_at_.begin());
  Clock* r = cache_.row(c);
  std::vector<uint32_t>& touched = touched_[c];
  if (owner_[c] != kNoSlot) {
    Packed& p = packed_[owner_[c]];
    p.clear();
    for (const uint32_t k : touched) p.push_back(Entry{k, r[k]});
    resident_[owner_[c]] = kNoSlot;
  }
  for (const uint32_t k : touched) r[k] = 0;
  touched.clear();
  Packed& p = packed_[s];
  for (const Entry& e : p) {
    r[e.slot] = e.value;
    touched.push_back(e.slot);
  }
  p.clear();
  owner_[c] = s;
  resident_[s] = c;
  used_at_[c] = ++now_;
  return r;
}

void ThreadClocks::sparse_join(uint32_t d, uint32_t s) {
  const Clock* src = resident(s);
  Clock* dst = resident(d);  // s was used last: it stays unpacked
  const uint32_t cd = resident_[d];
  for (const uint32_t k : touched_[resident_[s]]) raise(cd, dst, k, src[k]);
}

void ThreadClocks::sparse_join_into(uint32_t s, const Clock* src) {
  Clock* t = resident(s);
  const uint32_t c = resident_[s];
  // src is mostly zeros (a clock that knows few threads): blocks of 32 entries that are all zero
  // are skipped by a branch-free (vectorised) OR.
  constexpr size_t kBlock = 32;
  for (size_t j = 0, n = stride(); j < n; j += kBlock) {
    const size_t m = std::min(kBlock, n - j);
    Clock any = 0;
    for (size_t k = 0; k < m; ++k) any |= src[j + k];
    if (any == 0) [[likely]]
      continue;
    for (size_t k = j; k < j + m; ++k)
      if (src[k] > t[k]) raise(c, t, static_cast<uint32_t>(k), src[k]);
  }
}

void ThreadClocks::sparse_acquire(uint32_t s, LockId y, bool read_releases) {
  Clock* t = resident(s);
  const uint32_t c = resident_[s];
  for (const Entry& e : rel_sparse_[y]) raise(c, t, e.slot, e.value);
  if (read_releases && y < rrel_sparse_.size()) [[unlikely]]
    for (const Entry& e : rrel_sparse_[y]) raise(c, t, e.slot, e.value);
}

void ThreadClocks::sparse_read_release(uint32_t s, LockId y) {
  if (y >= rrel_sparse_.size()) rrel_sparse_.resize(size_t{y} + 1);
  sparse_join_packed(rrel_sparse_[y], s);
}

void ThreadClocks::sparse_join_packed(Packed& r, uint32_t s) {
  const Clock* t = resident(s);
  // r ⊔= Th(s): entries already in r are found by rrel_at_ (index + 1 per slot).
  if (rrel_at_.size() < stride()) rrel_at_.resize(stride(), 0);
  for (size_t q = 0; q < r.size(); ++q) rrel_at_[r[q].slot] = static_cast<uint32_t>(q + 1);
  const size_t before = r.size();
  for (const uint32_t k : touched_[resident_[s]]) {
    if (t[k] == 0) continue;
    const uint32_t q = rrel_at_[k];
    if (q != 0)
      r[q - 1].value = std::max(r[q - 1].value, t[k]);
    else
      r.push_back(Entry{k, t[k]});
  }
  for (size_t q = 0; q < before; ++q) rrel_at_[r[q].slot] = 0;
}

void ThreadClocks::sparse_join_from(uint32_t s, const ThreadClocks& other, uint32_t os) {
  const Clock* src = other.row(os);
  Clock* t = row(s);  // (another ThreadClocks: src stays valid)
  const uint32_t c = sparse_ ? resident_[s] : kNoSlot;
  const auto put = [&](uint32_t k) {
    if (src[k] <= t[k]) return;
    if (c != kNoSlot)
      raise(c, t, k, src[k]);
    else
      t[k] = src[k];
  };
  // The other row's non-zero entries: its list in sparse mode, else every entry.
  if (other.sparse_) {
    for (const uint32_t k : other.touched_[other.resident_[os]]) put(k);
  } else {
    for (size_t k = 0, n = stride(); k < n; ++k) put(static_cast<uint32_t>(k));
  }
}

void ThreadClocks::clear_slot(uint32_t s) {
  if (!sparse_) {
    std::fill(th_.row(s), th_.row(s) + stride(), Clock{0});
    return;
  }
  Clock* t = resident(s);
  std::vector<uint32_t>& touched = touched_[resident_[s]];
  for (const uint32_t k : touched) t[k] = 0;
  touched.clear();
}

void ThreadClocks::lower_slot(uint32_t s, uint32_t k, Clock v) {
  Clock* t = row(s);
  if (v >= t[k]) return;
  t[k] = v;
  if (sparse_ && v == 0) {
    std::vector<uint32_t>& touched = touched_[resident_[s]];
    const auto it = std::find(touched.begin(), touched.end(), k);
    if (it != touched.end()) touched.erase(it);
  }
}

bool ThreadClocks::sparse_within_but_own(uint32_t s, const Clock* snap) {
  const Clock* t = resident(s);
  for (const uint32_t k : touched_[resident_[s]])
    if (t[k] > snap[k] && k != s) return false;
  return true;
}

bool ThreadClocks::sparse_knows_release(uint32_t s, LockId y) {
  const Clock* t = resident(s);
  for (const Entry& e : rel_sparse_[y])
    if (e.value > t[e.slot]) return false;
  return true;
}

void ThreadClocks::sparse_release(uint32_t s, LockId y) {
  const Clock* t = resident(s);
  Packed& r = rel_sparse_[y];
  r.clear();
  for (const uint32_t k : touched_[resident_[s]]) r.push_back(Entry{k, t[k]});
}

void ThreadClocks::sparse_copy(uint32_t d, uint32_t s) {
  const Clock* src = resident(s);
  Clock* dst = resident(d);
  const uint32_t cd = resident_[d];
  for (const uint32_t k : touched_[cd]) dst[k] = 0;
  touched_[cd].clear();
  for (const uint32_t k : touched_[resident_[s]]) raise(cd, dst, k, src[k]);
}

const Clock* ThreadClocks::unpacked_rel(LockId y) {
  rel_copy_.assign(stride(), 0);
  for (const Entry& e : rel_sparse_[y]) rel_copy_[e.slot] = e.value;
  return rel_copy_.data();
}

ThreadId ThreadClocks::thread_at(uint32_t s, Clock k) const {
  return mapped_ ? slots_.thread_at(s, k) : s;
}

void ThreadClocks::start_mapping() {
  mapped_ = true;
  for (size_t t = 0; t < threads_; ++t) slots_.add(static_cast<ThreadId>(t));  // identity
  for (ThreadId j : joined_) retire(j);
  joined_.clear();
  joined_.shrink_to_fit();
}

bool ThreadClocks::new_slot(ThreadId t) {
  const uint32_t s = slots_.add(t);  // == threads_: slots are numbered as the rows
  return grow(s);
}

bool ThreadClocks::take_free_slot(ThreadId i, ThreadId j) {
  add_thread(i);
  const Clock* ti = th(i);
  // Reusable when i knows every event of the slot's last thread.
  const std::optional<SlotMap::FreeSlot> f =
      slots_.take_free([ti](const SlotMap::FreeSlot& f) { return ti[f.slot] >= f.last; });
  if (!f) return false;
  Clock* tj;
  if (sparse_) {
    sparse_copy(f->slot, slot(i));
    tj = row(f->slot);
  } else {
    tj = th_.row(f->slot);
    copy_clock(tj, ti, stride());
  }
  Clock next = tj[f->slot];  // Th(j) = Th(i) with the slot's entry past the old thread
  increment_clock(next, j);
  if (sparse_)
    raise(resident_[f->slot], tj, f->slot, next);  // (the entry may have been 0: lower_slot)
  else
    tj[f->slot] = next;
  slots_.move_in(j, f->slot, tj[f->slot]);
  return true;
}

void ThreadClocks::retire(ThreadId j) {
  if (!mapped_) {
    joined_.push_back(j);
    return;
  }
  const uint32_t s = slots_.find(j);
  if (s == kNoSlot) return;  // joined twice
  slots_.retire(s, row(s)[s], 0, /*release=*/true);
}

}  // namespace racepred
