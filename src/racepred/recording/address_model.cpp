#include "racepred/recording/address_model.hpp"

#include <algorithm>
#include <iterator>
#include <memory>

namespace racepred::recording {

namespace fmt = racepred::format;

void KeyIds::grow() {
  std::vector<uint32_t> slots(std::max<size_t>(slots_.size() * 2, 1 << 12), 0);
  for (const uint32_t id : hashed_) {
    size_t i = hash(keys_[id]) & (slots.size() - 1);
    while (slots[i]) i = (i + 1) & (slots.size() - 1);
    slots[i] = id + 1;
  }
  slots_.swap(slots);
}

void AddressCache::invalidate(uint64_t start, uint64_t size) {
  size = std::max<uint64_t>(size, 1);
  const uint64_t first = start >> 3, last = (start + size - 1) >> 3;
  if (last - first >= slots_.size() / 4) {
    ++epoch_;
    return;
  }
  for (uint64_t g = first; g <= last; ++g) {
    Entry& e = slots_[slot(g << 3)];
    const uint64_t a = e.addr & ~fmt::kAtomicLockBit;
    if (a >= start && a - start < size) e.addr = UINT64_MAX;
  }
}

Key AddressModel::key_of(uint64_t addr) const {
  const uint64_t bit = addr & fmt::kAtomicLockBit;
  const uint64_t a = addr & ~fmt::kAtomicLockBit;
  auto it = blocks_.upper_bound(a);
  if (it != blocks_.begin()) {
    --it;
    if (a < end_of(it->first, it->second)) return Key{it->second.instance, (a - it->first) | bit};
  }
  return Key{0, addr};
}

uint32_t AddressModel::variable_uncached(uint64_t addr) {
  auto it = blocks_.upper_bound(addr);
  if (it != blocks_.begin() && !(addr & fmt::kAtomicLockBit)) {
    --it;
    Block& b = it->second;
    const uint64_t size = std::max<uint64_t>(b.size, 1);
    if (addr - it->first < size && size <= kDenseBlock) {
      if (b.pages.empty()) b.pages.resize((size + kPage - 1) >> kPageBits);
      recent_.start = it->first;
      recent_.size = size;
      // (A later block inside it, whose free was not seen, takes its addresses over from there.)
      if (auto later = std::next(it); later != blocks_.end())
        recent_.size = std::min(size, later->first - it->first);
      recent_.pages = b.pages.data();
      const uint64_t off = addr - it->first;
      Page& page = b.pages[off >> kPageBits];
      if (!page) {
        page = std::make_unique_for_overwrite<uint32_t[]>(kPage);
        std::fill_n(page.get(), kPage, UINT32_MAX);
      }
      uint32_t& id = page[off & (kPage - 1)];
      if (id == UINT32_MAX) id = var_ids_.add(Key{b.instance, off});
      return id;
    }
  }
  return var_ids_.id(key_of(addr));
}

// A block starting at `start` and reaching `end` is added or removed: the addresses whose key_of
// changes are [start, end), and up to the end of an earlier block that overlaps it (a free the
// runtime did not see).
void AddressModel::changed(uint64_t start, uint64_t end) {
  forget_recent();
  auto it = blocks_.lower_bound(start);
  if (it != blocks_.begin()) {
    --it;
    end = std::max(end, end_of(it->first, it->second));
  }
  var_cache_.invalidate(start, end - start);
  lock_cache_.invalidate(start, end - start);
}

void AddressModel::benign(uint64_t addr, uint64_t size) {
  const Key k = key_of(addr & ~fmt::kAtomicLockBit);
  uint64_t& end = benign_[{k.instance, k.addr}];
  end = std::max(end, k.addr + std::max<uint64_t>(size, 1));
}

std::vector<bool> AddressModel::benign_variables() const {
  const std::vector<Key>& keys = var_ids_.keys();
  std::vector<bool> out(keys.size(), false);
  for (size_t id = 0; id < keys.size(); ++id) {
    auto it = benign_.upper_bound({keys[id].instance, keys[id].addr});
    // The ranges of one instance may overlap: look back while a range of it could hold the key.
    while (it != benign_.begin()) {
      --it;
      if (it->first.first != keys[id].instance) break;
      if (keys[id].addr < it->second) {
        out[id] = true;
        break;
      }
    }
  }
  return out;
}

uint64_t AddressModel::id_bytes() const {
  uint64_t bytes = 0;
  for (const auto& [start, b] : blocks_)
    for (const Page& p : b.pages) bytes += p ? kPage * sizeof(uint32_t) : 0;
  return bytes;
}

void AddressModel::alloc(uint64_t addr, uint64_t size, uint64_t site) {
  Block block{size, site, ++instances_, {}};
  uint64_t end = end_of(addr, block);
  if (auto old = blocks_.find(addr); old != blocks_.end())
    end = std::max(end, end_of(addr, old->second));
  changed(addr, end);
  blocks_[addr] = std::move(block);
  sites_.push_back(site);
}

void AddressModel::free(uint64_t addr) {
  if (auto it = blocks_.find(addr); it != blocks_.end()) {
    const uint64_t start = it->first, end = end_of(start, it->second);
    blocks_.erase(it);
    changed(start, end);
  }
}

}  // namespace racepred::recording
