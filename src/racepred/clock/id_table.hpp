// A growable table of per-id state: per thread, per variable, per lock. Ids are dense from 0
// and an engine meets each id first in an event, so the table grows on demand; the growth is
// out of line and geometric, the lookup one compare.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace racepred {

template <class T>
class IdTable {
 public:
  IdTable() = default;
  // New entries start as `initial`.
  explicit IdTable(T initial) : initial_(std::move(initial)) {}

  // The entry of `id`, created (as the initial value) if the table did not reach it yet.
  T& operator[](size_t id) {
    if (id >= items_.size()) [[unlikely]]
      grow(id);
    return items_[id];
  }
  // The entry of `id`, or nullptr when the table has not reached it (no growth).
  const T* find(size_t id) const { return id < items_.size() ? &items_[id] : nullptr; }
  // Makes ids [0, n) valid.
  void ensure(size_t n) {
    if (n > items_.size()) grow(n - 1);
  }
  size_t size() const { return items_.size(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  [[gnu::noinline]] void grow(size_t id) {
    items_.resize(std::max(id + 1, items_.size() + items_.size() / 2 + 8), initial_);
  }

  T initial_{};
  std::vector<T> items_;
};

}  // namespace racepred
