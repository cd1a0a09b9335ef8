// The address model and the names of a recording: heap memory is (allocation instance, offset),
// named by its allocation site; the same address in two allocations is two variables.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/address_model.hpp"
#include "racepred/recording/assemble.hpp"
#include "racepred/recording/naming.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/recording/symbolizer.hpp"
#include "support/raw_builder.hpp"

namespace racepred::recording {
namespace RACEPRED_TEST_FILE {

namespace fmt = racepred::format;
using test::RawBuilder;
using test::rec;

TEST(RecordingAddressModel, HeapAddressesAreInstanceAndOffset) {
  AddressModel m;
  const uint32_t before = m.variable(0x108);  // not heap yet: the address itself
  m.alloc(0x100, 16, 0x2000);
  const uint32_t first = m.variable(0x108);
  EXPECT_EQ(m.variable(0x108), first);  // cached, same id
  const uint32_t lock = m.lock(0x104);
  const uint32_t atomic = m.lock(0x104 | fmt::kAtomicLockBit);
  m.free(0x100);
  EXPECT_EQ(m.variable(0x108), before);  // freed: the address itself again
  m.alloc(0x100, 16, 0x3000);
  const uint32_t second = m.variable(0x108);
  EXPECT_NE(second, first);
  EXPECT_NE(second, before);
  EXPECT_NE(m.lock(0x104), lock);
  m.free(0x999);  // never allocated: nothing changes
  EXPECT_EQ(m.variable(0x108), second);

  ASSERT_EQ(m.variables().size(), 3u);
  EXPECT_EQ(m.variables()[before], (Key{0, 0x108}));
  EXPECT_EQ(m.variables()[first], (Key{1, 8}));
  EXPECT_EQ(m.variables()[second], (Key{2, 8}));
  EXPECT_EQ(m.locks()[lock], (Key{1, 4}));
  EXPECT_EQ(m.locks()[atomic], (Key{1, 4 | fmt::kAtomicLockBit}));
  EXPECT_EQ(m.sites(), (std::vector<uint64_t>{0, 0x2000, 0x3000}));
}

TEST(RecordingAddressModel, ALargeBlockIsHeapMemoryToo) {
  AddressModel m;
  const uint64_t big = uint64_t{1} << 32;  // (no array per byte: its ids are hashed)
  m.alloc(0x10000000, big + 8, 0x2000);
  const uint32_t a = m.variable(0x10000000 + big);
  EXPECT_EQ(m.variables()[a], (Key{1, big}));
  m.free(0x10000000);
  EXPECT_EQ(m.variables()[m.variable(0x10000000 + big)], (Key{0, 0x10000000 + big}));
}

// A block's ids are kept in pages for the parts of it that are accessed: an 8 MiB buffer of
// which three places far apart are used holds three pages (4 KiB each), none once freed.
TEST(RecordingAddressModel, ABlockHoldsIdsOnlyForThePartsThatAreAccessed) {
  AddressModel m;
  m.alloc(0x10000000, uint64_t{8} << 20, 0x2000);
  const uint32_t a = m.variable(0x10000000 + 16);
  const uint32_t b = m.variable(0x10000000 + (uint64_t{4} << 20));
  const uint32_t c = m.variable(0x10000000 + (uint64_t{8} << 20) - 1);
  EXPECT_EQ(m.variable(0x10000000 + 16), a);
  EXPECT_EQ(m.variables()[b], (Key{1, uint64_t{4} << 20}));
  EXPECT_EQ(m.variables()[c], (Key{1, (uint64_t{8} << 20) - 1}));
  EXPECT_EQ(m.id_bytes(), 3u * 4096);
  m.free(0x10000000);
  EXPECT_EQ(m.id_bytes(), 0u);
}

// The ids of a random program's accesses, allocations and frees (blocks that overlap and reuse
// addresses, frees the runtime did not see, blocks of size 0) are those of the definition: an
// address means (instance, offset) inside the live block that starts last at or before it,
// else itself; a key gets its id at its first access.
TEST(RecordingAddressModel, IdsAreTheDefinitions) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    AddressModel m;
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> blocks;  // start -> (size, instance)
    std::map<std::pair<uint64_t, uint64_t>, uint32_t> ids;     // key -> id
    uint64_t instances = 0, state = seed;
    auto next = [&](uint64_t n) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return (state >> 33) % n;
    };
    for (int step = 0; step < 3000; ++step) {
      const uint64_t pick = next(100), addr = 0x1000 + next(512);
      if (pick < 6) {
        const uint64_t size = next(4) == 0 ? 0 : 1 + next(96);
        m.alloc(addr, size, 0x7000 + next(3));
        blocks[addr] = {size, ++instances};
      } else if (pick < 12) {
        const uint64_t start = next(2) && !blocks.empty() ? blocks.begin()->first : addr;
        m.free(start);
        blocks.erase(start);
      } else {
        std::pair<uint64_t, uint64_t> key{0, addr};
        auto it = blocks.upper_bound(addr);
        if (it != blocks.begin()) {
          --it;
          if (addr - it->first < std::max<uint64_t>(it->second.first, 1))
            key = {it->second.second, addr - it->first};
        }
        auto [known, fresh] = ids.emplace(key, static_cast<uint32_t>(ids.size()));
        ASSERT_EQ(m.variable(addr), known->second) << seed << " step " << step;
        ASSERT_EQ(m.variables()[known->second], (Key{key.first, key.second}));
        (void)fresh;
      }
    }
  }
}

// The address caches start small and grow as the addresses come: every id stays that of the
// key the address means now, across the growth and across frees that invalidate part of them.
TEST(RecordingAddressModel, IdsStayRightWhileTheCachesGrow) {
  AddressModel m;
  constexpr uint64_t kGlobals = 40000;  // more than the largest cache holds
  std::vector<uint32_t> ids(kGlobals), locks(kGlobals);
  for (uint64_t i = 0; i < kGlobals; ++i) {
    ids[i] = m.variable(0x1000 + 8 * i);
    locks[i] = m.lock(0x1000 + 8 * i);
  }
  m.alloc(0x1000 + 8 * 100, 64, 0x2000);  // eight of the addresses are now heap
  for (uint64_t round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < kGlobals; ++i) {
      const uint32_t id = m.variable(0x1000 + 8 * i);
      const uint32_t lock = m.lock(0x1000 + 8 * i);
      if (i >= 100 && i < 108) {
        ASSERT_EQ(m.variables()[id], (Key{1, 8 * (i - 100)})) << i;
        ASSERT_EQ(m.locks()[lock], (Key{1, 8 * (i - 100)})) << i;
      } else {
        ASSERT_EQ(id, ids[i]) << i;
        ASSERT_EQ(lock, locks[i]) << i;
      }
    }
  }
  m.free(0x1000 + 8 * 100);
  for (uint64_t i = 0; i < kGlobals; ++i) ASSERT_EQ(m.variable(0x1000 + 8 * i), ids[i]) << i;
  EXPECT_EQ(m.variables().size(), kGlobals + 8);
}

TEST(RecordingNames, HeapNameIsSiteInstanceAndOffset) {
  EXPECT_EQ(heap_name("heap.c:7:9 (main)", 3, 8), "heap[heap.c:7:9 (main)#3]+8");
  EXPECT_EQ(heap_name("0x2000", 1, 0), "heap[0x2000#1]");
}

TEST(RecordingNames, VariablesLocksAndLocationsOfARecording) {
  // T0 allocates 16 bytes at 0x100 from 0x2000, writes 0x108 and locks 0x104 and its atomic
  // lock, frees, writes 0x108 again (no longer heap) from two code addresses.
  RawBuilder f;
  f.start(0, 0);
  f.records(
      0,
      {rec(1, fmt::kRawAlloc, 0x100, 0x2000), rec(2, fmt::kRawSize, 16, 0x2000),
       rec(3, fmt::kWrite, 0x108, 0x1000), rec(4, fmt::kAcquire, 0x104, 0x1004),
       rec(5, fmt::kAcquire, 0x104 | fmt::kAtomicLockBit, 0x1008), rec(6, fmt::kRawFree, 0x100),
       rec(7, fmt::kWrite, 0x108, 0x1000), rec(8, fmt::kRead, 0x108, 0x100c)},
      true);
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "n.raw");
  Assembled a = assemble(r, consistent_cut(r));
  // (The free writes no variable: only this thread used the block.)
  ASSERT_EQ(a.events.size(), 5u);
  EXPECT_EQ(a.pcs, (std::vector<uint64_t>{0x1000, 0x1004, 0x1008, 0x100c}));
  Symbolizer no_tools({}, false);
  const Symbols s = name_trace(a, no_tools);
  ASSERT_EQ(s.threads.size(), 1u);
  EXPECT_EQ(s.threads.name(0), "T0");
  ASSERT_EQ(s.variables.size(), 2u);
  EXPECT_EQ(s.variables.name(a.events[0].target), "heap[0x2000#1]+8");
  EXPECT_EQ(s.variables.name(a.events[3].target), "0x108");
  EXPECT_EQ(a.events[3].target, a.events[4].target);
  ASSERT_EQ(s.locks.size(), 2u);
  EXPECT_EQ(s.locks.name(a.events[1].target), "heap[0x2000#1]+4");
  EXPECT_EQ(s.locks.name(a.events[2].target), "atomic:heap[0x2000#1]+4");
  EXPECT_EQ(s.locations.name(a.events[0].location), "0x1000");
  EXPECT_EQ(a.events[0].location, a.events[3].location);
  EXPECT_EQ(s.locations.name(a.events[4].location), "0x100c");
}

TEST(RecordingNames, TheSameAddressInTwoAllocationsHasTwoNames) {
  // Two allocations at 0x100 by the same site: the instance tells them apart.
  RawBuilder f;
  f.start(0, 0);
  f.records(0,
            {rec(1, fmt::kRawAlloc, 0x100, 0x2000), rec(2, fmt::kRawSize, 8, 0x2000),
             rec(3, fmt::kWrite, 0x100), rec(4, fmt::kRawFree, 0x100),
             rec(5, fmt::kRawAlloc, 0x100, 0x2000), rec(6, fmt::kRawSize, 8, 0x2000),
             rec(7, fmt::kWrite, 0x100)},
            true);
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "u.raw");
  Assembled a = assemble(r, consistent_cut(r));
  Symbolizer no_tools({}, false);
  const Symbols s = name_trace(a, no_tools);
  ASSERT_EQ(s.variables.size(), 2u);
  EXPECT_EQ(s.variables.name(0), "heap[0x2000#1]");
  EXPECT_EQ(s.variables.name(1), "heap[0x2000#2]");
}

// Access sizes: an access is an access of its own start and of every variable (start address
// of an access) inside its bytes that another thread accessed, so overlapping accesses of two
// threads share a variable and disjoint ones do not.
TEST(RecordingAccessSizes, OverlappingAccessesShareAVariableDisjointOnesDoNot) {
  const uint8_t w8 = fmt::raw_access(fmt::kWrite, fmt::kSize8);
  const uint8_t r1 = fmt::raw_access(fmt::kRead, fmt::kSize1);
  const uint8_t w1 = fmt::raw_access(fmt::kWrite, fmt::kSize1);
  const uint8_t w4 = fmt::raw_access(fmt::kWrite, fmt::kSize4);
  const uint8_t r2 = fmt::raw_access(fmt::kRead, fmt::kSize2);
  const uint8_t range = fmt::raw_access(fmt::kRead, fmt::kSizeRange);
  RawBuilder f;
  f.start(0, 0);
  f.start(1, 0);
  f.records(0,
            {rec(1, w8, 0x1000),  // 8 bytes at +0, T1 reads 1 byte at +3
             rec(3, w1, 0x2000),  // two chars of one word
             rec(5, w4, 0x3000),  // adjacent, not overlapping
             rec(7, w8, 0x4000),  // same size, same address
             rec(9, range, 0x5000), rec(10, fmt::kRawSize, 64),
             rec(13, w1, 0x1006)},  // inside T0's own 8 bytes: T0's write does not split at it
            true);
  f.records(1,
            {rec(2, r1, 0x1003), rec(4, w1, 0x2001), rec(6, r2, 0x3004), rec(8, w8, 0x4000),
             rec(11, w4, 0x5010), rec(12, w4, 0x5040)},  // in the range; just past it
            true);
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "s.raw");
  Assembled a = assemble(r, consistent_cut(r));
  Symbolizer no_tools({}, false);
  const Symbols s = name_trace(a, no_tools);
  std::vector<std::string> got;
  for (const Event& e : a.events)
    got.push_back(std::string(s.threads.name(e.thread)) + " " + std::string(op_name(e.op)) + " " +
                  std::string(s.variables.name(e.target)));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "T0 w 0x1000", "T0 w 0x1003", "T1 r 0x1003", "T0 w 0x2000", "T1 w 0x2001",
                     "T0 w 0x3000", "T1 r 0x3004", "T0 w 0x4000", "T1 w 0x4000", "T0 r 0x5000",
                     "T0 r 0x5010", "T1 w 0x5010", "T1 w 0x5040", "T0 w 0x1006"}));
}

// Init/destroy of a sync object write it and its lock events are preceded by a read of it; a
// free writes the variables of the block that another thread used; a worker's stack is named
// after the thread.
TEST(RecordingAccessSizes, SyncObjectsFreesAndStacks) {
  const uint8_t w4 = fmt::raw_access(fmt::kWrite, fmt::kSize4);
  RawBuilder f;
  f.start(0, 0);
  f.start(1, 0);
  f.records(0,
            {rec(1, fmt::kRawSyncObject, 0x4000), rec(2, fmt::kRawSize, 40),
             rec(3, fmt::kAcquire, 0x4000), rec(4, fmt::kRelease, 0x4000),
             rec(5, fmt::kAcquire, 0x6000), rec(9, fmt::kRawAlloc, 0x8000, 0x2000),
             rec(10, fmt::kRawSize, 16), rec(11, w4, 0x8000), rec(13, fmt::kRawFree, 0x8000)},
            true);
  f.records(1,
            {rec(6, fmt::kRawStack, 0x7000), rec(7, fmt::kRawSize, 0x1000), rec(8, w4, 0x7100),
             rec(12, w4, 0x8004)},
            true);
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "o.raw");
  Assembled a = assemble(r, consistent_cut(r));
  Symbolizer no_tools({}, false);
  const Symbols s = name_trace(a, no_tools);
  std::vector<std::string> got;
  for (const Event& e : a.events)
    got.push_back(std::string(s.threads.name(e.thread)) + " " + std::string(op_name(e.op)) + " " +
                  std::string(e.is_access() ? s.variables.name(e.target) : s.locks.name(e.target)));
  EXPECT_EQ(got, (std::vector<std::string>{"T0 w 0x4000", "T0 r 0x4000", "T0 acq 0x4000",
                                           "T0 r 0x4000", "T0 rel 0x4000", "T0 acq 0x6000",
                                           "T1 w stack of T1 0x7100", "T0 w heap[0x2000#1]",
                                           "T1 w heap[0x2000#1]+4", "T0 w heap[0x2000#1]+4"}));
}

TEST(RecordingNames, MapsGiveModuleOffsetsAndTheStack) {
  const std::vector<Mapping> maps = parse_maps(
      "555555554000-555555556000 r-xp 00001000 08:01 42   /opt/prog with space\n"
      "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0    [stack]\n");
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0].path, "/opt/prog with space");
  EXPECT_TRUE(maps[0].exec);
  EXPECT_EQ(maps[0].offset, 0x1000u);
  EXPECT_FALSE(maps[1].exec);
  Symbolizer no_tools(maps, false);
  EXPECT_EQ(no_tools.code_names({0x555555554010, 0x42, 0}),
            (std::vector<std::string>{"prog with space+0x1010", "0x42", "?"}));
  EXPECT_TRUE(no_tools.stack(0x7ffffffde100));
  EXPECT_FALSE(no_tools.stack(0x555555554010));
  EXPECT_EQ(no_tools.data_name(0x555555554010), "");
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::recording
