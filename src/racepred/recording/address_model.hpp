// The address model of a recording: what a recorded address means at the time of the event.
// An address inside a live heap block is (allocation instance, offset), so that a block that
// reuses freed memory gets fresh variables and address reuse makes no false race; any other
// address is itself. Variables and locks get dense ids in order of first appearance.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "racepred/format/trace_format.hpp"

namespace racepred::recording {

// A variable or lock: an address, or (allocation instance, offset) inside a heap block.
struct Key {
  uint64_t instance;  // 0: not heap
  uint64_t addr;      // address, or offset in the block; bit 63: the atomic lock
  bool operator==(const Key&) const = default;
};

// Dense ids of keys in order of first appearance: an open-addressing table of ids (no node per
// key: lbzip2's recording has 2.3 million distinct heap variables). Keys the caller numbers
// itself (add) are not in the table.
class KeyIds {
 public:
  uint32_t add(const Key& k) {
    keys_.push_back(k);
    return static_cast<uint32_t>(keys_.size() - 1);
  }
  uint32_t id(const Key& k) {
    if ((hashed_.size() + 1) * 2 > slots_.size()) grow();
    for (size_t i = hash(k) & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const uint32_t s = slots_[i];
      if (s == 0) {
        const uint32_t id = add(k);
        slots_[i] = id + 1;
        hashed_.push_back(id);
        return id;
      }
      if (keys_[s - 1] == k) return s - 1;
    }
  }
  const std::vector<Key>& keys() const { return keys_; }

 private:
  static size_t hash(const Key& k) {
    uint64_t h = k.instance * 0x9E3779B97F4A7C15ULL ^ k.addr;  // splitmix64's finaliser
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<size_t>(h ^ (h >> 31));
  }
  void grow();
  std::vector<uint32_t> slots_;  // id + 1; 0 empty
  std::vector<uint32_t> hashed_;
  std::vector<Key> keys_;
};

// A direct-mapped cache of address -> id in front of KeyIds: most events repeat recent
// addresses. Slots are chosen by 8-byte granule, so an allocation or a free (which changes what
// the addresses of its block mean) invalidates only the slots of its block's granules; a block
// larger than a quarter of the cache invalidates everything (a new epoch).
// It starts small (a recording of a few hundred events should not pay for clearing a large
// table) and grows, emptied, to kMaxBits as misses show that the recording touches more
// addresses than it holds.
class AddressCache {
 public:
  template <typename Compute>
  uint32_t get(uint64_t addr, Compute&& compute) {
    Entry& e = slots_[slot(addr)];
    if (e.addr == addr && e.epoch == epoch_) return e.id;
    if (++misses_ > (slots_.size() << 1) && bits_ < kMaxBits) {
      grow();
      return get(addr, compute);
    }
    e = Entry{addr, epoch_, compute()};
    return e.id;
  }
  // The addresses [start, start + size) change meaning.
  void invalidate(uint64_t start, uint64_t size);

 private:
  static constexpr unsigned kMinBits = 8, kMaxBits = 14;
  struct Entry {
    uint64_t addr = UINT64_MAX;
    uint64_t epoch = 0;
    uint32_t id = 0;
  };
  size_t slot(uint64_t addr) const {
    return static_cast<size_t>((((addr & ~format::kAtomicLockBit) >> 3) * 0x9E3779B97F4A7C15ULL) >>
                               (64 - bits_));
  }
  void grow() {
    bits_ = std::min(bits_ + 2, kMaxBits);
    slots_.assign(size_t{1} << bits_, Entry{});
    misses_ = 0;
  }
  unsigned bits_ = kMinBits;
  std::vector<Entry> slots_ = std::vector<Entry>(size_t{1} << kMinBits);
  uint64_t epoch_ = 0;
  uint64_t misses_ = 0;
};

// The heap as the recording saw it, and the ids of the variables and locks met so far.
class AddressModel {
 public:
  // A block of `size` bytes allocated at `addr` by the code at `site`: a new instance.
  void alloc(uint64_t addr, uint64_t size, uint64_t site);
  // The block at `addr` is freed (an address the runtime did not see allocated is ignored).
  void free(uint64_t addr);

  // The id of the variable that a read or write of `addr` accesses now. Programs that stream
  // through a buffer touch each of its addresses a few times: the heap block of the last
  // lookup is tried first, by offset (no hash, and its ids are next to each other).
  uint32_t variable(uint64_t addr) {
    if (const uint64_t off = addr - recent_.start; off < recent_.size) [[likely]] {
      if (const uint32_t* page = recent_.pages[off >> kPageBits].get()) [[likely]] {
        if (const uint32_t id = page[off & (kPage - 1)]; id != UINT32_MAX) return id;
      }
    }
    return var_cache_.get(addr, [&] { return variable_uncached(addr); });
  }
  // The id of the lock at `addr` (bit 63: the atomic lock of the address) now.
  uint32_t lock(uint64_t addr) {
    return lock_cache_.get(addr, [&] { return lock_ids_.id(key_of(addr)); });
  }

  // What `addr` means now (its variable's or lock's key, without an id).
  Key key(uint64_t addr) const { return key_of(addr); }
  // The live block that starts at `addr`: its instance and size, and whether any of its bytes
  // was accessed (blocks above kDenseBlock: always true). False when there is none.
  bool block_at(uint64_t addr, uint64_t& instance, uint64_t& size, bool& accessed) const {
    auto it = blocks_.find(addr);
    if (it == blocks_.end()) return false;
    instance = it->second.instance;
    size = it->second.size;
    accessed = size > kDenseBlock || !it->second.pages.empty();
    return true;
  }

  // Races on [addr, addr + size) are benign (ThreadSanitizer's AnnotateBenignRaceSized): the
  // range as the addresses mean now (a heap block's instance and offsets).
  void benign(uint64_t addr, uint64_t size);
  bool has_benign() const { return !benign_.empty(); }
  // Per variable id: inside a benign range.
  std::vector<bool> benign_variables() const;

  // The key of each variable id and lock id.
  const std::vector<Key>& variables() const { return var_ids_.keys(); }
  const std::vector<Key>& locks() const { return lock_ids_.keys(); }
  // The allocation site of each instance (sites()[0] is unused: instance 0 is "not heap").
  const std::vector<uint64_t>& sites() const { return sites_; }

  // Bytes of the arrays of ids that the live blocks hold (see Block::pages).
  uint64_t id_bytes() const;

  // Blocks up to this size number their bytes in arrays (see Block::pages).
  static constexpr uint64_t kDenseBlock = uint64_t{16} << 20;

 private:
  // Offsets per page of ids.
  static constexpr unsigned kPageBits = 10;
  static constexpr uint64_t kPage = uint64_t{1} << kPageBits;
  using Page = std::unique_ptr<uint32_t[]>;
  struct Block {
    uint64_t size;
    uint64_t site;
    uint64_t instance;
    // Blocks up to kDenseBlock bytes: the variable id of each offset (UINT32_MAX: not yet seen),
    // in pages of kPage offsets, each made when one of its offsets is first accessed (the
    // table of pages at the block's first access). Programs that stream through buffers touch
    // millions of distinct addresses; arrays indexed by offset keep those lookups sequential,
    // and pages keep the memory to the parts of a block that are used (lbzip2 allocates for
    // its largest block and uses a fraction).
    std::vector<Page> pages;
  };
  static uint64_t end_of(uint64_t start, const Block& b) {
    return start + std::max<uint64_t>(b.size, 1);
  }
  Key key_of(uint64_t addr) const;
  uint32_t variable_uncached(uint64_t addr);
  // The addresses whose key changes when a block [start, end) comes or goes.
  void changed(uint64_t start, uint64_t end);

  // The block of the last lookup in a dense block: its start, size and ids (size 0: none;
  // forgotten whenever a block comes or goes).
  // (A copy or a move of the model starts without one.)
  struct Recent {
    uint64_t start = 0, size = 0;
    const Page* pages = nullptr;
    Recent() = default;
    Recent(const Recent&) {}
    Recent& operator=(const Recent&) {
      size = 0;
      return *this;
    }
  };
  Recent recent_;
  void forget_recent() { recent_.size = 0; }

  // Benign ranges: (instance, first offset or address) -> end, in key space.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> benign_;
  std::map<uint64_t, Block> blocks_;
  uint64_t instances_ = 0;
  std::vector<uint64_t> sites_ = std::vector<uint64_t>(1, 0);
  KeyIds var_ids_, lock_ids_;
  AddressCache var_cache_, lock_cache_;
};

}  // namespace racepred::recording
