#include "racepred/trace/symbols.hpp"

#include <string>

#include "racepred/trace/error.hpp"

#include <algorithm>

namespace racepred {
namespace {

constexpr size_t kBlockSize = 64 * 1024;
}  // namespace

SymbolTable::SymbolTable() : slots_(64), mask_(63) {}

SymbolTable::SymbolTable(const SymbolTable& other) : SymbolTable() {
  max_names_ = other.max_names_;
  for (uint32_t id = 0; id < other.size(); ++id) intern(other.name(id));
}

SymbolTable& SymbolTable::operator=(const SymbolTable& other) {
  if (this != &other) *this = SymbolTable(other);
  return *this;
}

SymbolTable::SymbolTable(SymbolTable&& other) noexcept : SymbolTable() {
  *this = std::move(other);
}

SymbolTable& SymbolTable::operator=(SymbolTable&& other) noexcept {
  if (this == &other) return *this;
  names_ = std::move(other.names_);
  hashes_ = std::move(other.hashes_);
  blocks_ = std::move(other.blocks_);
  block_pos_ = other.block_pos_;
  block_left_ = other.block_left_;
  slots_ = std::move(other.slots_);
  mask_ = other.mask_;
  last_ = other.last_;
  last_id_ = other.last_id_;
  max_names_ = other.max_names_;
  // Leave `other` empty and usable.
  other.names_.clear();
  other.hashes_.clear();
  other.blocks_.clear();
  other.block_pos_ = nullptr;
  other.block_left_ = 0;
  other.slots_.assign(64, Slot{});
  other.mask_ = 63;
  other.last_ = Key{0, 0, UINT64_MAX};
  other.last_id_ = kEmpty;
  return *this;
}

uint64_t SymbolTable::hash_tail(uint64_t h, const char* data, size_t size) {
  for (size_t i = 16; i < size; i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, data + i, std::min<size_t>(8, size - i));
    h = fold_mul(h ^ kSeed0, w ^ kSeed1);
  }
  return h;
}

bool SymbolTable::same_name(uint32_t id, const Key& key, const char* data) const {
  const Name& n = names_[id];
  return n.size == key.size && std::memcmp(n.data, data, key.size) == 0;
}

std::optional<uint32_t> SymbolTable::find(std::string_view name) const {
  const Key key = load_key(name.data(), name.size());
  const uint64_t h = hash(key, name.data());
  const uint32_t m = meta(key, h);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == kEmpty) return std::nullopt;
    if (slot.lo == key.lo && slot.meta == m &&
        (key.size <= 8 || same_name(slot.id, key, name.data())))
      return slot.id;
  }
}

uint32_t SymbolTable::probe(const Key& key, uint64_t h, const char* data) {
  const uint32_t m = meta(key, h);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == kEmpty) return insert(i, key, h, data);
    if (slot.lo == key.lo && slot.meta == m && (key.size <= 8 || same_name(slot.id, key, data))) {
      last_ = key;
      last_id_ = slot.id;
      return slot.id;
    }
  }
}

uint32_t SymbolTable::insert(uint64_t slot, const Key& key, uint64_t h, const char* data) {
  if (names_.size() >= max_names_)
    throw NameLimitError("more than " + std::to_string(max_names_) +
                         " distinct names of one kind (threads, variables, locks or locations)");
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(Name{store(data, key.size), static_cast<uint32_t>(key.size)});
  hashes_.push_back(h);
  slots_[slot] = Slot{key.lo, id, meta(key, h)};
  last_ = key;
  last_id_ = id;
  // Load at most 1/4 while the table is small (fewer collisions, still cache-resident), 1/2 after.
  if (names_.size() * (slots_.size() < (size_t{1} << 16) ? 4 : 2) > slots_.size()) grow();
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
    if (s.id == kEmpty) continue;
    uint64_t i = hashes_[s.id] & mask_;
    while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace racepred
