#include "racepred/trace/symbols.hpp"

#include <cstring>

namespace racepred {

SymbolTable::SymbolTable() : slots_(64), mask_(63) {}

uint64_t SymbolTable::hash(std::string_view s) {
  // FNV-1a over 8-byte words, then a final mix: names are short, this is cheap and good enough.
  uint64_t h = 0xcbf29ce484222325ULL ^ s.size();
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  h = (h ^ tail) * 0x9E3779B97F4A7C15ULL;
  h ^= h >> 32;
  return h;
}

std::optional<uint32_t> SymbolTable::find(std::string_view name) const {
  const uint64_t h = hash(name);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == UINT32_MAX) return std::nullopt;
    if (slot.hash == h && names_[slot.id] == name) return slot.id;
  }
}

uint32_t SymbolTable::intern(std::string_view name) {
  const uint64_t h = hash(name);
  uint64_t i = h & mask_;
  for (;; i = (i + 1) & mask_) {
    Slot& slot = slots_[i];
    if (slot.id == UINT32_MAX) break;
    if (slot.hash == h && names_[slot.id] == name) return slot.id;
  }
  const auto id = static_cast<uint32_t>(names_.size());
  names_.emplace_back(name);
  slots_[i] = Slot{h, id};
  if (names_.size() * 2 > slots_.size()) grow();
  return id;
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
