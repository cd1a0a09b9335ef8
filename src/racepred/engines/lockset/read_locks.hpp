// Read-write locks in the lock-set engines (docs/ENGINES.md, "Read-write locks").
//
// A lock y held in read mode is the token read_mode(y) (clock/lock_set.hpp) in the thread's
// LockSetTable set; in write mode it is y itself. Two accesses of different threads are protected
// by y iff both hold y and at least one in write mode: the effect of the standard reduction (a read
// section of y by thread t holds (y,t), a write section every (y,u)), so the engines stay exact
// against ls-standard. The table's own disjointness (a plain intersection) is right for sets
// without read tokens, which keeps traces without read locks on their fast paths.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "racepred/clock/lock_set.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred {

// LS(a) ∩ LS(b) = {} under the read-write rule above. Engines call it only once the trace has
// taken a lock in read mode; before, the table's plain test is the same and cheaper.
inline bool disjoint_rw(const LockSetTable& table, LockSetTable::SetId a, LockSetTable::SetId b) {
  if ((table.mask(a) & table.mask(b)) == 0)
    return true;  // no lock in common (y and its token
                  // share a mask bit)
  bool common = false;
  table.for_each_lock(a, [&](LockId x) {
    table.for_each_lock(b, [&](LockId y) {
      common |= lock_of(x) == lock_of(y) && !(is_read_mode(x) && is_read_mode(y));
    });
  });
  return !common;
}

// "{l1,r:l2}": the lock names of a set, read holds marked r:, sorted (annotations).
inline std::string lock_set_names(const LockSetTable& table, LockSetTable::SetId set,
                                  const Symbols& symbols) {
  std::vector<std::string> names;
  for (const LockId y : table.sorted_locks(set)) {
    std::string name = is_read_mode(y) ? "r:" : "";
    name += symbols.locks.name(lock_of(y));
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
