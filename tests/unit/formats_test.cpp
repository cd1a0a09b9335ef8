// The format registry: detection, the readers of RAPID CSV, RoadRunner, LockFrame and RapidBin
// (real samples, every error, --lenient), the writers (round trips, refused losses), and
// compressed input (gzip, zstd, xz).
#include <gtest/gtest.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "racepred/io/format_impl.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/generator.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::string std_of(const Trace& t) {
  std::string s;
  for (const Event& e : t.events) s += t.to_std(e) + "\n";
  return s;
}

std::string error_of(std::string_view text, InputFormat format) {
  try {
    parse_trace(text, ReadOptions{format, false}, "t");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Same events with the same names, in the same order.
void expect_same_events(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.events[i].op, b.events[i].op) << "event " << i;
    ASSERT_EQ(a.thread_name(a.events[i].thread), b.thread_name(b.events[i].thread)) << i;
    ASSERT_EQ(a.target_name(a.events[i]), b.target_name(b.events[i])) << "event " << i;
    ASSERT_EQ(a.location_name(a.events[i].location), b.location_name(b.events[i].location)) << i;
  }
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& suffix) {
    static int n = 0;
    path = "/tmp/racepred_formats_" + std::to_string(getpid()) + "_" + std::to_string(++n) + suffix;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string read() const {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void write(const std::string& bytes) const { std::ofstream(path, std::ios::binary) << bytes; }
};

// --- detection --------------------------------------------------------------------------------

TEST(FormatRegistry, NamesAndDetection) {
  const std::vector<std::string> names = input_format_names();
  EXPECT_EQ(names.front(), "auto");
  for (const TraceFormat& f : trace_formats()) {
    EXPECT_EQ(parse_input_format(f.name), f.id);
    EXPECT_EQ(input_format_name(f.id), f.name);
    EXPECT_NE(f.write, nullptr) << f.name;
  }
  EXPECT_EQ(parse_input_format("rv"), std::nullopt);
  EXPECT_EQ(detect_input_format("# c\nT0|w(x)|1\n"), InputFormat::Std);
  EXPECT_EQ(detect_input_format("1,RD,1,Test.java:1:1,1\n"), InputFormat::SpeedyGo);
  EXPECT_EQ(detect_input_format("1,SIG,2\n2,LK,100002\n"), InputFormat::LockFrame);
  EXPECT_EQ(detect_input_format("1,RD,2,Main.java:3\n"), InputFormat::LockFrame);
  EXPECT_EQ(detect_input_format("r(V123),,\n"), InputFormat::RapidCsv);
  EXPECT_EQ(detect_input_format(",w(V234.23[0]),\n"), InputFormat::RapidCsv);
  EXPECT_EQ(detect_input_format("w(x)\n"), InputFormat::RapidCsv);  // one thread: no commas
  EXPECT_EQ(detect_input_format("[main: RoadRunner Agent Loaded.]\n@  Start(0,1)\n"),
            InputFormat::RoadRunner);
  EXPECT_EQ(detect_input_format("@    Acquire(2,@03)\n"), InputFormat::RoadRunner);
  EXPECT_EQ(detect_input_format(std::string("\0\x04\0\0\0\x01", 6)), InputFormat::RapidBin);
  EXPECT_EQ(detect_input_format("garbage\n"), InputFormat::Std);
  EXPECT_EQ(detect_input_format("@x|w(y)|1\n"), InputFormat::Std);  // '|' wins
  EXPECT_EQ(detect_input_format("r(x", false), std::nullopt);
}

// --- RAPID CSV
// ------------------------------------------------------------------------------------

TEST(RapidCsvReader, ReadsRapidsReadmeExample) {
  // RAPID's README, "CSV Format" (its fifth line, "..rel(L34)", has dots for commas: below).
  const Trace t =
      parse_trace("r(V123),,\n,w(V234.23[0]),\nfork(T2),,\n,,acq(L34)\n,,rel(L34)\njoin(T2),,\n",
                  ReadOptions{InputFormat::RapidCsv});
  EXPECT_EQ(std_of(t),
            "T0|r(V123)|1\nT1|w(V234.23[0])|2\nT0|fork(T2)|3\nT2|acq(L34)|4\nT2|rel(L34)|5\n"
            "T0|join(T2)|6\n");
  EXPECT_EQ(t.summary.format, "csv");
  EXPECT_EQ(error_of("r(V123),,\n..rel(L34)\n", InputFormat::RapidCsv),
            "t:2:11: error: the line has 1 columns, the first event line has 3 (one column per "
            "thread)");
}

TEST(RapidCsvReader, StartIsForkAndEnterExitSyncAreSkipped) {
  const Trace t = parse_trace("start(T1),\n,enter(m)\n,w(x)\n,exit(m)\nsync(z),\n",
                              ReadOptions{InputFormat::RapidCsv});
  EXPECT_EQ(std_of(t), "T0|fork(T1)|1\nT1|w(x)|3\n");
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 3}));
  EXPECT_EQ(t.summary.skipped_ops.at("enter"), 1u);
  EXPECT_EQ(t.summary.skipped_ops.at("exit"), 1u);
  EXPECT_EQ(t.summary.skipped_ops.at("sync"), 1u);
}

TEST(RapidCsvReader, EveryErrorNamesLineAndColumn) {
  struct Case {
    const char* line;
    const char* error;
  } cases[] = {
      {",,", "t:2:1: error: no event: every column is empty"},
      {"w(x),r(y)", "t:2:6: error: a second event on the line (column 1 after column 0)"},
      {"w(x),,", "t:2:7: error: the line has 3 columns, the first event line has 2"},
      {"wr(x),", "t:2:1: error: unknown operation 'wr' (expected r, w, acq, rel, fork, start"},
      {"w,", "t:2:2: error: missing '(' after 'w'"},
      {"w(x,", "t:2:4: error: missing ')' at the end of the cell"},
      {"w(x)y,", "t:2:5: error: unexpected text after ')'"},
      {"w(),", "t:2:3: error: empty argument"},
      {"w(a b),", "t:2:4: error: whitespace in argument"},
      {"dummy(x),", "t:2:1: error: unknown operation 'dummy'"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(
        error_of("w(v),\n" + std::string(c.line) + "\n", InputFormat::RapidCsv).rfind(c.error, 0),
        0u)
        << c.line << " -> "
        << error_of("w(v),\n" + std::string(c.line) + "\n", InputFormat::RapidCsv);
}

// --- RoadRunner -------------------------------------------------------------------------------

// The shape of RoadRunner's log with RAPID's PrintSubsetTool (RAPID's notes and its RR parser's
// example lines): banners, narrative lines, events indented by call depth.
const char* kRoadRunnerLog =
    "[main: RoadRunner Agent Loaded.]\n"
    "[main: Running in FAST Mode]\n"
    "@  main[tid = 0] started .\n"
    "@  Enter(0,test/Test.main([Ljava/lang/String;)V) from null\n"
    "@  Thread-0[tid = 1] started by main[tid = 0].\n"
    "@   Start(0,1)\n"
    "@    Acquire(1,@03)\n"
    "@     Wr(1,@04.test/Test.x_I)  Final  Test.java:10:7\n"
    "@     Release(1,@03)\n"
    "@    ARd(2,null.test/Deadlock.value_I)  Final  Deadlock.java:50:7\n"
    "@    VRd(0,@06.test/Test.v_Z)  Final\n"
    "@   Join(0,1)\n"
    "@   Exit(1,test/Deadlock.doSomething()V)\n";

TEST(RoadRunnerReader, ReadsPrintSubsetToolOutput) {
  const Trace t = parse_trace(kRoadRunnerLog, ReadOptions{InputFormat::RoadRunner});
  EXPECT_EQ(std_of(t),
            "0|fork(1)|-\n1|acq(@03)|-\n1|w(@04.test/Test.x_I)|Test.java:10:7\n1|rel(@03)|-\n"
            "2|r(null.test/Deadlock.value_I)|Deadlock.java:50:7\n0|recv(@06.test/Test.v_Z)|-\n"
            "0|join(1)|-\n");
  EXPECT_EQ(t.ids, (std::vector<EventId>{2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(t.lines, (std::vector<uint32_t>{6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(t.summary.skipped_ops.at("Enter"), 1u);
  EXPECT_EQ(t.summary.skipped_ops.at("Exit"), 1u);
  EXPECT_EQ(t.summary.skipped_ops.count("VRd"), 0u);  // a volatile read: recv
  EXPECT_EQ(detect_input_format(kRoadRunnerLog), InputFormat::RoadRunner);
}

TEST(RoadRunnerReader, EveryErrorNamesLineAndColumn) {
  struct Case {
    const char* line;
    const char* error;
  } cases[] = {
      {"@  Rdd(1,x)  S  L", "t:1:4: error: unknown RoadRunner event 'Rdd'"},
      {"@  Rd(1,x  S  L", "t:1:10: error: missing ')' after the arguments"},
      {"@  Rd(1,x)[0]  S  L", "t:1:11: error: unexpected text after ')'"},
      {"@  Rd(1)  S  L", "t:1:7: error: expected THREAD,TARGET inside the parentheses"},
      {"@  Rd(,x)  S  L", "t:1:7: error: empty thread id"},
      {"@  Rd(1,)  S  L", "t:1:9: error: empty target"},
      {"@  Rd(1,x,y)  S  L", "t:1:10: error: ',' in the target"},
      {"@  Rd(1,x)  S", "t:1:14: error: missing field: an access is followed by SHADOW and"},
      {"@  Rd(1,x)  S  L  M", "t:1:19: error: unexpected text after the location"},
      {"@  Rd(1,x)  S  L,2", "t:1:17: error: ',' in the location"},
      {"@  Acquire(1,l)  x", "t:1:18: error: unexpected text after ')'"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(error_of(std::string(c.line) + "\n", InputFormat::RoadRunner).rfind(c.error, 0), 0u)
        << c.line << " -> " << error_of(std::string(c.line) + "\n", InputFormat::RoadRunner);
  EXPECT_EQ(error_of("hello\nworld\n", InputFormat::RoadRunner),
            "t: error: no RoadRunner event line ('@ Rd(...)', '@ Acquire(...)', ...) in 2 "
            "non-blank lines: not a RoadRunner log");
}

// --- LockFrame --------------------------------------------------------------------------------

TEST(LockFrameReader, ReadsNativeFormat) {
  // The example lines of LockFrame's native format (its reader's README and sources).
  const Trace t = parse_trace("1,SIG,2\n2,LK,100002\n2,WR,17\n2,UK,100002\n1,WT,2\n2,NT,5\n",
                              ReadOptions{InputFormat::LockFrame});
  EXPECT_EQ(std_of(t),
            "T1|fork(T2)|1\nT2|acq(L100002)|2\nT2|w(V17)|3\nT2|rel(L100002)|4\nT1|join(T2)|5\n");
  EXPECT_EQ(t.summary.skipped_ops.at("NT"), 1u);
  const Trace with_locations =
      parse_trace("1,RD,2,Main.java:3\n", ReadOptions{InputFormat::LockFrame});
  EXPECT_EQ(std_of(with_locations), "T1|r(V2)|Main.java:3\n");
}

TEST(LockFrameReader, EveryErrorNamesLineAndColumn) {
  struct Case {
    const char* line;
    const char* error;
  } cases[] = {
      {"1,RD", "t:1:5: error: missing field: expected 1 more (TID,OP,ID)"},
      {"1,RD,2,L,x", "t:1:9: error: too many fields"},
      {"x,RD,2", "t:1:1: error: thread id: expected an unsigned integer"},
      {",RD,2", "t:1:1: error: empty thread id"},
      {"1,RDX,2", "t:1:3: error: unknown operation 'RDX'"},
      {"1,RD,", "t:1:6: error: empty id"},
      {"1,RD,-2", "t:1:6: error: id: expected an unsigned integer"},
      {"1,RD,99999999999", "t:1:6: error: id: number out of range (at most 2147483647)"},
      {"1,RD,2,", "t:1:8: error: empty location"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(error_of(std::string(c.line) + "\n", InputFormat::LockFrame).rfind(c.error, 0), 0u)
        << c.line << " -> " << error_of(std::string(c.line) + "\n", InputFormat::LockFrame);
}

// --- RapidBin ---------------------------------------------------------------------------------

std::string be(uint64_t v, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>(v >> (8 * (n - 1 - i)) & 0xFF);
  return s;
}
std::string rapidbin(int16_t threads, int32_t locks, int32_t vars, int64_t events,
                     const std::vector<uint64_t>& words) {
  std::string s = be(static_cast<uint16_t>(threads), 2) + be(static_cast<uint32_t>(locks), 4) +
                  be(static_cast<uint32_t>(vars), 4) + be(static_cast<uint64_t>(events), 8);
  for (uint64_t w : words) s += be(w, 8);
  return s;
}

// Wasmgrind's trace-tools test vector (encoder and parser tests, MIT/Apache-2.0): a 9-event
// trace with its expected decoding. Written MSB first: sign | location | decor | op | thread.
const std::vector<uint64_t> kWasmgrindEvents = {
    0b0'000000000101010'0000000000000000000000000000000001'0100'0000000000,
    0b0'000000000101010'0000000000000000000000000000000010'0100'0000000000,
    0b0'000000001111011'0000000000000000000000000000000011'0100'0000000010,
    0b0'000000101101010'0000000000000000000000000000000000'1000'0000000000,
    0b0'000000101101010'0000000000000000000000000000000000'0000'0000000000,
    0b0'000000110110100'0000000000000000000000000011001000'0010'0000000000,
    0b0'000001110011011'0000000000000000000000000011001000'0011'0000000000,
    0b0'000000101101010'0000000000000000000000000000000000'0001'0000000000,
    0b0'001110011010110'0000000000000000000000000000000001'0101'0000000000,
};

TEST(RapidBinReader, DecodesWasmgrindsTestVector) {
  const std::string bytes = rapidbin(4, 1, 1, 9, kWasmgrindEvents);
  EXPECT_EQ(detect_input_format(bytes), InputFormat::RapidBin);
  const Trace t = parse_trace(bytes);
  // Wasmgrind's expected events: Fork{1}@42, Fork{2}@42, T2 Fork{3}@123, Request{0}@362,
  // Aquire{0}@362, Read{200}@436, Write{200}@923, Release{0}@362, Join{1}@7382.
  EXPECT_EQ(std_of(t),
            "T0|fork(T1)|42\nT0|fork(T2)|42\nT2|fork(T3)|123\nT0|req(L0)|362\nT0|acq(L0)|362\n"
            "T0|r(V200)|436\nT0|w(V200)|923\nT0|rel(L0)|362\nT0|join(T1)|7382\n");
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_TRUE(t.summary.skipped_ops.empty());
  EXPECT_EQ(t.summary.format, "rapidbin");
}

TEST(RapidBinReader, DecodesRapidsDemoWord) {
  // RAPID parse/bin BinaryFormat.demo(): 2814749767585800 is thread 8, op 4, decor 29, loc 10.
  const Trace t = parse_trace(rapidbin(9, 0, 0, 1, {2814749767585800ULL}));
  EXPECT_EQ(std_of(t), "T8|fork(T29)|10\n");
}

TEST(RapidBinReader, EveryErrorNamesTheByteOffset) {
  const std::string good = rapidbin(4, 1, 1, 9, kWasmgrindEvents);
  EXPECT_EQ(error_of(good.substr(0, 10), InputFormat::RapidBin),
            "t: byte 0: error: truncated header: RapidBin starts with an 18-byte header, the input "
            "has 10 bytes");
  EXPECT_EQ(error_of(good.substr(0, 40), InputFormat::RapidBin),
            "t: byte 34: error: truncated event: 6 bytes after the last whole 8-byte event");
  EXPECT_EQ(error_of(rapidbin(4, 1, 1, 8, kWasmgrindEvents), InputFormat::RapidBin),
            "t: byte 82: error: the header declares 8 events, the input holds more");
  EXPECT_EQ(error_of(rapidbin(1, 0, 0, 2, {0, uint64_t{12} << 10}), InputFormat::RapidBin),
            "t: byte 26: error: event 2: unknown operation code 12 (expected 0-9)");
  EXPECT_EQ(error_of(rapidbin(1, 0, 0, 1, {uint64_t{1} << 63 | 2 << 10}), InputFormat::RapidBin),
            "t: byte 18: error: event 1: the unused bit 63 is set");
  // --lenient: the bad event is skipped and counted, the rest is read.
  const Trace t = parse_trace(rapidbin(1, 0, 1, 2, {uint64_t{12} << 10, 3 << 10}),
                              ReadOptions{InputFormat::RapidBin, true});
  EXPECT_EQ(std_of(t), "T0|w(V0)|0\n");
  EXPECT_EQ(t.ids, (std::vector<EventId>{2}));
  EXPECT_EQ(t.summary.malformed, 1u);
}

// --- --lenient on the text formats ------------------------------------------------------------

TEST(LineReaders, LenientSkipsAndCountsMalformedLines) {
  struct Case {
    InputFormat format;
    const char* text;
    const char* kept;
  } cases[] = {
      {InputFormat::RapidCsv, "w(x),\nbad,\n,r(x)\n", "T0|w(x)|1\nT1|r(x)|3\n"},
      {InputFormat::RoadRunner, "@ Rd(1,x) S L\n@ Bad(1,x)\n@ Wr(2,x) S M\n",
       "1|r(x)|L\n2|w(x)|M\n"},
      {InputFormat::LockFrame, "1,RD,1\n1,XX,1\n2,WR,1\n", "T1|r(V1)|1\nT2|w(V1)|3\n"},
  };
  for (const Case& c : cases) {
    const Trace t = parse_trace(c.text, ReadOptions{c.format, true}, "t");
    EXPECT_EQ(std_of(t), c.kept);
    EXPECT_EQ(t.ids, (std::vector<EventId>{1, 3}));
    EXPECT_EQ(t.summary.malformed, 1u);
    ASSERT_EQ(t.summary.malformed_examples.size(), 1u);
    EXPECT_EQ(t.summary.malformed_examples[0].rfind("t:2:", 0), 0u);
  }
}

// --- writers and round trips ------------------------------------------------------------------

Trace reread(const Trace& trace, InputFormat format, const WriteOptions& options = {}) {
  TempFile file(".out");
  write_trace(trace, format, file.path, options);
  Trace back = load_trace(file.path);  // auto-detected
  EXPECT_EQ(back.summary.format, format_of(format).name);
  return back;
}

// The trace with each event's location replaced: what formats without (some) locations keep.
Trace relocated(const Trace& t, bool line_numbers_everywhere) {
  std::string text;
  for (size_t i = 0; i < t.size(); ++i) {
    const Event& e = t.events[i];
    const std::string location = line_numbers_everywhere ? std::to_string(i + 1)
                                 : e.is_access()         ? std::string(t.location_name(e.location))
                                                         : std::string("-");
    text += std::string(t.thread_name(e.thread)) + "|" + std::string(op_name(e.op)) + "(" +
            std::string(t.target_name(e)) + ")|" + location + "\n";
  }
  return parse_trace(text);
}

TEST(TraceWriters, RoundTripEveryFormatOnRandomTraces) {
  const int runs = std::getenv("RACEPRED_SANITIZED") ? 3 : 12;
  for (int seed = 1; seed <= runs; ++seed) {
    GeneratorOptions g;
    g.seed = static_cast<uint64_t>(seed);
    g.threads = 2 + seed % 5;
    g.events = 300;
    g.variables = 20;
    g.locks = 4;
    g.shape = seed % 2 ? ForkShape::Fork : ForkShape::Nested;
    const Trace trace = generate_trace(g);
    for (const TraceFormat& f : trace_formats()) {
      SCOPED_TRACE(std::string(f.name) + " seed " + std::to_string(seed));
      const Trace input = f.id == InputFormat::RapidCsv     ? relocated(trace, true)
                          : f.id == InputFormat::RoadRunner ? relocated(trace, false)
                                                            : trace;
      expect_same_events(input, reread(input, f.id));
    }
  }
}

// req(l) round trips through std, binary and RapidBin (its op 8); the other formats have no
// lock request and refuse it.
TEST(TraceWriters, RequestsRoundTripWhereTheFormatHasThem) {
  const Trace t =
      parse_trace("T0|fork(T1)|1\nT0|acq(L0)|2\nT1|acq(L1)|3\nT1|req(L0)|4\nT0|req(L1)|5\n");
  for (InputFormat f : {InputFormat::Std, InputFormat::Binary, InputFormat::RapidBin}) {
    SCOPED_TRACE(format_of(f).name);
    const Trace back = reread(t, f);
    expect_same_events(t, back);
    EXPECT_EQ(back.events[4].op, Op::Request);
  }
  // rreq(l), a read request: std and binary (version 6); every other format refuses it.
  const Trace r =
      parse_trace("T0|fork(T1)|1\nT0|acq(L0)|2\nT1|racq(L1)|3\nT1|rreq(L0)|4\nT0|req(L1)|5\n");
  for (InputFormat f : {InputFormat::Std, InputFormat::Binary}) {
    SCOPED_TRACE(format_of(f).name);
    const Trace back = reread(r, f);
    expect_same_events(r, back);
    EXPECT_EQ(back.events[3].op, Op::ReadRequest);
  }
  for (InputFormat f : {InputFormat::LockFrame, InputFormat::SpeedyGo, InputFormat::RapidCsv,
                        InputFormat::RoadRunner, InputFormat::RapidBin}) {
    TempFile file(".out");
    WriteOptions lossy;
    lossy.allow_loss = true;
    EXPECT_THROW(write_trace(r, f, file.path, lossy), UsageError) << format_of(f).name;
  }
  for (InputFormat f : {InputFormat::LockFrame, InputFormat::SpeedyGo, InputFormat::RapidCsv,
                        InputFormat::RoadRunner}) {
    TempFile file(".out");
    WriteOptions lossy;
    lossy.allow_loss = true;
    EXPECT_THROW(write_trace(t, f, file.path, lossy), UsageError) << format_of(f).name;
  }
}

TEST(TraceWriters, RefuseLossesUnlessAllowed) {
  const Trace t = parse_trace("main|fork(worker)|Main.java:3\nworker|w(x)|Main.java:9\n");
  for (InputFormat f : {InputFormat::LockFrame, InputFormat::SpeedyGo, InputFormat::RapidBin,
                        InputFormat::RapidCsv, InputFormat::RoadRunner}) {
    TempFile file(".out");
    EXPECT_THROW(write_trace(t, f, file.path), UsageError) << format_of(f).name;
  }
  try {
    TempFile file(".out");
    write_trace(t, InputFormat::LockFrame, file.path);
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "converting to lockframe would lose information:\n"
              "  - thread name 'main' is not T<number>: the threads would be numbered anew (T0, "
              "T1, ... in order of appearance)\n"
              "  - variable name 'x' is not V<number>: the variables would be numbered anew (V0, "
              "V1, ... in order of appearance)\n"
              "(pass --allow-loss to convert anyway)");
  }
  // With the flag: numbered anew, in order of appearance; locations kept where the format has
  // a place for them.
  EXPECT_EQ(std_of(reread(t, InputFormat::LockFrame, {true})),
            "T0|fork(T1)|Main.java:3\nT1|w(V0)|Main.java:9\n");
  EXPECT_EQ(std_of(reread(t, InputFormat::RapidBin, {true})), "T0|fork(T1)|0\nT1|w(V0)|1\n");
  EXPECT_EQ(std_of(reread(t, InputFormat::RoadRunner, {true})),
            "main|fork(worker)|-\nworker|w(x)|Main.java:9\n");
  // Names no format variant can hold are refused even with the flag.
  const Trace spaced = parse_trace("T0|w(a,b)|1\n");
  TempFile file(".out");
  EXPECT_THROW(write_trace(spaced, InputFormat::RapidCsv, file.path, {true}), UsageError);
}

TEST(TraceWriters, SpeedyGoRefusesForksItCannotExpress) {
  // T1 runs before it is forked: SpeedyGo's signal/wait pair would not read back as a fork.
  const Trace t = parse_trace("T1|w(V1)|1\nT0|fork(T1)|2\nT1|w(V1)|3\n");
  TempFile file(".out");
  EXPECT_THROW(write_trace(t, InputFormat::SpeedyGo, file.path), UsageError);
}

// --- compressed input -------------------------------------------------------------------------

std::string gzip(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
std::string zstd(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 1);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}
std::string xz(const std::string& in) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, nullptr,
                                    reinterpret_cast<const uint8_t*>(in.data()), in.size(),
                                    reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

// Reads `bytes` through a pipe as standard input would be.
Trace read_through_pipe(const std::string& bytes) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
  });
  Trace t = load_trace("/dev/fd/" + std::to_string(fds[0]));
  writer.join();
  close(fds[0]);
  return t;
}

TEST(CompressedInput, SameEventsAsThePlainTraceInEveryFormat) {
  GeneratorOptions g;
  g.events = std::getenv("RACEPRED_SANITIZED") ? 3000 : 20000;
  g.threads = 6;
  const Trace trace = generate_trace(g);
  for (const TraceFormat& f : trace_formats()) {
    const Trace input = f.id == InputFormat::RapidCsv     ? relocated(trace, true)
                        : f.id == InputFormat::RoadRunner ? relocated(trace, false)
                                                          : trace;
    TempFile plain(".plain");
    write_trace(input, f.id, plain.path);
    const std::string bytes = plain.read();
    const Trace expected = load_trace(plain.path);
    for (const auto& [name, packed] :
         {std::pair{"gzip", gzip(bytes)}, std::pair{"zstd", zstd(bytes)},
          std::pair{"xz", xz(bytes)}}) {
      SCOPED_TRACE(std::string(f.name) + " " + name);
      TempFile file(".z");
      file.write(packed);
      const Trace from_file = load_trace(file.path);
      EXPECT_EQ(from_file.summary.compression, name);
      EXPECT_EQ(from_file.summary.format, f.name);
      expect_same_events(expected, from_file);
      EXPECT_EQ(from_file.ids, expected.ids);
      expect_same_events(expected, read_through_pipe(packed));
      expect_same_events(expected, parse_trace(packed));
    }
  }
}

TEST(CompressedInput, LargeInputStreamsAcrossManyBlocks) {
  // About 6 MB of STD text: several reader blocks and decoder buffers.
  GeneratorOptions g;
  g.events = std::getenv("RACEPRED_SANITIZED") ? 100000 : 400000;
  g.threads = 8;
  const Trace trace = generate_trace(g);
  TempFile plain(".std");
  write_trace(trace, InputFormat::Std, plain.path);
  const std::string bytes = plain.read();
  TempFile packed(".std.zst");
  packed.write(zstd(bytes));
  const Trace back = load_trace(packed.path);
  expect_same_events(trace, back);
  EXPECT_EQ(back.summary.lines, trace.size());
  expect_same_events(trace, read_through_pipe(gzip(bytes)));
}

TEST(CompressedInput, ConcatenatedMembersAreOneInput) {
  const Trace t = parse_trace(gzip("T0|w(x)|1\n") + gzip("T1|w(x)|2\n"));
  EXPECT_EQ(std_of(t), "T0|w(x)|1\nT1|w(x)|2\n");
}

TEST(CompressedInput, CorruptAndTruncatedDataAreInputErrors) {
  const std::string text = "T0|w(x)|1\nT1|w(x)|2\n";
  for (const auto& [name, packed] :
       {std::pair{"gzip", gzip(text)}, std::pair{"zstd", zstd(text)}, std::pair{"xz", xz(text)}}) {
    SCOPED_TRACE(name);
    const std::string truncated = packed.substr(0, packed.size() - 5);
    std::string corrupt = packed;
    corrupt[corrupt.size() / 2] ^= 0x55;
    // zstd frames carry no checksum by default: a flipped byte need not be detected there.
    std::vector<std::string> bad_inputs{truncated};
    if (std::string(name) != "zstd") bad_inputs.push_back(corrupt);
    for (const std::string& bad : bad_inputs) {
      try {
        parse_trace(bad, {}, "t.z");
        ADD_FAILURE() << "no error";
      } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(std::string("t.z: error: ") + name + " data", 0), 0u)
            << e.what();
      }
    }
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
