// Names that a trace may hold and a terminal must not interpret, STD names with any byte, and
// readers that must stop on endless input.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <string>

#include "racepred/io/reader.hpp"
#include "racepred/io/std_parser.hpp"
#include "racepred/io/std_writer.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

TEST(Printable, C1ControlsBidiOverridesAndEdgeSpacesAreEscaped) {
  EXPECT_EQ(printable("a\xc2\x9b"
                      "b"),
            "a\\u009bb");  // U+009B, CSI
  EXPECT_EQ(printable("\xc2\x80\xc2\x9f"), "\\u0080\\u009f");
  EXPECT_EQ(printable("x\x9b[31m"), "x\\x9b[31m");  // a raw C1 byte
  EXPECT_EQ(printable("a\xe2\x80\xae"
                      "b"),
            "a\\u202eb");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(printable("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"), "\\u202a\\u2066\\u2069");
  EXPECT_EQ(printable("T1 "), "T1\\x20");
  EXPECT_EQ(printable(" T1"), "\\x20T1");
  EXPECT_EQ(printable(" "), "\\x20");
  EXPECT_EQ(printable("a b"), "a b");
  // Printable non-ASCII stays: é, U+00A0, U+2028 is not an override, U+202F neither.
  EXPECT_EQ(printable("\xc3\xa9\xc2\xa0\xe2\x80\xaf"), "\xc3\xa9\xc2\xa0\xe2\x80\xaf");
  EXPECT_EQ(printable("\xff\xa0"), "\xff\xa0");  // invalid UTF-8 above C1: kept, as before
  // Messages keep their newlines and spaces.
  EXPECT_EQ(printable_text("a \nb\xc2\x9b \n"), "a \nb\\u009b \n");
}

TEST(StdEscape, NamesWithAnyByteRoundTrip) {
  const std::string names[] = {"heap[heap.c:7:9 (main)#1]+4",
                               "op.cpp:4:59 (operator|(A, A))",
                               "a\\b",
                               "\\x41",
                               "#t",
                               "tab\there",
                               "cr\r",
                               "nl\n",
                               std::string("nul\0x", 5),
                               "\x7f",
                               " ",
                               "|"};
  for (const std::string& name : names) {
    for (bool thread : {false, true}) {
      std::string escaped(4 * name.size(), '\0');
      escaped.resize(
          static_cast<size_t>(io::std_escape(name, thread, escaped.data()) - escaped.data()));
      EXPECT_EQ(escaped.find_first_of(" \t\r\n|"), std::string::npos) << escaped;
      std::string storage;
      EXPECT_EQ(std::string(io::std_unescape(escaped, storage)), name) << escaped;
    }
  }
  std::string storage;
  EXPECT_EQ(io::std_unescape("C:\\dir\\xq", storage), "C:\\dir\\xq");  // not an escape: kept
  EXPECT_EQ(io::std_unescape("a\\x7C\\x7c", storage), "a||");
}

// A trace with such names written by StdWriter reads back with the same names and events.
TEST(StdEscape, WriterAndReaderAgree) {
  Trace trace;
  Symbols& s = trace.symbols;
  const uint32_t t1 = s.threads.intern("#main thread");
  const uint32_t t2 = s.threads.intern("T 2");
  const uint32_t x = s.variables.intern("heap[heap.c:7:9 (main)#1]+4");
  const uint32_t l = s.locks.intern("m|n");
  const uint32_t a = s.locations.intern("op.cpp:4:59 (operator|(A, A))");
  const uint32_t b = s.locations.intern("short");
  const Event events[] = {{Op::Fork, t1, t2, a},
                          {Op::Acquire, t2, l, b},
                          {Op::Write, t2, x, a},
                          {Op::Release, t2, l, b},
                          {Op::Read, t1, x, b}};
  for (const Event& e : events) {
    trace.events.push_back(e);
    trace.ids.push_back(trace.events.size());
    trace.lines.push_back(static_cast<uint32_t>(trace.events.size()));
  }
  const std::string path = "/tmp/racepred_trust_" + std::to_string(::getpid()) + ".std";
  {
    StdWriter writer(trace.symbols, path);
    for (size_t i = 0; i < trace.size(); ++i)
      writer.on_event(trace.ids[i], trace.events[i], trace.lines[i]);
    writer.close();
  }
  const Trace back = load_trace(path, ReadOptions{});
  std::remove(path.c_str());
  const Trace from_text = parse_trace(to_std_text(trace), ReadOptions{}, "t.std");
  for (const Trace* t : {&back, &from_text}) {
    ASSERT_EQ(t->size(), trace.size());
    for (size_t i = 0; i < trace.size(); ++i) {
      EXPECT_EQ(t->events[i].op, trace.events[i].op);
      EXPECT_EQ(t->thread_name(t->events[i].thread), trace.thread_name(trace.events[i].thread));
      EXPECT_EQ(t->target_name(t->events[i]), trace.target_name(trace.events[i]));
      EXPECT_EQ(t->location_name(t->events[i].location),
                trace.location_name(trace.events[i].location));
    }
  }
}

TEST(RapidBinReader, StopsAtTheFirstEventPastTheDeclaredCount) {
  // Header: 1 thread, 0 locks, 1 variable, 1 event; then 3 events.
  std::string bin("\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01", 18);
  bin += std::string(24, '\0');
  for (bool lenient : {false, true}) {
    ReadOptions options;
    options.format = InputFormat::RapidBin;
    options.lenient = lenient;
    try {
      parse_trace(bin, options, "t.bin");
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(),
                   "t.bin: byte 26: error: the header declares 1 events, the input "
                   "holds more");
    }
  }
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
