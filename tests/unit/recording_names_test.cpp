// The address model and the names of a recording: heap memory is (allocation instance, offset),
// named by its allocation site; the same address in two allocations is two variables.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/address_model.hpp"
#include "racepred/recording/assemble.hpp"
#include "racepred/recording/naming.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/recording/symbolizer.hpp"
#include "support/raw_builder.hpp"

namespace racepred::recording {
namespace {

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

TEST(RecordingAddressModel, ABlockLargerThanTheDenseLimitIsHashed) {
  AddressModel m;
  m.alloc(0x10000000, AddressModel::kDenseBlock + 8, 0x2000);
  const uint32_t a = m.variable(0x10000000 + AddressModel::kDenseBlock);
  EXPECT_EQ(m.variables()[a], (Key{1, AddressModel::kDenseBlock}));
  m.free(0x10000000);
  EXPECT_EQ(m.variables()[m.variable(0x10000000 + AddressModel::kDenseBlock)],
            (Key{0, 0x10000000 + AddressModel::kDenseBlock}));
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

}  // namespace
}  // namespace racepred::recording
