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
  SymbolTable(SymbolTable&& other) noexcept;
  SymbolTable& operator=(SymbolTable&& other) noexcept;

  // Returns the id of `name`, adding it if new.
  uint32_t intern(std::string_view name) {
    return intern_key(load_key(name.data(), name.size()), name.data());
  }
  // The same, for readers: the caller guarantees that 16 bytes from `data` are readable even
  // when `size` is smaller (the bytes past the name are ignored). Saves a copy per name.
  // Names that rarely repeat on consecutive events (source locations) skip the one-entry cache
  // of the last name: its test and update cost more than it saves there.
  template <bool kRepeats = true>
  uint32_t intern_padded(const char* data, size_t size) {
    return intern_key<kRepeats>(load_key_padded(data, size), data);
  }
  // For readers that look names up a few lines ahead: starts loading the slot that `data`
  // (padded as for intern_padded) hashes to, so that the intern_padded that follows finds it
  // in cache. Worth it only once the table is larger than the caches (large()).
  void prefetch_padded(const char* data, size_t size) const {
    __builtin_prefetch(&slots_[hash(load_key_padded(data, size), data) & mask_]);
  }
  bool large() const { return mask_ >= kLargeSlots; }
  std::optional<uint32_t> find(std::string_view name) const;
  std::string_view name(uint32_t id) const { return {names_[id].data, names_[id].size}; }
  uint32_t size() const { return static_cast<uint32_t>(names_.size()); }
  bool empty() const { return names_.empty(); }
  // A lower limit than kMaxNames (tests reach the limit with a few names).
  void set_max_names(uint32_t max_names) { max_names_ = max_names; }

 private:
  // A name's first 16 bytes as two zero-padded little-endian words, and its length: short
  // names (the usual case) compare and hash as integers.
  struct Key {
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t size = 0;
  };
  // Open addressing, linear probing, load <= 1/2. A slot holds the first 8 bytes of its name,
  // so names of up to 8 bytes are found with one memory access.
  struct Slot {
    uint64_t lo = 0;
    uint32_t id = kEmpty;
    uint32_t meta = 0;  // hash bits 32..55 << 8 | min(size, 255)
  };
  struct Name {
    const char* data;
    uint32_t size;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static constexpr uint64_t kLargeSlots = (uint64_t{1} << 17) - 1;  // 2 MB of slots and more

 public:
  // Most distinct names in one table (ids are 32 bits); one more throws NameLimitError.
  static constexpr uint32_t kMaxNames = uint32_t{1} << 31;

 private:
  static uint64_t mask(size_t n) {  // the first n (<= 8) bytes of a word
    return n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
  }
  static uint64_t word(const char* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  static Key load_key_padded(const char* data, size_t size) {
    Key k;
    k.size = size;
    k.lo = word(data) & mask(size);
    k.hi = size > 8 ? word(data + 8) & mask(size - 8) : 0;
    return k;
  }
  static Key load_key(const char* data, size_t size) {
    char buf[16] = {};
    std::memcpy(buf, data, size < 16 ? size : 16);
    Key k;
    k.size = size;
    k.lo = word(buf);
    k.hi = word(buf + 8);
    return k;
  }
  // 64x64 -> 128-bit multiply, folded: one multiplication mixes every input bit.
  static uint64_t fold_mul(uint64_t a, uint64_t b) {
    const unsigned __int128 m = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  }
  static constexpr uint64_t kSeed0 = 0x9FB21C651E98DF25ULL;
  static constexpr uint64_t kSeed1 = 0xC2B2AE3D27D4EB4FULL;
  static uint64_t hash(const Key& key, const char* data) {
    const uint64_t h = fold_mul(key.lo ^ kSeed0, key.hi ^ key.size ^ kSeed1);
    return key.size <= 16 ? h : hash_tail(h, data, key.size);
  }
  static uint64_t hash_tail(uint64_t h, const char* data, size_t size);
  static uint32_t meta(const Key& key, uint64_t h) {
    return static_cast<uint32_t>((h >> 32) << 8) |
           static_cast<uint32_t>(key.size < 255 ? key.size : 255);
  }
  bool same_name(uint32_t id, const Key& key, const char* data) const;

  template <bool kRepeats = true>
  uint32_t intern_key(const Key& key, const char* data) {
    // One-entry cache: consecutive events often repeat a name (the same thread, lock, variable).
    if (kRepeats && key.lo == last_.lo && key.hi == last_.hi && key.size == last_.size &&
        (key.size <= 16 || same_name(last_id_, key, data)))
      return last_id_;
    const uint64_t h = hash(key, data);
    const Slot& slot = slots_[h & mask_];
    if (slot.lo == key.lo && slot.meta == meta(key, h) && key.size <= 8) {
      if (kRepeats) {
        last_ = key;
        last_id_ = slot.id;
      }
      return slot.id;
    }
    return probe(key, h, data);  // longer name, collision or a new name
  }
  uint32_t probe(const Key& key, uint64_t h, const char* data);
  uint32_t insert(uint64_t slot, const Key& key, uint64_t h, const char* data);
  const char* store(const char* data, size_t size);
  void grow();

  std::vector<Name> names_;
  std::vector<uint64_t> hashes_;  // per id, for grow()
  // Name bytes live in blocks that never move, so name() views stay valid while the table grows.
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_pos_ = nullptr;
  size_t block_left_ = 0;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  Key last_{0, 0, UINT64_MAX};  // matches no name until the first lookup
  uint32_t last_id_ = kEmpty;
  uint32_t max_names_ = kMaxNames;
};

// The call stacks of a recorded trace (`racepred record --stack-depth N`, binary format version
// 5, docs/FORMATS.md "Stacks"); empty for every other trace.
struct Stacks {
  // Stack id -> its frames as location ids, innermost first (frame 0 is the event's own
  // location). Id 0 is "no stack" and has no frames.
  std::vector<std::vector<uint32_t>> frames;
  // Event id -> stack id (0: none); events past its end have none.
  std::vector<uint32_t> of_event;
  // Thread id -> the thread that created it and the stack of that fork (stack 0: not known).
  struct Creation {
    uint32_t parent = 0;
    uint32_t stack = 0;
  };
  std::vector<Creation> created;

  bool empty() const { return frames.size() <= 1; }
  // The frames of event `e`'s stack (empty: none).
  const std::vector<uint32_t>& of(uint64_t e) const {
    static const std::vector<uint32_t> none;
    if (e >= of_event.size() || of_event[e] >= frames.size()) return none;
    return frames[of_event[e]];
  }
};

// The four name spaces of a trace (variables, locks and threads are separate), and its stacks.
struct Symbols {
  SymbolTable threads;
  SymbolTable variables;
  SymbolTable locks;
  SymbolTable locations;
  Stacks stacks;
};

}  // namespace racepred
