#include "racepred/trace/symbols.hpp"

#include <algorithm>
#include <cstring>

namespace racepred {
namespace {

constexpr size_t kBlockSize = 64 * 1024;

// kLowMask[n] keeps the first n bytes of a little-endian word (n = 0..8).
constexpr uint64_t low_mask(size_t n) { return n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1; }

inline uint64_t load_word(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

inline uint64_t mix(uint64_t h) {
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ULL;
  h ^= h >> 32;
  return h;
}

}  // namespace

SymbolTable::SymbolTable() : slots_(64), mask_(63) {}

SymbolTable::SymbolTable(const SymbolTable& other) : SymbolTable() {
  for (uint32_t id = 0; id < other.size(); ++id) intern(other.name(id));
}

SymbolTable& SymbolTable::operator=(const SymbolTable& other) {
  if (this != &other) *this = SymbolTable(other);
  return *this;
}

SymbolTable::Key SymbolTable::load_key(const char* data, size_t size, bool padded) {
  Key key;
  if (padded) {
    // 16 readable bytes are guaranteed; mask off what is not part of the name.
    key.lo = load_word(data) & low_mask(size);
    key.hi = size > 8 ? load_word(data + 8) & low_mask(size - 8) : 0;
  } else {
    char buf[16] = {};
    std::memcpy(buf, data, std::min<size_t>(size, 16));
    key.lo = load_word(buf);
    key.hi = load_word(buf + 8);
  }
  return key;
}

uint64_t SymbolTable::hash(const Key& key, const char* data, size_t size) {
  uint64_t h = (key.lo ^ 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
  h ^= (key.hi + size) * 0x94D049BB133111EBULL;
  for (size_t i = 16; i < size; i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, data + i, std::min<size_t>(8, size - i));
    h = (h ^ w) * 0x100000001B3ULL;
    h ^= h >> 29;
  }
  return mix(h);
}

bool SymbolTable::slot_matches(const Slot& slot, const Key& key, uint64_t h, const char* data,
                               size_t size) const {
  if (slot.key.lo != key.lo || slot.key.hi != key.hi || slot.size != size) return false;
  if (size <= 16) return true;
  return slot.hash == h && std::memcmp(names_[slot.id].data + 16, data + 16, size - 16) == 0;
}

std::optional<uint32_t> SymbolTable::find(std::string_view name) const {
  const Key key = load_key(name.data(), name.size(), false);
  const uint64_t h = hash(key, name.data(), name.size());
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == UINT32_MAX) return std::nullopt;
    if (slot_matches(slot, key, h, name.data(), name.size())) return slot.id;
  }
}

uint32_t SymbolTable::intern_impl(const char* data, size_t size, bool padded) {
  const Key key = load_key(data, size, padded);
  // The cache entry has a hash only for long names; compare it like a slot.
  if (last_.id != UINT32_MAX && last_.key.lo == key.lo && last_.key.hi == key.hi &&
      last_.size == size &&
      (size <= 16 || std::memcmp(names_[last_.id].data + 16, data + 16, size - 16) == 0))
    return last_.id;
  const uint64_t h = hash(key, data, size);
  uint64_t i = h & mask_;
  for (;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == UINT32_MAX) break;
    if (slot.hash == h && slot_matches(slot, key, h, data, size)) {
      last_ = slot;
      return slot.id;
    }
  }
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(Name{store(data, size), static_cast<uint32_t>(size)});
  slots_[i] = Slot{key, static_cast<uint32_t>(size), id, h};
  last_ = slots_[i];
  if (names_.size() * 2 > slots_.size()) grow();
  return id;
}

const char* SymbolTable::store(const char* data, size_t size) {
  if (size > block_left_) {
    const size_t n = std::max(kBlockSize, size);
    blocks_.push_back(std::make_unique<char[]>(n));
    block_pos_ = blocks_.back().get();
    block_left_ = n;
  }
  char* p = block_pos_;
  if (size) std::memcpy(p, data, size);
  block_pos_ += size;
  block_left_ -= size;
  return p;
}

void SymbolTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == UINT32_MAX) continue;
    uint64_t i = s.hash & mask_;
    while (slots_[i].id != UINT32_MAX) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace racepred
