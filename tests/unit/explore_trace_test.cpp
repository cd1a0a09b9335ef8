// explore analyses each execution's trace in memory (unnamed_trace): it must be the trace that
// finish_recording writes without symbols and load_checked_trace reads back (the same events,
// ids and names), and an ill-formed recording must be refused as the file route refuses it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "racepred/explore/explorer.hpp"
#include "racepred/format/trace_format.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/recording/finish.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/trace/error.hpp"
#include "support/raw_builder.hpp"

namespace racepred::explore {
namespace RACEPRED_TEST_FILE {

namespace fmt = racepred::format;
using test::RawBuilder;
using test::rec;

std::string temp(const std::string& what) {
  return ::testing::TempDir() + "explore_trace_" + what + "_" + std::to_string(getpid());
}

// Three threads: locked and unlocked accesses of shared words, bytes inside another's word, a
// sync object, and heap blocks.
RawBuilder recording(uint64_t steps) {
  RawBuilder f;
  for (uint32_t t = 0; t < 3; ++t) f.start(t, 0);
  const uint8_t w8 = fmt::raw_access(fmt::kWrite, fmt::kSize8);
  const uint8_t r1 = fmt::raw_access(fmt::kRead, fmt::kSize1);
  std::vector<fmt::RawRecord> pending[3];
  uint64_t seq = 1;
  for (uint64_t k = 0; k < steps; ++k, ++seq) {
    const uint32_t t = static_cast<uint32_t>((k / 4) % 3);
    const uint64_t pc = 0x1000 + 4 * (k % 11);
    switch (k % 4) {
      case 0:
        pending[t].push_back(rec(seq, fmt::kAcquire, 0x8000, pc));
        break;
      case 1:
        pending[t].push_back(rec(seq, w8, 0x100 + 8 * (k % 5), pc));
        break;
      case 2:
        pending[t].push_back(rec(seq, fmt::kRelease, 0x8000, pc));
        break;
      default:
        pending[t].push_back(k % 8 == 3 ? rec(seq, r1, 0x103 + 8 * (k % 3), pc)
                                        : rec(seq, fmt::kSend, 0x9000, pc));
    }
    if (pending[t].size() == 50) {
      f.records(t, pending[t], false);
      pending[t].clear();
    }
  }
  for (uint32_t t = 0; t < 3; ++t) f.records(t, pending[t], true);
  return f;
}

TEST(ExploreTrace, TheTraceInMemoryIsTheTraceFileReadBack) {
  RawBuilder f = recording(2000);
  const std::string raw = temp("a") + ".raw", out = temp("a") + ".rpt";
  std::ofstream(raw, std::ios::binary) << f.bytes();
  recording::FinishOptions o;
  o.output = out;
  o.symbolize = false;
  recording::finish_recording(raw, o);
  const Trace file = load_checked_trace(out);
  const recording::RawFile bytes(raw);
  const Trace memory = unnamed_trace(recording::decode_recording(bytes, raw), raw);
  ASSERT_EQ(memory.size(), file.size());
  ASSERT_GT(file.size(), 1000u);
  EXPECT_EQ(memory.ids, file.ids);
  for (size_t i = 0; i < file.size(); ++i) {
    const Event& a = memory.events[i];
    const Event& b = file.events[i];
    ASSERT_EQ(a.op, b.op) << i;
    ASSERT_EQ(memory.thread_name(a.thread), file.thread_name(b.thread)) << i;
    ASSERT_EQ(memory.target_name(a), file.target_name(b)) << i;
    ASSERT_EQ(memory.location_name(a.location), file.location_name(b.location)) << i;
  }
  std::remove(raw.c_str());
  std::remove(out.c_str());
}

// Each execution of an exploration names its code with the module map of its recording: the
// naming's cache (its Symbolizer) is reused while the map is the same text and replaced when it
// is not, and the traces are those made without it.
TEST(ExploreTrace, TheNamingCacheGivesTheSameTraceAndFollowsTheModuleMap) {
  const std::string exe = "/proc/self/exe";
  auto with_maps = [&](const std::string& maps) {
    RawBuilder f = recording(400);
    f.block(fmt::kBlockMaps, {maps.begin(), maps.end()});
    return f;
  };
  // The code addresses (0x1000 + ...) in a module here, then elsewhere (no module: hex).
  const std::string here = "00001000-00002000 r-xp 00000000 00:00 0 " + exe + "\n";
  const std::string elsewhere = "00009000-0000a000 r-xp 00000000 00:00 0 " + exe + "\n";
  UnnamedTraceCache cache;
  std::vector<std::string> first_names;
  for (const std::string& maps : {here, here, elsewhere, here}) {
    const std::string bytes = with_maps(maps).bytes();
    const recording::RawRecording rec = recording::decode_recording(bytes, "memory");
    const Trace cached = unnamed_trace(rec, "memory", &cache);
    const Trace plain = unnamed_trace(rec, "memory");
    EXPECT_EQ(cache.maps, maps);
    ASSERT_TRUE(cache.symbolizer);
    ASSERT_EQ(cached.size(), plain.size());
    for (size_t i = 0; i < plain.size(); ++i)
      ASSERT_EQ(cached.location_name(cached.events[i].location),
                plain.location_name(plain.events[i].location))
          << i;
    const std::string name(cached.location_name(cached.events[0].location));
    if (maps == here)
      EXPECT_NE(name.find("exe+0x"), std::string::npos) << name;
    else
      EXPECT_EQ(name.rfind("0x", 0), 0u) << name;
  }
}

TEST(ExploreTrace, AnIllFormedRecordingIsRefused) {
  // T0 releases a lock it never acquired.
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kRelease, 0x8000)}, true);
  const std::string raw = temp("b") + ".raw";
  std::ofstream(raw, std::ios::binary) << f.bytes();
  const recording::RawFile bytes(raw);
  EXPECT_THROW(unnamed_trace(recording::decode_recording(bytes, raw), raw), InputError);
  std::remove(raw.c_str());
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::explore
