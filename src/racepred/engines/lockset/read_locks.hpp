// Read-write locks in the lock-set engines (docs/ENGINES.md, "Read-write locks").
//
// A lock y held in read mode is the token y | kReadHold in the thread's LockSetTable set; in
// write mode it is y itself. Two accesses of different threads are protected by y iff both hold
// y and at least one in write mode: the effect of the standard reduction (a read section of y by
// thread t holds (y,t), a write section every (y,u)), so the engines stay exact against
// ls-standard. The table's own disjointness (a plain intersection) is right for sets without
// read tokens, which keeps traces without read locks on their fast paths.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "racepred/clock/lock_set.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred {

inline constexpr LockId kReadHold = LockId{1} << 31;

// The token of lock y held in read mode (lock ids beyond 2^31 cannot be told apart from it).
inline LockId read_hold(LockId y) {
  if (y >= kReadHold) [[unlikely]]
    throw InputError("error: more than 2^31 locks: read locks need the top bit of a lock id");
  return y | kReadHold;
}

// LS(a) ∩ LS(b) = {} under the read-write rule above.
inline bool disjoint_rw(const LockSetTable& table, LockSetTable::SetId a, LockSetTable::SetId b) {
  const auto la = table.locks(a);
  const auto lb = table.locks(b);
  // Sorted: read tokens come last. Without any, the plain intersection decides.
  if ((la.empty() || la.back() < kReadHold) && (lb.empty() || lb.back() < kReadHold))
    return table.disjoint(a, b);
  for (const LockId x : la)
    for (const LockId y : lb)
      if ((x & ~kReadHold) == (y & ~kReadHold) && !(x & y & kReadHold)) return false;
  return true;
}

// "{l1,r:l2}": the lock names of a set, read holds marked r:, sorted (annotations).
inline std::string lock_set_names(const LockSetTable& table, LockSetTable::SetId set,
                                  const Symbols& symbols) {
  std::vector<std::string> names;
  for (const LockId y : table.locks(set)) {
    std::string name = y & kReadHold ? "r:" : "";
    name += symbols.locks.name(y & ~kReadHold);
    names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  std::string s = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s += ',';
    s += names[i];
  }
  s += '}';
  return s;
}

}  // namespace racepred
