// Interned names: each distinct string gets a dense id from 0 in order of first appearance.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racepred {

class SymbolTable {
 public:
  SymbolTable();
  SymbolTable(const SymbolTable& other);
  SymbolTable& operator=(const SymbolTable& other);
  SymbolTable(SymbolTable&&) noexcept = default;
  SymbolTable& operator=(SymbolTable&&) noexcept = default;

  // Returns the id of `name`, adding it if new.
  uint32_t intern(std::string_view name) { return intern_impl(name.data(), name.size(), false); }
  // The same, for readers: the caller guarantees that 16 bytes from `data` are readable even
  // when `size` is smaller (the bytes past the name are ignored). Saves a copy per name.
  uint32_t intern_padded(const char* data, size_t size) { return intern_impl(data, size, true); }
  std::optional<uint32_t> find(std::string_view name) const;
  std::string_view name(uint32_t id) const { return {names_[id].data, names_[id].size}; }
  uint32_t size() const { return static_cast<uint32_t>(names_.size()); }
  bool empty() const { return names_.empty(); }

 private:
  // A name's first 16 bytes as two zero-padded words: short names compare as two integers.
  struct Key {
    uint64_t lo = 0;
    uint64_t hi = 0;
  };
  struct Slot {
    Key key;
    uint32_t size = 0;
    uint32_t id = UINT32_MAX;  // UINT32_MAX = empty
    uint64_t hash = 0;
  };
  struct Name {
    const char* data;
    uint32_t size;
  };

  static Key load_key(const char* data, size_t size, bool padded);
  static uint64_t hash(const Key& key, const char* data, size_t size);
  uint32_t intern_impl(const char* data, size_t size, bool padded);
  bool slot_matches(const Slot& slot, const Key& key, uint64_t h, const char* data,
                    size_t size) const;
  const char* store(const char* data, size_t size);
  void grow();

  std::vector<Name> names_;
  // Name bytes live in blocks that never move, so name() views stay valid while the table grows.
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_pos_ = nullptr;
  size_t block_left_ = 0;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  // One-entry cache: consecutive events often repeat a name (the same thread, lock, variable).
  Slot last_;
};

// The four name spaces of a trace (DESIGN.md: variables, locks and threads are separate).
struct Symbols {
  SymbolTable threads;
  SymbolTable variables;
  SymbolTable locks;
  SymbolTable locations;
};

}  // namespace racepred
