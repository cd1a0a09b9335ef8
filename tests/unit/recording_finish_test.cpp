// racepred record's conversion of raw recordings (recording/finish.hpp): merge by sequence number,
// the consistent cut of a recording that ended early, torn tails and corrupt blocks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/recording/assemble.hpp"
#include "racepred/recording/finish.hpp"
#include "racepred/recording/naming.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/recording/symbolizer.hpp"
#include "racepred/trace/error.hpp"
#include "support/raw_builder.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

namespace fmt = racepred::format;
using test::RawBuilder;
using test::rec;

std::string temp(const std::string& tag) {
  return ::testing::TempDir() + "rp_rec_" + tag + "_" + std::to_string(::getpid());
}

// The recording converted to STD text (names unsymbolised: hex addresses, T<tid>).
std::string convert(const std::string& bytes, recording::FinishResult* result = nullptr) {
  const std::string raw = temp("raw"), out = temp("out") + ".std";
  std::ofstream(raw, std::ios::binary) << bytes;
  recording::FinishOptions o;
  o.output = out;
  o.symbolize = false;
  const recording::FinishResult r = recording::finish_recording(raw, o);
  if (result) *result = r;
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(raw.c_str());
  std::remove(out.c_str());
  return text;
}

// T0 forks T1 (seq 1); T1 writes 0x10 (seq 2) and 0x20 (seq 4); T0 writes 0x10 (seq 3),
// joins T1 (seq 5).
RawBuilder two_threads(bool t0_ends, bool t1_ends, bool t1_second_block, bool complete) {
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kFork, 1)}, false);
  f.start(1, 2);
  f.records(1, {rec(2, fmt::kWrite, 0x10)}, !t1_second_block && t1_ends);
  f.records(0, {rec(3, fmt::kWrite, 0x10)}, false);
  if (t1_second_block) f.records(1, {rec(4, fmt::kWrite, 0x20)}, t1_ends);
  if (t0_ends) f.records(0, {rec(5, fmt::kJoin, 1)}, true);
  if (complete) f.note("complete=1\n");
  return f;
}

TEST(Recording, MergesThreadsBySequenceNumber) {
  recording::FinishResult r;
  const std::string text = convert(two_threads(true, true, true, true).bytes(), &r);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(text,
            "T0|fork(T1)|0x1000\nT1|w(0x10)|0x1000\nT0|w(0x10)|0x1000\n"
            "T1|w(0x20)|0x1000\nT0|join(T1)|0x1000\n");
  EXPECT_EQ(r.events, 5u);
  EXPECT_EQ(r.threads, 2u);
}

TEST(Recording, UnfinishedRecordingIsCutAtAConsistentPrefix) {
  // The program died: T1 wrote records up to seq 2 only, so seq 3 and later may be missing
  // events of T1: the trace keeps seq 0..2.
  recording::FinishResult r;
  const std::string text = convert(two_threads(false, false, false, false).bytes(), &r);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(text, "T0|fork(T1)|0x1000\nT1|w(0x10)|0x1000\n");
  EXPECT_EQ(r.cut_events, 1u);
}

TEST(Recording, ThreadThatNeverFlushedCutsAtItsStart) {
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kFork, 1), rec(3, fmt::kWrite, 0x10)}, false);
  f.start(1, 2);  // T1 started (its events have seq > 2) but wrote nothing
  const std::string text = convert(f.bytes());
  EXPECT_EQ(text, "T0|fork(T1)|0x1000\n");
}

TEST(Recording, TornLastBlockIsDroppedAndCorruptBlockIsAnError) {
  RawBuilder f = two_threads(true, true, true, true);
  std::string torn = f.bytes();
  RawBuilder tail;
  tail.records(1, {rec(9, fmt::kWrite, 0x30)}, true);
  torn += tail.bytes().substr(fmt::kHeaderSize, 20);  // a header and part of a payload
  recording::FinishResult r;
  const std::string text = convert(torn, &r);
  EXPECT_TRUE(r.torn);
  EXPECT_FALSE(r.complete);
  EXPECT_NE(text.find("T0|join(T1)"), std::string::npos);  // every thread ended: nothing cut

  std::string corrupt = f.bytes();
  corrupt[fmt::kHeaderSize + fmt::kBlockHeaderSize + 2] ^= 0x40;  // inside the first block
  EXPECT_THROW(convert(corrupt), InputError);
  EXPECT_THROW(convert("not a recording at all"), InputError);
}

TEST(Recording, HeapBlocksAreFreshVariablesPerAllocation) {
  // T0 allocates 0x100 (16 bytes) and writes 0x108; frees; allocates 0x100 again and writes
  // 0x108: two allocations, two variables, although the address is the same.
  RawBuilder f;
  f.start(0, 0);
  f.records(0,
            {rec(1, fmt::kRawAlloc, 0x100, 0x2000), rec(2, fmt::kRawSize, 16, 0x2000),
             rec(3, fmt::kWrite, 0x108), rec(4, fmt::kRawFree, 0x100),
             rec(5, fmt::kRawAlloc, 0x100, 0x2000), rec(6, fmt::kRawSize, 16, 0x2000),
             rec(7, fmt::kWrite, 0x108)},
            true);
  f.note("complete=1\n");
  const std::string text = convert(f.bytes());
  EXPECT_EQ(text, "T0|w(heap[0x2000#1]+8)|0x1000\nT0|w(heap[0x2000#2]+8)|0x1000\n");
}

TEST(Recording, AddressesChangeNameExactlyWhenTheirBlockComesOrGoes) {
  // The conversion caches address -> variable and forgets only the addresses of a block that is
  // allocated or freed (a big block forgets everything): each access is named by the blocks
  // live at its time. 0x108 is outside any block, then in block #1 (small), outside again, then
  // in block #2 (1 MiB); 0x9000 is outside every block all along; 0x40008 is in block #2 only.
  RawBuilder f;
  f.start(0, 0);
  f.records(0,
            {rec(1, fmt::kWrite, 0x108), rec(2, fmt::kWrite, 0x9000),
             rec(3, fmt::kRawAlloc, 0x100, 0x2000), rec(4, fmt::kRawSize, 16, 0x2000),
             rec(5, fmt::kWrite, 0x108), rec(6, fmt::kWrite, 0x9000), rec(7, fmt::kRawFree, 0x100),
             rec(8, fmt::kWrite, 0x108), rec(9, fmt::kWrite, 0x9000), rec(10, fmt::kWrite, 0x40008),
             rec(11, fmt::kRawAlloc, 0x40000, 0x3000), rec(12, fmt::kRawSize, 1 << 20, 0x3000),
             rec(13, fmt::kWrite, 0x40008), rec(14, fmt::kWrite, 0x108),
             rec(15, fmt::kRawFree, 0x40000), rec(16, fmt::kWrite, 0x40008)},
            true);
  f.note("complete=1\n");
  const std::string text = convert(f.bytes());
  EXPECT_EQ(text,
            "T0|w(0x108)|0x1000\nT0|w(0x9000)|0x1000\nT0|w(heap[0x2000#1]+8)|0x1000\n"
            "T0|w(0x9000)|0x1000\nT0|w(0x108)|0x1000\nT0|w(0x9000)|0x1000\n"
            "T0|w(0x40008)|0x1000\nT0|w(heap[0x3000#2]+8)|0x1000\nT0|w(0x108)|0x1000\n"
            "T0|w(0x40008)|0x1000\n");
}

TEST(Recording, SyncOrdersAreEventsAndBenignRangesLoseTheirAccesses) {
  // send/recv (ops 8, 9) become events on the sync object at their address. A benign range
  // (ThreadSanitizer's AnnotateBenignRaceSized: 0x100, 16 bytes) drops every access to it,
  // before and after the annotation, and keeps the rest; one in a heap block is the block's
  // offsets while it lives (0x208 in block #1 is dropped, 0x208 after its free is kept).
  RawBuilder f;
  f.start(0, 0);
  f.records(0,
            {rec(1, fmt::kWrite, 0x108), rec(2, fmt::kSend, 0x50), rec(3, fmt::kRecv, 0x50),
             rec(4, fmt::kRawBenign, 0x100), rec(5, fmt::kRawSize, 16), rec(6, fmt::kRead, 0x10f),
             rec(7, fmt::kWrite, 0x110), rec(8, fmt::kRawAlloc, 0x200, 0x2000),
             rec(9, fmt::kRawSize, 32, 0x2000), rec(10, fmt::kRawBenign, 0x208),
             rec(11, fmt::kRawSize, 8), rec(12, fmt::kWrite, 0x208), rec(13, fmt::kWrite, 0x210),
             rec(14, fmt::kRawFree, 0x200), rec(15, fmt::kWrite, 0x208)},
            true);
  f.note("complete=1\n");
  const std::string text = convert(f.bytes());
  EXPECT_EQ(text,
            "T0|send(0x50)|0x1000\nT0|recv(0x50)|0x1000\nT0|w(0x110)|0x1000\n"
            "T0|w(heap[0x2000#1]+16)|0x1000\nT0|w(0x208)|0x1000\n");
}

// A mutex initialised by the program (a sync object) that T1 finds busy: the read of the object
// that each of its lock events carries comes before T1's req, not between the req and the
// acquire that grants it (nothing else may follow a req in its thread).
TEST(Recording, ARequestOfAnInitialisedMutexIsFollowedByItsAcquire) {
  RawBuilder f;
  f.start(0, 0);
  f.start(1, 0);
  f.records(0,
            {rec(1, fmt::kRawSyncObject, 0x4000), rec(2, fmt::kRawSize, 40),
             rec(3, fmt::kAcquire, 0x4000)},
            false);
  f.records(1, {rec(4, fmt::kRequest, 0x4000)}, false);
  f.records(0, {rec(5, fmt::kRelease, 0x4000)}, true);
  f.records(1, {rec(6, fmt::kAcquire, 0x4000), rec(7, fmt::kRelease, 0x4000)}, true);
  f.note("complete=1\n");
  const std::string text = convert(f.bytes());
  std::vector<std::string> ops;  // T1's operations in order
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("T1|", 0) == 0) ops.push_back(line.substr(3, line.find('(') - 3));
  EXPECT_EQ(ops, (std::vector<std::string>{"r", "req", "acq", "r", "rel"})) << text;
  EXPECT_NO_THROW(parse_checked_trace(text)) << text;
}

// A long recording of three threads whose records interleave in short runs: sized accesses
// (some inside others), a lock, calls and returns (stacks of depth 4), heap blocks that come
// and go, a sync object. `steps` records in all, blocks of 4,000 records per thread.
RawBuilder long_recording(uint64_t steps) {
  RawBuilder f;
  std::vector<fmt::RawRecord> pending[3];
  std::vector<int> depth(3, 0);
  for (uint32_t t = 0; t < 3; ++t) f.start(t, 0);
  const uint8_t w8 = fmt::raw_access(fmt::kWrite, fmt::kSize8);
  const uint8_t r1 = fmt::raw_access(fmt::kRead, fmt::kSize1);
  uint64_t seq = 1;
  for (uint64_t k = 0; k < steps; ++k, ++seq) {
    const uint32_t t = static_cast<uint32_t>((k / 3) % 3);
    std::vector<fmt::RawRecord>& out = pending[t];
    const uint64_t pc = 0x1000 + 4 * (k % 13);
    switch (k % 9) {
      case 0:
        out.push_back(rec(seq, fmt::kAcquire, 0x8000, pc));
        break;
      case 1:
        out.push_back(rec(seq, w8, 0x100 + 8 * (k % 5), pc));
        break;
      case 2:
        out.push_back(rec(seq, fmt::kRelease, 0x8000, pc));
        break;
      case 3:
        out.push_back(rec(seq, r1, 0x103 + 8 * (k % 4), pc));  // inside another's 8 bytes
        break;
      case 4:
        if (depth[t] < 3) {
          out.push_back(rec(seq, fmt::kRawFuncEntry, 0x5000 + k % 3, pc));
          ++depth[t];
        } else {
          out.push_back(rec(seq, fmt::kRawFuncExit, 0, pc));
          --depth[t];
        }
        break;
      case 5:
        if (k % 900 == 5) {  // a block that lives for a while, used by every thread
          out.push_back(rec(seq, fmt::kRawAlloc, 0x90000 + 64 * (k % 4), pc));
          out.push_back(rec(seq, fmt::kRawSize, 64, pc));
        } else if (k % 900 == 455) {
          out.push_back(rec(seq, fmt::kRawFree, 0x90000 + 64 * ((k - 450) % 4), pc));
        } else {
          out.push_back(rec(seq, w8, 0x90000 + 64 * (k % 4) + 8 * (k % 3), pc));
        }
        break;
      case 6:
        if (k % 2000 == 6) {
          out.push_back(rec(seq, fmt::kRawSyncObject, 0x8000, pc));
          out.push_back(rec(seq, fmt::kRawSize, 40, pc));
        } else {
          out.push_back(rec(seq, fmt::kRead, 0x200 + 8 * (k % 7), pc));
        }
        break;
      default:
        out.push_back(rec(seq, fmt::kWrite, 0x300 + 8 * (k % 11), pc));
    }
    if (out.size() >= 4000) {
      f.records(t, out, false);
      out.clear();
    }
  }
  for (uint32_t t = 0; t < 3; ++t) f.records(t, pending[t], true);
  f.note("stack_depth=4\n");
  f.note("complete=1\n");
  return f;
}

// Call stacks against a direct model: each access's stack is its own code address and the
// return addresses of its thread's innermost open calls, at most depth - 1 of them and never
// the outermost (the call into the thread's first function); returns past the outermost call
// are ignored. Two threads interleave random calls (to a few return addresses, so call paths
// repeat), returns and accesses (docs/RECORDER.md, "Stacks").
TEST(Recording, StacksAreTheInnermostOpenCallsOfTheirThread) {
  constexpr uint32_t kDepth = 4;
  RawBuilder f;
  f.start(0, 0);
  f.start(1, 0);
  std::vector<std::vector<uint64_t>> open(2);
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> want;  // per access: pc, callers
  std::vector<std::vector<fmt::RawRecord>> out(2);
  uint64_t seq = 0, state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int k = 0; k < 20000; ++k) {
    const uint32_t t = next() % 2;
    const uint64_t pick = next() % 10, pc = 0x1000 + 16 * (next() % 5);
    if (pick < 3 && open[t].size() < 9) {
      const uint64_t ret = 0x5000 + 16 * (next() % 3);
      out[t].push_back(rec(++seq, fmt::kRawFuncEntry, ret, pc));
      open[t].push_back(ret);
    } else if (pick < 6) {
      out[t].push_back(rec(++seq, fmt::kRawFuncExit, 0, pc));
      if (!open[t].empty()) open[t].pop_back();
    } else {
      out[t].push_back(rec(++seq, fmt::kWrite, 0x100 + 8 * t, pc));
      const size_t n = std::min<size_t>(open[t].empty() ? 0 : open[t].size() - 1, kDepth - 1);
      want.push_back({pc, std::vector<uint64_t>(open[t].rbegin(),
                                                open[t].rbegin() + static_cast<ptrdiff_t>(n))});
    }
  }
  for (uint32_t t = 0; t < 2; ++t) f.records(t, out[t], true);
  f.note("stack_depth=4\n");
  f.note("complete=1\n");
  const recording::RawRecording r = recording::decode_recording(f.bytes(), "o.raw");
  const recording::Assembled a = recording::assemble(r, recording::consistent_cut(r));
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> got;
  for (const Event& e : a.events) {
    if (!e.is_access()) continue;
    std::vector<uint64_t> callers;
    for (const uint32_t c : a.caller_nodes[a.location_nodes[e.location]])
      callers.push_back(a.pcs[c]);
    got.push_back({a.pcs[e.location], callers});
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "access " << i;
}

// Each event of a trace as text: thread, op, target, location and stack frames by name.
std::vector<std::string> describe(const std::vector<Event>& events, const Symbols& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    std::string line = std::string(s.threads.name(e.thread)) + " " + std::string(op_name(e.op)) +
                       " " +
                       std::string(e.is_access()        ? s.variables.name(e.target)
                                   : targets_lock(e.op) ? s.locks.name(e.target)
                                                        : s.threads.name(e.target)) +
                       " " + std::string(s.locations.name(e.location));
    for (const uint32_t frame : s.stacks.of(i + 1))
      line += " <" + std::string(s.locations.name(frame));
    out.push_back(line);
  }
  return out;
}

// The conversion streams (docs/PERFORMANCE.md, "Recorder"): by its own accounting it holds at
// most a batch and a chunk of events and, with pages given back every 32 KiB, at most that
// much of the raw recording plus a block per thread, however long the recording is; and what
// it writes is what the in-memory assembly makes, stacks included.
TEST(Recording, ConversionHoldsABoundedPartOfTheRecordingAndMatchesTheInMemoryAssembly) {
  const uint64_t give_back = 32 << 10;
  for (int size = 0; size < 2; ++size) {
    const uint64_t steps = size == 0 ? 30000 : 120000;
    RawBuilder f = long_recording(steps);
    const std::string raw = temp("long") + ".raw", out = temp("long") + ".rpt";
    std::ofstream(raw, std::ios::binary) << f.bytes();
    recording::FinishOptions o;
    o.output = out;
    o.symbolize = false;
    o.give_back_bytes = give_back;
    const recording::FinishResult r = recording::finish_recording(raw, o);
    const recording::RawRecording rec = recording::decode_recording(f.bytes(), "long.raw");
    uint64_t block = 0;  // the largest block
    for (const auto& [tid, t] : rec.threads)
      for (const recording::RawBlock& b : t.blocks)
        block = std::max<uint64_t>(block, static_cast<uint64_t>(b.end - b.data));
    const uint64_t bound = give_back + 3 * block;
    EXPECT_LE(r.peak_raw_bytes_held, bound);
    EXPECT_GT(r.peak_raw_bytes_held, 0u);
    EXPECT_GT(f.bytes().size(),
              4 * bound * size);  // (for the longer one the bound is not the file)
    EXPECT_LE(r.peak_events_held, fmt::kChunkEvents + recording::Assembly::kBatch);
    if (size) {
      EXPECT_LT(r.peak_events_held, r.events);  // (not all of them)
    }
    EXPECT_GT(r.events, steps * 8 / 10);

    const Trace written = load_trace(out);
    ASSERT_EQ(written.size(), r.events);
    recording::Assembled in_memory = recording::assemble(rec, recording::consistent_cut(rec));
    recording::Symbolizer no_tools({}, false);
    const Symbols symbols = recording::name_trace(in_memory, no_tools);
    EXPECT_FALSE(symbols.stacks.empty());
    EXPECT_EQ(describe(written.events, written.symbols), describe(in_memory.events, symbols));
    // The names, written as the events first need them, are the whole tables all the same.
    ASSERT_EQ(written.symbols.variables.size(), symbols.variables.size());
    for (uint32_t v = 0; v < symbols.variables.size(); ++v)
      ASSERT_EQ(written.symbols.variables.name(v), symbols.variables.name(v)) << v;
    ASSERT_EQ(written.symbols.locks.size(), symbols.locks.size());
    for (uint32_t l = 0; l < symbols.locks.size(); ++l)
      ASSERT_EQ(written.symbols.locks.name(l), symbols.locks.name(l)) << l;
    std::remove(raw.c_str());
    std::remove(out.c_str());
  }
}

// The first pass keeps its events for the second in chunks: in memory while there is one, else
// in a temporary file. Converted with chunks of 64 bytes (hundreds of them in the file, ranges
// of frees and call stacks among the events), the trace is byte for byte the one converted in
// memory.
TEST(Recording, EventsKeptInATemporaryFileGiveTheSameTraceAsInMemory) {
  RawBuilder f = long_recording(30000);
  const std::string raw = temp("spill") + ".raw";
  std::ofstream(raw, std::ios::binary) << f.bytes();
  std::string bytes[2];
  for (int small = 0; small < 2; ++small) {
    recording::FinishOptions o;
    o.output = temp("spill") + (small ? ".file.rpt" : ".memory.rpt");
    o.symbolize = false;
    if (small) o.spill_chunk_bytes = 64;
    const recording::FinishResult r = recording::finish_recording(raw, o);
    if (small)
      EXPECT_GT(r.spill_bytes, 100u * 64);
    else
      EXPECT_EQ(r.spill_bytes, 0u);
    EXPECT_GT(r.events, 20000u);
    std::ifstream in(o.output, std::ios::binary);
    bytes[small].assign(std::istreambuf_iterator<char>(in), {});
    std::remove(o.output.c_str());
  }
  EXPECT_FALSE(bytes[0].empty());
  EXPECT_TRUE(bytes[0] == bytes[1]);
  std::remove(raw.c_str());
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
