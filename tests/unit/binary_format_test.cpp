// The binary trace format (format/, io/binary_reader, io/binary_writer): round trips with STD,
// chunk boundaries, id gaps, truncation recovery and corrupt input (byte offsets in errors).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "racepred/format/trace_format.hpp"
#include "racepred/io/binary_reader.hpp"
#include "racepred/io/binary_writer.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::string temp_path(const std::string& tag) {
  return ::testing::TempDir() + "rp_bin_" + tag + "_" + std::to_string(::getpid()) + ".rpt";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

void write_binary(const Trace& trace, const std::string& path, BinaryWriteOptions options = {}) {
  BinaryWriter writer(trace.symbols, path, options);
  for (size_t i = 0; i < trace.size(); ++i)
    writer.on_event(trace.ids[i], trace.events[i], trace.lines[i]);
  writer.on_end();
  writer.close();
}

// `bytes`, a complete file of this version, as a file of an older `version`: the version field
// and the checksums of the blocks (one-lane before version 3) rewritten.
std::string as_version(std::string bytes, uint32_t version) {
  format::put_u32(reinterpret_cast<uint8_t*>(bytes.data()) + 8, version);
  size_t pos = format::kHeaderSize;
  while (pos + format::kBlockHeaderSize + format::kTrailerSize <= bytes.size()) {
    format::BlockHeader h;
    std::memcpy(&h, bytes.data() + pos, sizeof h);
    const auto* payload = reinterpret_cast<const uint8_t*>(bytes.data()) + pos + sizeof h;
    h.checksum = format::block_checksum(h, payload, version);
    std::memcpy(bytes.data() + pos, &h, sizeof h);
    pos += sizeof h + h.stored_size;
  }
  return bytes;
}

void expect_same(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.events[i], b.events[i]) << "event " << i;
    ASSERT_EQ(a.ids[i], b.ids[i]) << "event " << i;
  }
  EXPECT_EQ(to_std_text(a), to_std_text(b));
}

TEST(BinaryFormat, VarintsAndZigzag) {
  uint8_t buf[16];
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
                     uint64_t{1} << 35, ~uint64_t{0}}) {
    uint8_t* end = format::put_varint(buf, v);
    uint64_t back = 0;
    EXPECT_EQ(format::get_varint(buf, end, back), end);
    EXPECT_EQ(back, v);
    EXPECT_EQ(format::get_varint(buf, end - 1, back), nullptr);  // cut off
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-1000}, INT64_MIN, INT64_MAX})
    EXPECT_EQ(format::unzigzag(format::zigzag(v)), v);
}

TEST(BinaryFormat, StdRoundTripKeepsEventsNamesAndIdGaps) {
  // Skipped ops (begin/end) leave gaps in the ids; odd names must survive.
  const std::string text =
      "T0|fork(T1)|1\nT1|begin|2\nT1|acq(l)|3\nT1|w(V16e92358.199)|347\nT1|rel(l)|4\n"
      "T0|r(w(f(x)))|-5\nT0|end|6\nT0|join(T1)|2147483647\n";
  const Trace a = parse_trace(text);
  const std::string path = temp_path("gaps");
  write_binary(a, path);
  const Trace b = load_trace(path);
  EXPECT_EQ(b.summary.format, "binary");
  expect_same(a, b);
  std::remove(path.c_str());
}

TEST(BinaryFormat, GeneratedTracesRoundTripAcrossChunksAndCodecs) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    GeneratorOptions g;
    g.seed = seed;
    g.threads = static_cast<uint32_t>(2 + seed * 13 % 90);  // more threads than state slots
    g.events = 5000 + seed * 777;
    g.shape = seed % 2 ? ForkShape::Nested : ForkShape::ForkJoin;
    const Trace a = generate_trace(g);
    for (auto [codec, level] : {std::pair{format::kCodecNone, 0}, std::pair{format::kCodecZstd, 1},
                                std::pair{format::kCodecZstd, 5}, std::pair{format::kCodecLz4, 1},
                                std::pair{format::kCodecLz4, 9}, std::pair{format::kCodecLz4, 0},
                                std::pair{format::kCodecLz4, -3}}) {  // (0, -3: LZ4's fast one)
      BinaryWriteOptions o;
      o.codec = codec;
      o.level = level;
      o.chunk_events = static_cast<uint32_t>(1 + seed * 97);  // many small chunks
      const std::string path = temp_path("gen");
      write_binary(a, path, o);
      const Trace b = load_trace(path);
      expect_same(a, b);
      const BinaryTraceInfo info = binary_trace_info(path);
      EXPECT_TRUE(info.complete);
      EXPECT_EQ(info.events, a.size());
      std::remove(path.c_str());
    }
  }
}

TEST(BinaryFormat, ReadLocksRoundTripAndVersionOneFilesStillRead) {
  const Trace a =
      parse_trace("T0|racq(l)|1\nT1|racq(l)|2\nT1|w(x)|3\nT1|rrel(l)|4\nT0|rrel(l)|5\n");
  const std::string path = temp_path("rw");
  write_binary(a, path);
  std::string bytes = slurp(path);
  EXPECT_EQ(format::get_u32(reinterpret_cast<const uint8_t*>(bytes.data()) + 8), format::kVersion);
  expect_same(a, load_trace(path));
  // The same file as version 1 (which had no read-lock ops): its events are malformed.
  spit(path, as_version(bytes, 1));
  try {
    load_trace(path);
    ADD_FAILURE() << "read-lock op accepted in a version-1 file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("malformed event"), std::string::npos) << e.what();
  }
  // A version-1 file without read locks is read as before.
  const Trace plain = parse_trace("T0|acq(l)|1\nT0|w(x)|2\nT0|rel(l)|3\n");
  write_binary(plain, path);
  spit(path, as_version(slurp(path), 1));
  expect_same(plain, load_trace(path));
  std::remove(path.c_str());
}

// Names streamed from a NameSource (`racepred record`): asked for once each, in id order, only
// as far as the events of a block need them before it (so the writer keeps none), the rest at
// the end; the file reads back with every name, the events naming the right ones.
TEST(BinaryFormat, StreamedNamesComeBeforeTheBlockThatUsesThemAndAllAreWritten) {
  struct Source : NameSource {
    std::vector<std::pair<unsigned, uint32_t>> asked;
    uint32_t count(unsigned space) const override { return space == format::kVariables ? 40 : 3; }
    void name(unsigned space, uint32_t id, std::string& out) override {
      asked.push_back({space, id});
      out.append(space == format::kVariables ? "v" : "l").append(std::to_string(id));
    }
  } source;
  Symbols symbols;
  symbols.threads.intern("T0");
  symbols.locations.intern("here");
  const std::string path = temp_path("streamed");
  BinaryWriteOptions o;
  o.chunk_events = 2;
  std::vector<Event> events = {{Op::Write, 0, 0, 0},   {Op::Read, 0, 2, 0},  {Op::Acquire, 0, 1, 0},
                               {Op::Release, 0, 1, 0}, {Op::Write, 0, 7, 0}, {Op::Read, 0, 3, 0}};
  {
    BinaryWriter writer(symbols, path, o);
    writer.stream_names(format::kVariables, source, false);
    writer.stream_names(format::kLocks, source, false);
    for (size_t i = 0; i < 4; ++i) writer.on_event(i + 1, events[i], 0);
    // Two blocks written: variables 0..2 and locks 0..1, nothing beyond.
    EXPECT_EQ(source.asked, (std::vector<std::pair<unsigned, uint32_t>>{{format::kVariables, 0},
                                                                        {format::kVariables, 1},
                                                                        {format::kVariables, 2},
                                                                        {format::kLocks, 0},
                                                                        {format::kLocks, 1}}));
    for (size_t i = 4; i < events.size(); ++i) writer.on_event(i + 1, events[i], 0);
    writer.on_end();
    writer.close();
  }
  ASSERT_EQ(source.asked.size(), 43u);  // each name once
  for (size_t i = 1; i < source.asked.size(); ++i) {
    if (source.asked[i].first == source.asked[i - 1].first) {
      EXPECT_EQ(source.asked[i].second, source.asked[i - 1].second + 1) << i;
    }
  }
  const Trace b = load_trace(path);
  ASSERT_EQ(b.symbols.variables.size(), 40u);
  ASSERT_EQ(b.symbols.locks.size(), 3u);
  for (uint32_t v = 0; v < 40; ++v) EXPECT_EQ(b.symbols.variables.name(v), "v" + std::to_string(v));
  EXPECT_EQ(b.symbols.locks.name(2), "l2");
  ASSERT_EQ(b.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(b.events[i], events[i]) << i;
  // All first (`racepred record`): every name is asked for before the first events block.
  source.asked.clear();
  {
    BinaryWriter writer(symbols, path, o);
    writer.stream_names(format::kVariables, source, true);
    writer.stream_names(format::kLocks, source, true);
    for (size_t i = 0; i < 2; ++i) writer.on_event(i + 1, events[i], 0);
    EXPECT_EQ(source.asked.size(), 43u);
    for (size_t i = 2; i < events.size(); ++i) writer.on_event(i + 1, events[i], 0);
    writer.on_end();
    writer.close();
  }
  EXPECT_EQ(source.asked.size(), 43u);
  const Trace c = load_trace(path);
  ASSERT_EQ(c.symbols.variables.size(), 40u);
  ASSERT_EQ(c.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(c.events[i], events[i]) << i;
  std::remove(path.c_str());
}

// send/recv (version 4) round trip; in a version-3 file their ops 8 and 9 are malformed.
TEST(BinaryFormat, SyncOrdersRoundTripAndAreMalformedBeforeVersionFour) {
  const Trace a = parse_trace(
      "T0|w(x)|1\nT0|send(s)|2\nT1|recv(s)|3\nT1|r(x)|4\nT1|acq(s)|5\n"
      "T1|rel(s)|6\n");
  const std::string path = temp_path("sync");
  write_binary(a, path);
  const std::string bytes = slurp(path);
  EXPECT_EQ(format::get_u32(reinterpret_cast<const uint8_t*>(bytes.data()) + 8), format::kVersion);
  const Trace b = load_trace(path);
  expect_same(a, b);
  EXPECT_EQ(b.events[1].op, Op::Send);
  EXPECT_EQ(b.events[2].op, Op::Recv);
  EXPECT_EQ(b.events[2].target, b.events[4].target);  // one name space with the locks
  spit(path, as_version(bytes, 3));
  try {
    load_trace(path);
    ADD_FAILURE() << "send/recv op accepted in a version-3 file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("malformed event"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// rreq (version 6) round trips; in a version-5 file its op 11 is malformed.
TEST(BinaryFormat, ReadRequestsRoundTripAndAreMalformedBeforeVersionSix) {
  const Trace a = parse_trace("T0|racq(l)|1\nT1|acq(m)|2\nT0|req(m)|3\nT1|rreq(l)|4\n");
  const std::string path = temp_path("rreq");
  write_binary(a, path);
  const std::string bytes = slurp(path);
  EXPECT_EQ(format::get_u32(reinterpret_cast<const uint8_t*>(bytes.data()) + 8), 6u);
  const Trace b = load_trace(path);
  expect_same(a, b);
  EXPECT_EQ(b.events[3].op, Op::ReadRequest);
  spit(path, as_version(bytes, 5));
  try {
    load_trace(path);
    ADD_FAILURE() << "rreq op accepted in a version-5 file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("malformed event"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// The call stacks of a recorded trace (version 5): the stack table, the events' stacks and the
// threads' creation sites read back as written, over several blocks of each; a version-4 file
// cannot hold them (its readers do not know the blocks), and one without them reads as before.
TEST(BinaryFormat, StacksRoundTripAndAreRefusedBeforeVersionFive) {
  std::string text;
  for (int i = 0; i < 3000; ++i)
    text += "T" + std::to_string(i % 3) + "|w(x" + std::to_string(i % 7) +
            ")|f.c:" + std::to_string(i % 11) + ":1 (f" + std::to_string(i % 5) + ")\n";
  text += "T0|fork(T9)|f.c:99:1 (main)\n";
  Trace a = parse_trace(text);
  Stacks& st = a.symbols.stacks;
  const uint32_t caller = a.symbols.locations.intern("f.c:100:1 (caller)");
  st.frames.assign(1, {});
  st.of_event.assign(a.size() + 1, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    if (i % 4 == 3) continue;  // events without a stack
    st.of_event[i + 1] = static_cast<uint32_t>(st.frames.size());
    st.frames.push_back({a.events[i].location, caller});
    if (i % 2) st.frames.back().push_back(static_cast<uint32_t>(i % 11));
  }
  st.created.assign(a.symbols.threads.size(), {});
  st.created[a.events.back().target] = {0, st.of_event[a.size()]};
  BinaryWriteOptions o;
  o.chunk_events = 700;
  const std::string path = temp_path("stacks");
  write_binary(a, path, o);
  const Trace b = load_trace(path);
  expect_same(a, b);
  EXPECT_EQ(b.symbols.stacks.frames, st.frames);
  std::vector<uint32_t> of_event = b.symbols.stacks.of_event;
  of_event.resize(st.of_event.size(), 0);
  EXPECT_EQ(of_event, st.of_event);
  ASSERT_EQ(b.symbols.stacks.created.size(), a.events.back().target + 1u);
  EXPECT_EQ(b.symbols.stacks.created.back().stack, st.of_event[a.size()]);
  EXPECT_EQ(b.symbols.stacks.created.back().parent, 0u);
  EXPECT_EQ(b.symbols.stacks.of(6).size(), 3u);  // [own location, caller, one more]
  EXPECT_TRUE(b.symbols.stacks.of(4).empty());
  spit(path, as_version(slurp(path), 4));
  try {
    load_trace(path);
    ADD_FAILURE() << "stack blocks accepted in a version-4 file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad block header"), std::string::npos) << e.what();
  }
  a.symbols.stacks = Stacks{};
  write_binary(a, path, o);
  spit(path, as_version(slurp(path), 4));
  const Trace c = load_trace(path);
  expect_same(a, c);
  EXPECT_TRUE(c.symbols.stacks.empty());
  std::remove(path.c_str());
}

// A sync object's id is checked against the locks' name space, not the variables': here there
// are more sync objects than variables.
TEST(BinaryFormat, SyncObjectsAreNamedInTheLockSpace) {
  const Trace a = parse_trace("T0|send(s1)|1\nT0|send(s2)|2\nT1|recv(s3)|3\nT1|r(x)|4\n");
  const std::string path = temp_path("sync_ids");
  write_binary(a, path);
  expect_same(a, load_trace(path));
  std::remove(path.c_str());
}

// Files of every older version (one-lane checksum, no LZ4) read as before: a generated trace
// written with zstd and uncompressed blocks, turned into a version-1 and a version-2 file.
TEST(BinaryFormat, OlderVersionsStillRead) {
  GeneratorOptions g;
  g.seed = 11;
  g.events = 20000;
  const Trace a = generate_trace(g);
  for (format::Codec codec : {format::kCodecNone, format::kCodecZstd}) {
    BinaryWriteOptions o;
    o.codec = codec;
    o.level = 3;
    o.chunk_events = 3000;
    const std::string path = temp_path("old");
    write_binary(a, path, o);
    const std::string bytes = slurp(path);
    for (uint32_t version : {1u, 2u, 3u}) {
      spit(path, as_version(bytes, version));
      expect_same(a, load_trace(path));
      EXPECT_TRUE(binary_trace_info(path).complete);
    }
    std::remove(path.c_str());
  }
  // An LZ4 block in a version-2 file is a bad block header (version 3 brought the codec).
  BinaryWriteOptions o;
  o.chunk_events = 3000;
  const std::string path = temp_path("old_lz4");
  write_binary(a, path, o);
  spit(path, as_version(slurp(path), 2));
  try {
    load_trace(path);
    ADD_FAILURE() << "LZ4 block accepted in a version-2 file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad block header"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(BinaryFormat, EmptyTrace) {
  Trace a;
  const std::string path = temp_path("empty");
  write_binary(a, path);
  const Trace b = load_trace(path);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.summary.format, "binary");
  std::remove(path.c_str());
}

TEST(BinaryFormat, TruncatedFileIsAnErrorUnlessLenientAndCanBeRepaired) {
  GeneratorOptions g;
  g.events = 3000;
  const Trace a = generate_trace(g);
  const std::string path = temp_path("cut");
  BinaryWriteOptions o;
  o.chunk_events = 500;
  write_binary(a, path, o);
  const std::string whole = slurp(path);
  // Cut at every position of the tail: the prefix of complete chunks is what remains.
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    const size_t cut = format::kHeaderSize + rng() % (whole.size() - format::kHeaderSize - 1);
    spit(path, whole.substr(0, cut));
    try {
      load_trace(path);
      ADD_FAILURE() << "cut at " << cut << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(": byte "), std::string::npos) << e.what();
    }
    ReadOptions lenient;
    lenient.lenient = true;
    const Trace b = load_trace(path, lenient);
    EXPECT_EQ(b.summary.malformed, 1u);
    EXPECT_EQ(b.size() % 500, 0u);  // whole chunks only
    ASSERT_LE(b.size(), a.size());
    for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b.events[i], a.events[i]);
    const BinaryTraceInfo repaired = repair_binary_trace(path);
    EXPECT_TRUE(repaired.complete);
    EXPECT_EQ(repaired.events, b.size());
    const Trace c = load_trace(path);  // strict read works after the repair
    EXPECT_EQ(c.size(), b.size());
  }
  std::remove(path.c_str());
}

// A generated trace of `events` events written as binary in chunks of `chunk` events; its path.
std::string write_generated(const std::string& tag, uint64_t events, uint32_t chunk,
                            format::Codec codec, int level = 3) {
  GeneratorOptions g;
  g.events = events;
  const std::string path = temp_path(tag);
  BinaryWriteOptions o;
  o.chunk_events = chunk;
  o.codec = codec;
  o.level = level;
  write_binary(generate_trace(g), path, o);
  return path;
}

TEST(BinaryFormat, CorruptBlockNamesItsByteOffset) {
  const std::string path = write_generated("corrupt", 2000, 300, format::kCodecNone);
  std::string data = slurp(path);
  data[data.size() / 2] ^= 0x5a;  // inside some middle block
  spit(path, data);
  try {
    load_trace(path);
    ADD_FAILURE() << "corrupt file accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path + ": byte "), std::string::npos) << e.what();
  }
  spit(path, std::string("\x89RPT\r\n\x1a\n\x07\0\0\0\0\0\0\0", 16));
  EXPECT_THROW(load_trace(path), InputError);  // unknown version
  std::remove(path.c_str());
}

// Counts what a reader delivers.
class CountEvents : public EventConsumer {
 public:
  void on_event(EventId, const Event&, uint32_t) override { ++count; }
  uint64_t count = 0;
};

// Compressed blocks are decompressed ahead of the decoder (on a helper thread): a block whose
// checksum is right but whose compressed data is not is still reported at its own byte offset,
// after exactly the events of the blocks before it.
TEST(BinaryFormat, UndecompressableBlockIsReportedInFileOrder) {
  for (format::Codec codec : {format::kCodecZstd, format::kCodecLz4}) {
    SCOPED_TRACE(codec);
    const std::string path = write_generated("zstd_bad", 3000, 200, codec);
    std::string data = slurp(path);
    // Walk the blocks; spoil the 4th compressed events block and fix its checksum.
    size_t pos = format::kHeaderSize, zstd_blocks = 0, bad_at = 0;
    uint64_t events_before = 0;
    while (pos + format::kBlockHeaderSize <= data.size()) {
      format::BlockHeader h;
      std::memcpy(&h, data.data() + pos, sizeof h);
      if (h.kind == format::kBlockIndex) break;
      auto* payload = reinterpret_cast<uint8_t*>(data.data() + pos + format::kBlockHeaderSize);
      if (h.kind == format::kBlockEvents && h.codec == codec && ++zstd_blocks == 4) {
        for (uint32_t i = 0; i < h.stored_size; ++i) payload[i] = static_cast<uint8_t>(i * 37);
        h.checksum = format::block_checksum(h, payload);
        std::memcpy(data.data() + pos, &h, sizeof h);
        bad_at = pos;
        break;
      }
      // Events blocks the writer left uncompressed (zstd blocks hold 200 events each).
      if (h.kind == format::kBlockEvents && h.codec == format::kCodecNone)
        events_before += format::get_u32(payload);
      pos += format::kBlockHeaderSize + h.stored_size;
    }
    ASSERT_GT(bad_at, 0u) << "fewer than 4 zstd events blocks";
    spit(path, data);
    Symbols symbols;
    CountEvents sink;
    try {
      read_events(path, {}, symbols, sink);
      ADD_FAILURE() << "undecompressable block accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot decompress block"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(path + ": byte " + std::to_string(bad_at) + ":"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(sink.count, 3u * 200u + events_before);  // the three whole blocks before it
    std::remove(path.c_str());
  }
}

TEST(BinaryFormat, DetectedByMagicAndFromStandardInputFormatOption) {
  EXPECT_EQ(detect_input_format(std::string_view("\x89RPT\r\n\x1a\nxx", 10)), InputFormat::Binary);
  EXPECT_EQ(detect_input_format("T0|w(x)|1\n"), InputFormat::Std);
  EXPECT_EQ(parse_input_format("binary"), InputFormat::Binary);
  EXPECT_EQ(input_format_name(InputFormat::Binary), "binary");
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
