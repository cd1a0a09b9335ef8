// The steps of the recording module one by one: decoding a raw recording, the consistent cut of
// an unfinished one, and the merge of its threads in sequence order.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/assemble.hpp"
#include "racepred/recording/merge.hpp"
#include "racepred/recording/raw_recording.hpp"
#include "racepred/trace/error.hpp"
#include "support/raw_builder.hpp"

namespace racepred::recording {
namespace RACEPRED_TEST_FILE {

namespace fmt = racepred::format;
using test::RawBuilder;
using test::rec;

// (thread, sequence number) of every record the merger yields.
std::vector<std::pair<uint32_t, uint64_t>> merged(const RawRecording& r, uint64_t cut,
                                                  uint64_t* cut_events = nullptr) {
  RecordMerger merger(r, cut);
  std::vector<std::pair<uint32_t, uint64_t>> out;
  fmt::RawRecord record;
  uint32_t tid = 0;
  while (merger.next(record, tid)) out.push_back({tid, record.seq});
  if (cut_events) *cut_events = merger.cut_events();
  return out;
}

TEST(RecordingDecode, BlocksAreSortedByThreadWithTheirNotes) {
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kFork, 1), rec(3, fmt::kWrite, 0x10)}, false);
  f.start(1, 2);
  f.records(1, {rec(2, fmt::kWrite, 0x10)}, true);
  f.records(0, {rec(4, fmt::kJoin, 1)}, true);
  f.block(fmt::kBlockMaps, {'m', 'a', 'p', 's'});
  f.note("dropped=3\n");
  f.note("dropped=4\n");
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "t.raw");
  ASSERT_EQ(r.threads.size(), 2u);
  const ThreadStream& t0 = r.threads.at(0);
  const ThreadStream& t1 = r.threads.at(1);
  EXPECT_EQ(t0.blocks.size(), 2u);
  EXPECT_EQ(t0.blocks[0].count, 2u);
  EXPECT_TRUE(t0.ended);
  EXPECT_EQ(t1.start_seq, 2u);
  EXPECT_TRUE(t1.any && t1.ended);
  EXPECT_EQ(r.records, 4u);
  EXPECT_EQ(r.maps, "maps");
  EXPECT_EQ(r.dropped, 7u);
  EXPECT_FALSE(r.capped);
  EXPECT_FALSE(r.torn);
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(consistent_cut(r), UINT64_MAX);
}

TEST(RecordingDecode, BadInputNamesTheFileAndTheByte) {
  try {
    decode_recording("not a recording", "x.raw");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "x.raw: byte 0: error: not a racepred raw recording");
  }
  RawBuilder f;
  f.block(42, {1, 2, 3});
  f.note("complete=1\n");
  try {
    decode_recording(f.bytes(), "y.raw");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "y.raw: byte " + std::to_string(fmt::kHeaderSize) + ": error: unknown block kind 42");
  }
}

TEST(RecordingDecode, CappedOrTornRecordingIsNotComplete) {
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kWrite, 0x10)}, true);
  f.note("complete=1\n");
  RawBuilder capped = f;
  capped.note("capped=1\n");
  EXPECT_FALSE(decode_recording(capped.bytes(), "c.raw").complete());
  EXPECT_TRUE(decode_recording(capped.bytes(), "c.raw").capped);
  std::string torn = f.bytes() + std::string(5, '\0');  // part of a block header
  const RawRecording r = decode_recording(torn, "t.raw");
  EXPECT_TRUE(r.torn);
  EXPECT_FALSE(r.complete());
}

TEST(RecordingCut, IsTheFirstRecordAnUnfinishedThreadMayHaveLost) {
  // T0 wrote up to seq 7 and ended; T1 wrote up to seq 5 and did not end; T2 started after
  // seq 3 and wrote nothing: records from seq 3 on may be missing (T2's), so the cut is 3.
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kFork, 1), rec(2, fmt::kFork, 2), rec(7, fmt::kWrite, 0x10)}, true);
  f.start(1, 1);
  f.records(1, {rec(4, fmt::kWrite, 0x10), rec(5, fmt::kWrite, 0x20)}, false);
  f.start(2, 3);
  RawRecording r = decode_recording(f.bytes(), "u.raw");
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(consistent_cut(r), 3u);
  uint64_t cut_events = 0;
  EXPECT_EQ(merged(r, consistent_cut(r), &cut_events),
            (std::vector<std::pair<uint32_t, uint64_t>>{{0, 1}, {0, 2}}));
  EXPECT_EQ(cut_events, 3u);  // seq 4, 5 and 7

  // Without T2, T1's last record bounds what is certainly all there: up to seq 5.
  RawBuilder g;
  g.start(0, 0);
  g.records(0, {rec(1, fmt::kFork, 1), rec(7, fmt::kWrite, 0x10)}, true);
  g.start(1, 1);
  g.records(1, {rec(4, fmt::kWrite, 0x10), rec(5, fmt::kWrite, 0x20)}, false);
  r = decode_recording(g.bytes(), "v.raw");
  EXPECT_EQ(consistent_cut(r), 6u);
  EXPECT_EQ(merged(r, consistent_cut(r), &cut_events),
            (std::vector<std::pair<uint32_t, uint64_t>>{{0, 1}, {1, 4}, {1, 5}}));
  EXPECT_EQ(cut_events, 1u);
}

TEST(RecordingMerge, YieldsEveryThreadsRecordsInSequenceOrder) {
  // Three threads whose records interleave in runs and one at a time, over several blocks.
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kFork, 1), rec(2, fmt::kFork, 2), rec(3, fmt::kWrite, 0)}, false);
  f.start(1, 2);
  f.start(2, 2);
  f.records(2, {rec(4, fmt::kWrite, 0), rec(5, fmt::kWrite, 0)}, false);
  f.records(1, {rec(6, fmt::kWrite, 0), rec(9, fmt::kWrite, 0)}, false);
  f.records(0, {rec(7, fmt::kWrite, 0), rec(8, fmt::kWrite, 0), rec(13, fmt::kJoin, 1)}, false);
  f.records(2, {rec(10, fmt::kWrite, 0), rec(12, fmt::kWrite, 0)}, true);
  f.records(1, {rec(11, fmt::kWrite, 0)}, true);
  f.records(0, {rec(14, fmt::kJoin, 2)}, true);
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "m.raw");
  uint64_t cut_events = 1;
  EXPECT_EQ(merged(r, consistent_cut(r), &cut_events),
            (std::vector<std::pair<uint32_t, uint64_t>>{{0, 1},
                                                        {0, 2},
                                                        {0, 3},
                                                        {2, 4},
                                                        {2, 5},
                                                        {1, 6},
                                                        {0, 7},
                                                        {0, 8},
                                                        {1, 9},
                                                        {2, 10},
                                                        {1, 11},
                                                        {2, 12},
                                                        {0, 13},
                                                        {0, 14}}));
  EXPECT_EQ(cut_events, 0u);
}

TEST(RecordingMerge, EqualNumbersComeInThreadOrderAndEachThreadKeepsItsOrder) {
  // Lamport timestamps (docs/RECORDER.md, "How records are ordered"): threads that nothing
  // relates number their records alike, and a call record shares its thread's previous number.
  // The merge orders by (number, thread), each thread's records in their order.
  RawBuilder f;
  f.start(0, 0);
  f.records(0,
            {rec(1, fmt::kFork, 1), rec(2, fmt::kWrite, 0x10), rec(2, fmt::kRawFuncEntry, 0x99),
             rec(5, fmt::kJoin, 1)},
            true);
  f.start(1, 2);
  f.records(1, {rec(2, fmt::kWrite, 0x20), rec(3, fmt::kWrite, 0x20), rec(5, fmt::kWrite, 0x20)},
            true);
  f.start(2, 0);
  f.records(2, {rec(1, fmt::kWrite, 0x30), rec(5, fmt::kWrite, 0x30)}, true);
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "l.raw");
  EXPECT_EQ(merged(r, consistent_cut(r)),
            (std::vector<std::pair<uint32_t, uint64_t>>{
                {0, 1}, {2, 1}, {0, 2}, {0, 2}, {1, 2}, {1, 3}, {0, 5}, {1, 5}, {2, 5}}));
}

TEST(RecordingMerge, FollowingIsTheSameThreadsNextRecordWhateverItsNumber) {
  // T0's allocation (seq 1) is followed by its size record (seq 3), T1 wrote seq 2 between them:
  // the size record is taken with the allocation, then T1's write comes.
  RawBuilder f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kRawAlloc, 0x100), rec(3, fmt::kRawSize, 16), rec(4, fmt::kWrite, 0)},
            true);
  f.start(1, 0);
  f.records(1, {rec(2, fmt::kWrite, 0x100)}, true);
  f.note("complete=1\n");
  const RawRecording r = decode_recording(f.bytes(), "a.raw");
  RecordMerger merger(r, consistent_cut(r));
  fmt::RawRecord record;
  uint32_t tid = 9;
  ASSERT_TRUE(merger.next(record, tid));
  EXPECT_EQ(tid, 0u);
  EXPECT_EQ(record.seq, 1u);
  const fmt::RawRecord* size = merger.following();
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->seq, 3u);
  EXPECT_EQ(size->addr, 16u);
  merger.take_following();
  std::vector<std::pair<uint32_t, uint64_t>> rest;
  while (merger.next(record, tid)) rest.push_back({tid, record.seq});
  EXPECT_EQ(rest, (std::vector<std::pair<uint32_t, uint64_t>>{{1, 2}, {0, 4}}));
}

// A block that holds fewer records than its header counts (its checksum is right) is an error
// naming its byte: when the recording is complete, found by the merge, which reads every record
// anyway; otherwise by decoding, which needs each thread's last record for the cut.
TEST(RecordingDecode, MalformedBlockIsAnErrorWhetherTheRecordingIsCompleteOrNot) {
  for (const bool complete : {true, false}) {
    RawBuilder f;
    f.start(0, 0);
    const size_t at = f.bytes().size();
    std::vector<uint8_t> p(fmt::kRawHeader + 2 * fmt::kMaxPackedRecord);
    fmt::put_u32(p.data(), 0);
    fmt::put_u32(p.data() + 4, fmt::kRawEnd);
    fmt::put_u32(p.data() + 8, 3);  // three records, but two follow
    const fmt::RawRecord two[2] = {rec(1, fmt::kWrite, 0x10), rec(2, fmt::kWrite, 0x20)};
    p.resize(static_cast<size_t>(fmt::pack_raw(two, 2, p.data() + fmt::kRawHeader) - p.data()));
    f.block(fmt::kBlockRaw, p);
    if (complete) f.note("complete=1\n");
    try {
      const RawRecording r = decode_recording(f.bytes(), "m.raw");
      assemble(r, consistent_cut(r));
      ADD_FAILURE() << "no error, complete " << complete;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                "m.raw: byte " + std::to_string(at) + ": error: malformed raw block");
    }
  }
}

// Byte by byte, as the format describes it: the reference for RawUnpacker.
const uint8_t* reference_varint(const uint8_t* p, const uint8_t* end, uint64_t& v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 70 && p < end; shift += 7) {
    const uint8_t b = *p++;
    r |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) {
      v = r;
      return p;
    }
  }
  return nullptr;
}

// RawUnpacker: records whose deltas take every length from 1 to 10 bytes, in every mix,
// anywhere in a block (also its last bytes), come back exactly as packed and as the
// byte-by-byte reading of the format gives them.
TEST(RecordingDecode, UnpackerReadsEveryVarintLengthAsTheByteByByteReading) {
  uint64_t state = 0x1234567887654321ULL;
  auto random = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  // A value whose varint (of its delta) takes `bytes` bytes, of either sign for zigzag.
  auto delta_of_length = [&](unsigned bytes) -> uint64_t {
    if (bytes >= 10) return (uint64_t{1} << 63) | random();
    const uint64_t lo = bytes == 1 ? 0 : uint64_t{1} << (7 * (bytes - 1));
    const uint64_t hi = (uint64_t{1} << (7 * bytes)) - 1;
    return lo + random() % (hi - lo + 1);
  };
  for (int round = 0; round < 200; ++round) {
    const uint32_t n = 1 + static_cast<uint32_t>(random() % 300);
    std::vector<fmt::RawRecord> in(n);
    uint64_t seq = 0, addr = 0, pc = 0;
    for (uint32_t i = 0; i < n; ++i) {
      // Mostly short deltas (the fast path), sometimes any length (the slow one).
      auto length = [&] { return random() % 4 ? 1 + random() % 3 : 1 + random() % 10; };
      seq += delta_of_length(static_cast<unsigned>(length()));
      const uint64_t da = delta_of_length(static_cast<unsigned>(length())) >> 1;
      addr += random() & 1 ? da : 0 - da;
      const uint64_t dp = delta_of_length(static_cast<unsigned>(length())) >> 1;
      pc = (pc + (random() & 1 ? dp : 0 - dp)) & 0x00ffffffffffffffULL;
      in[i] = fmt::RawRecord{seq, addr, (uint64_t{random() % 32} << 56) | pc};
    }
    std::vector<uint8_t> bytes(size_t{n} * fmt::kMaxPackedRecord);
    bytes.resize(static_cast<size_t>(fmt::pack_raw(in.data(), n, bytes.data()) - bytes.data()));
    // Reference reading of the same bytes.
    std::vector<fmt::RawRecord> expected;
    {
      const uint8_t* p = bytes.data();
      const uint8_t* end = p + bytes.size();
      uint64_t s = 0, a = 0, c = 0;
      while (p < end) {
        const uint8_t op = *p++;
        uint64_t d1 = 0, d2 = 0, d3 = 0;
        p = reference_varint(p, end, d1);
        ASSERT_NE(p, nullptr);
        p = reference_varint(p, end, d2);
        ASSERT_NE(p, nullptr);
        p = reference_varint(p, end, d3);
        ASSERT_NE(p, nullptr);
        s += d1;
        a += static_cast<uint64_t>(fmt::unzigzag(d2));
        c += static_cast<uint64_t>(fmt::unzigzag(d3));
        expected.push_back({s, a, (uint64_t{op} << 56) | (c & 0x00ffffffffffffffULL)});
      }
    }
    ASSERT_EQ(expected.size(), n);
    fmt::RawUnpacker u{bytes.data(), bytes.data() + bytes.size(), n};
    fmt::RawRecord r{};
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_TRUE(u.next(r)) << "round " << round << " record " << i;
      EXPECT_EQ(r.seq, in[i].seq) << "round " << round << " record " << i;
      EXPECT_EQ(r.addr, in[i].addr) << "round " << round << " record " << i;
      EXPECT_EQ(r.op_pc, in[i].op_pc) << "round " << round << " record " << i;
      EXPECT_EQ(r.seq, expected[i].seq);
      EXPECT_EQ(r.addr, expected[i].addr);
      EXPECT_EQ(r.op_pc, expected[i].op_pc);
    }
    EXPECT_FALSE(u.next(r));
    EXPECT_EQ(u.p, bytes.data() + bytes.size());
  }
}

// The 8-byte-at-once reading gives what the byte-by-byte one gives for every value of every
// length (1 to 10 bytes), whatever bytes follow, and refuses an overlong varint likewise.
TEST(RecordingDecode, WordAtOnceVarintReadingIsTheByteByByteReading) {
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto random = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (unsigned bits = 0; bits <= 64; ++bits) {
    for (int k = 0; k < 50; ++k) {
      // A value of exactly `bits` significant bits (0: zero), then 16 random bytes.
      uint64_t v = bits == 0 ? 0 : (random() >> (64 - bits)) | (uint64_t{1} << (bits - 1));
      uint8_t buf[10 + 16];
      uint8_t* end = fmt::put_varint(buf, v);
      for (uint8_t* q = end; q < buf + sizeof buf; ++q) *q = static_cast<uint8_t>(random());
      uint64_t slow = ~v, fast = ~v;
      const uint8_t* ps = fmt::get_varint(buf, buf + sizeof buf, slow);
      const uint8_t* pf = fmt::get_varint8(buf, buf + sizeof buf, fast);
      ASSERT_EQ(ps, end) << bits;
      ASSERT_EQ(pf, end) << bits;
      ASSERT_EQ(fast, v) << bits;
      ASSERT_EQ(slow, v) << bits;
    }
  }
  uint8_t overlong[11 + 16];
  std::fill(overlong, overlong + 11, uint8_t{0x80});
  std::fill(overlong + 11, overlong + sizeof overlong, uint8_t{0});
  uint64_t v = 0;
  EXPECT_EQ(fmt::get_varint8(overlong, overlong + sizeof overlong, v), nullptr);
}

// A varint longer than 10 bytes, or one cut off by the block's end, is malformed.
TEST(RecordingDecode, UnpackerRefusesOverlongAndCutOffVarints) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 4; ++i) bytes.insert(bytes.end(), {fmt::kWrite, 1, 2, 3});  // good ones
  const size_t good = bytes.size();
  bytes.push_back(fmt::kWrite);
  bytes.insert(bytes.end(), 11, 0x80);  // 11 continuation bytes
  bytes.insert(bytes.end(), {1, 1, 1});
  bytes.insert(bytes.end(), 20, 0);
  fmt::RawUnpacker u{bytes.data(), bytes.data() + bytes.size(), 10};
  fmt::RawRecord r{};
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(u.next(r));
  EXPECT_EQ(u.p, bytes.data() + good);
  EXPECT_FALSE(u.next(r));
  EXPECT_EQ(u.p, nullptr);
  // Cut off: the block ends inside the third varint.
  const std::vector<uint8_t> cut = {fmt::kWrite, 1, 2, 0x81};
  fmt::RawUnpacker c{cut.data(), cut.data() + cut.size(), 1};
  EXPECT_FALSE(c.next(r));
  EXPECT_EQ(c.p, nullptr);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::recording
