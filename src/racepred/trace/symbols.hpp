// Interned names: each distinct string gets a dense id from 0 in order of first appearance.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racepred {

class SymbolTable {
 public:
  SymbolTable();

  // Returns the id of `name`, adding it if new.
  uint32_t intern(std::string_view name);
  std::optional<uint32_t> find(std::string_view name) const;
  std::string_view name(uint32_t id) const { return names_[id]; }
  uint32_t size() const { return static_cast<uint32_t>(names_.size()); }
  bool empty() const { return names_.empty(); }

 private:
  static uint64_t hash(std::string_view s);
  void grow();

  // deque: element addresses stay stable, so slots may point into the stored strings.
  std::deque<std::string> names_;
  struct Slot {
    uint64_t hash = 0;
    uint32_t id = UINT32_MAX;  // UINT32_MAX = empty
  };
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
};

// The four name spaces of a trace (DESIGN.md: variables, locks and threads are separate).
struct Symbols {
  SymbolTable threads;
  SymbolTable variables;
  SymbolTable locks;
  SymbolTable locations;
};

}  // namespace racepred
