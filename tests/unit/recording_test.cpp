// racepred record's conversion of raw recordings (cli/recording): merge by sequence number,
// the consistent cut of a recording that ended early, torn tails and corrupt blocks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "racepred/cli/recording.hpp"
#include "racepred/format/trace_format.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {
namespace {

namespace fmt = racepred::format;

// Builds a raw recording the way the runtime writes it.
class RawFile {
 public:
  RawFile() {
    uint8_t h[fmt::kHeaderSize];
    fmt::write_file_header(h, fmt::kFileRecording);
    bytes_.append(reinterpret_cast<char*>(h), sizeof h);
  }
  void block(uint8_t kind, const std::vector<uint8_t>& payload) {
    fmt::BlockHeader h{kind,
                       fmt::kCodecNone,
                       0,
                       static_cast<uint32_t>(payload.size()),
                       static_cast<uint32_t>(payload.size()),
                       0};
    h.checksum = fmt::block_checksum(h, payload.data());
    bytes_.append(reinterpret_cast<char*>(&h), sizeof h);
    bytes_.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  }
  void start(uint32_t tid, uint64_t seq) {
    std::vector<uint8_t> p(fmt::kRawPrefix + 8);
    fmt::put_u32(p.data(), tid);
    fmt::put_u32(p.data() + 4, fmt::kRawStart);
    fmt::put_u64(p.data() + 8, seq);
    block(fmt::kBlockRaw, p);
  }
  void records(uint32_t tid, const std::vector<fmt::RawRecord>& recs, bool last) {
    std::vector<uint8_t> p(fmt::kRawHeader + recs.size() * fmt::kMaxPackedRecord);
    fmt::put_u32(p.data(), tid);
    fmt::put_u32(p.data() + 4, last ? fmt::kRawEnd : 0);
    fmt::put_u32(p.data() + 8, static_cast<uint32_t>(recs.size()));
    uint8_t* end =
        fmt::pack_raw(recs.data(), static_cast<uint32_t>(recs.size()), p.data() + fmt::kRawHeader);
    p.resize(static_cast<size_t>(end - p.data()));
    block(fmt::kBlockRaw, p);
  }
  void note(const std::string& text) { block(fmt::kBlockNote, {text.begin(), text.end()}); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

fmt::RawRecord rec(uint64_t seq, uint8_t op, uint64_t addr, uint64_t pc = 0x1000) {
  return {seq, addr, (uint64_t{op} << 56) | pc};
}

std::string temp(const std::string& tag) {
  return ::testing::TempDir() + "rp_rec_" + tag + "_" + std::to_string(::getpid());
}

// The recording converted to STD text (names unsymbolised: hex addresses, T<tid>).
std::string convert(const std::string& bytes, cli::FinishResult* result = nullptr) {
  const std::string raw = temp("raw"), out = temp("out") + ".std";
  std::ofstream(raw, std::ios::binary) << bytes;
  cli::FinishOptions o;
  o.output = out;
  o.symbolize = false;
  const cli::FinishResult r = cli::finish_recording(raw, o);
  if (result) *result = r;
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(raw.c_str());
  std::remove(out.c_str());
  return text;
}

// T0 forks T1 (seq 1); T1 writes 0x10 (seq 2) and 0x20 (seq 4); T0 writes 0x10 (seq 3),
// joins T1 (seq 5).
RawFile two_threads(bool t0_ends, bool t1_ends, bool t1_second_block, bool complete) {
  RawFile f;
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
  cli::FinishResult r;
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
  cli::FinishResult r;
  const std::string text = convert(two_threads(false, false, false, false).bytes(), &r);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(text, "T0|fork(T1)|0x1000\nT1|w(0x10)|0x1000\n");
  EXPECT_EQ(r.cut_events, 1u);
}

TEST(Recording, ThreadThatNeverFlushedCutsAtItsStart) {
  RawFile f;
  f.start(0, 0);
  f.records(0, {rec(1, fmt::kFork, 1), rec(3, fmt::kWrite, 0x10)}, false);
  f.start(1, 2);  // T1 started (its events have seq > 2) but wrote nothing
  const std::string text = convert(f.bytes());
  EXPECT_EQ(text, "T0|fork(T1)|0x1000\n");
}

TEST(Recording, TornLastBlockIsDroppedAndCorruptBlockIsAnError) {
  RawFile f = two_threads(true, true, true, true);
  std::string torn = f.bytes();
  RawFile tail;
  tail.records(1, {rec(9, fmt::kWrite, 0x30)}, true);
  torn += tail.bytes().substr(fmt::kHeaderSize, 20);  // a header and part of a payload
  cli::FinishResult r;
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
  RawFile f;
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
  RawFile f;
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

}  // namespace
}  // namespace racepred
