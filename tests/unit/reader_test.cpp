// STD and SpeedyGo readers: grammar, exact error positions, lenient mode, input methods.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "racepred/io/input.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/io/speedygo_parser.hpp"
#include "racepred/io/std_parser.hpp"
#include "racepred/io/std_writer.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

// The message of the InputError that parsing `text` throws, or "" when it parses.
std::string error_of(std::string_view text, InputFormat format = InputFormat::Std) {
  try {
    parse_trace(text, ReadOptions{format, false}, "t.std");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Same events, ids, lines and names.
void expect_same(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.lines, b.lines);
  for (auto table :
       {&Symbols::threads, &Symbols::variables, &Symbols::locks, &Symbols::locations}) {
    ASSERT_EQ((a.symbols.*table).size(), (b.symbols.*table).size());
    for (uint32_t i = 0; i < (a.symbols.*table).size(); ++i)
      ASSERT_EQ((a.symbols.*table).name(i), (b.symbols.*table).name(i));
  }
}

std::string std_of(const Trace& t) {
  std::string s;
  for (size_t i = 0; i < t.size(); ++i)
    s += std::to_string(t.ids[i]) + "@" + std::to_string(t.lines[i]) + " " + t.to_std(t.events[i]) +
         "\n";
  return s;
}

// A temporary file, removed at the end of the test.
struct TempFile {
  std::string path;
  explicit TempFile(std::string_view content) {
    char name[] = "/tmp/racepred_reader_test_XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    path = name;
    EXPECT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    close(fd);
  }
  ~TempFile() { std::remove(path.c_str()); }
};

TEST(StdReader, ReadsEventsWithIdsLinesAndSeparateNameSpaces) {
  const Trace t = parse_trace(
      "T0|fork(T1)|1\nT1|acq(x)|2\nT1|w(x)|Main.java:12:5\nT1|rel(x)|4\nT0|join(T1)|5\n");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t.events[0], (Event{Op::Fork, 0, 1, 0}));
  EXPECT_EQ(t.events[1], (Event{Op::Acquire, 1, 0, 1}));
  EXPECT_EQ(t.events[2], (Event{Op::Write, 1, 0, 2}));
  EXPECT_EQ(t.events[3], (Event{Op::Release, 1, 0, 3}));
  EXPECT_EQ(t.events[4], (Event{Op::Join, 0, 1, 4}));
  EXPECT_EQ(t.symbols.threads.size(), 2u);
  EXPECT_EQ(t.symbols.variables.size(), 1u);  // x the variable
  EXPECT_EQ(t.symbols.locks.size(), 1u);      // x the lock: another name space
  EXPECT_EQ(t.location_name(2), "Main.java:12:5");
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 2, 3, 4, 5}));
  EXPECT_EQ(t.lines, (std::vector<uint32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(t.summary.format, "std");
  EXPECT_EQ(t.summary.delivered, 5u);
}

// send/recv name sync objects in the locks' name space; the writer writes them back as read.
TEST(StdReader, SendAndRecvNameSyncObjectsAmongTheLocks) {
  const std::string text = "T0|acq(m)|1\nT0|send(m)|2\nT0|rel(m)|3\nT1|recv(s)|4\nT1|send(s)|5\n";
  const Trace t = parse_trace(text);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t.events[1], (Event{Op::Send, 0, 0, 1}));  // m: the lock's id
  EXPECT_EQ(t.events[3], (Event{Op::Recv, 1, 1, 3}));
  EXPECT_EQ(t.symbols.locks.size(), 2u);
  EXPECT_EQ(t.to_std(t.events[3]), "T1|recv(s)|4");
  EXPECT_EQ(op_long_name(Op::Recv), "receive");
  EXPECT_EQ(to_std_text(t), text);
}

TEST(StdReader, CommentsBlankLinesCarriageReturnsAndMissingFinalNewline) {
  const Trace t = parse_trace("# header\n\n   \n\t\nT0|w(x)|1\r\n# more\nT1|r(x)|2\r");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 2}));  // comments and blank lines have no id
  EXPECT_EQ(t.lines, (std::vector<uint32_t>{5, 7}));
  EXPECT_EQ(t.location_name(t.events[0].location), "1");  // '\r' dropped
  EXPECT_EQ(t.location_name(t.events[1].location), "2");
  EXPECT_EQ(t.summary.lines, 7u);
  EXPECT_EQ(t.summary.event_lines, 2u);
}

TEST(StdReader, SkippedOpsKeepTheirIds) {
  const Trace t = parse_trace(
      "T0|begin|1\nT0|w(x)|2\nT0|req(l)|3\nT0|branch|4\nT0|end(x)|5\nT0|acq(l)|6\nT0|begin|7\n");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.ids, (std::vector<EventId>{2, 3, 6}));
  EXPECT_EQ(t.summary.skipped_ops,
            (std::map<std::string, uint64_t>{{"begin", 2}, {"branch", 1}, {"end", 1}}));
  EXPECT_EQ(t.summary.skipped_total(), 4u);
  EXPECT_EQ(t.summary.event_lines, 7u);
}

// req(l), RAPID's lock request, is an event: the lock a thread asked for.
TEST(StdReader, RequestsAreLockEvents) {
  const Trace t = parse_trace("T1|req(l)|3\nT1|acq(l)|4\nT2|req(l)|5\n");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.events[0].op, Op::Request);
  EXPECT_EQ(t.events[2].op, Op::Request);
  EXPECT_EQ(t.events[0].target, t.events[1].target);  // the lock name space
  EXPECT_EQ(t.to_std(t.events[2]), "T2|req(l)|5");
  EXPECT_EQ(op_long_name(Op::Request), "request");
  // rreq(l): the same in read (shared) mode.
  const Trace r = parse_trace("T1|rreq(l)|3\nT1|racq(l)|4\nT2|rreq(l)|5\n");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.events[0].op, Op::ReadRequest);
  EXPECT_EQ(r.events[0].target, r.events[1].target);
  EXPECT_EQ(r.to_std(r.events[2]), "T2|rreq(l)|5");
  EXPECT_EQ(op_long_name(Op::ReadRequest), "read-request");
}

TEST(StdReader, ArgumentsAndNamesAreTakenVerbatim) {
  const Trace t = parse_trace(
      "T1 |w(f(x))|1\nT1|w(V20ee188a[4])|2\nT1|acq(@07)|3\nT1|r(x)|a b\nT1|r(\xc3\xbc)|\xc3\xa4\n"
      "T1|r((x)|5\n");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t.thread_name(t.events[0].thread), "T1 ");  // no trimming
  EXPECT_EQ(t.thread_name(t.events[1].thread), "T1");
  EXPECT_EQ(t.variable_name(t.events[0].target), "f(x)");  // greedy, as RAPID's regex
  EXPECT_EQ(t.variable_name(t.events[1].target), "V20ee188a[4]");
  EXPECT_EQ(t.lock_name(t.events[2].target), "@07");
  EXPECT_EQ(t.location_name(t.events[3].location), "a b");
  EXPECT_EQ(t.variable_name(t.events[4].target), "\xc3\xbc");
  EXPECT_EQ(t.variable_name(t.events[5].target), "(x");
}

struct ErrorCase {
  const char* line;
  size_t column;
  const char* message;
};

const ErrorCase kErrorCases[] = {
    {"T1", 3, "missing field: expected '|' after the thread name"},
    {"T1 w(x) 3", 10, "missing field: expected '|' after the thread name"},
    {"T1|w(x)", 8, "missing field: expected '|' and a location after the operation"},
    {"T1|w(x)|3|4", 10, "too many fields: unexpected '|'"},
    {"T1|w(x|y)|3", 10, "too many fields: unexpected '|'"},
    {"|w(x)|3", 1, "empty thread name"},
    {"T1||3", 4, "missing operation"},
    {"T1|wr(x)|3", 4, "unknown operation 'wr'"},
    {"T1|W(x)|3", 4, "unknown operation 'W'"},
    {"T1| w(x)|3", 4, "unknown operation '\\x20w'"},
    {"T1|beginXYZ|3", 4, "unknown operation 'beginXYZ'"},
    {"T1|w|3", 5, "missing '(' after 'w'"},
    {"T1|fork|3", 8, "missing '(' after 'fork'"},
    {"T1|w(x|3", 7, "missing ')' at the end of the operation"},
    {"T1|w(|3", 6, "missing ')' at the end of the operation"},
    {"T1|w(x)y|3", 8, "unexpected text after ')'"},
    {"T1|w()|3", 6, "empty argument"},
    {"T1|acq()|3", 8, "empty argument"},
    {"T1|w(a b)|3", 7, "whitespace in argument"},
    {"T1|w(a\tb)|3", 7, "whitespace in argument"},
    {"T1|w( )|3", 6, "whitespace in argument"},
    {"T1|w(x)|", 9, "empty location"},
    {"T1|w(x)|\r", 9, "empty location"},
    {"T1|begin(x|3", 11, "missing ')' at the end of the operation"},
    {"T1|req()|3", 8, "empty argument"},
};

TEST(StdReader, EveryErrorClassHasItsExactColumn) {
  for (const ErrorCase& c : kErrorCases) {
    SCOPED_TRACE(c.line);
    const std::string expected =
        "t.std:1:" + std::to_string(c.column) + ": error: " + std::string(c.message);
    EXPECT_EQ(error_of(std::string(c.line)).substr(0, expected.size()), expected);
    // The same line after valid ones, with a newline, and long enough to leave the fast paths.
    const std::string prefix = "# comment\nT0|w(x)|1\n\n";
    EXPECT_EQ(error_of(prefix + c.line + "\nT0|w(x)|1\n").substr(0, expected.size()),
              "t.std:4:" + expected.substr(8));
    const std::string pad(40, 'P');  // a thread name 40 bytes longer: columns shift by 40
    std::string shifted = c.line;
    if (c.column > 1 || shifted[0] != '|') {
      shifted = pad + shifted;
      const std::string expected_long =
          "t.std:1:" + std::to_string(c.column + 40) + ": error: " + std::string(c.message);
      EXPECT_EQ(error_of(shifted + "\n" + std::string(100, '#')).substr(0, expected_long.size()),
                expected_long);
    }
  }
}

TEST(StdReader, LenientSkipsMalformedLinesCountingThemAndKeepingTheFirstFew) {
  std::string text = "T0|w(x)|1\n";
  for (int i = 0; i < 8; ++i) text += "bad line\n";
  text += "T0|r(x)|2\n";
  const Trace t = parse_trace(text, ReadOptions{InputFormat::Std, true}, "t.std");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 10}));  // malformed lines keep their numbers
  EXPECT_EQ(t.summary.malformed, 8u);
  ASSERT_EQ(t.summary.malformed_examples.size(), kMalformedExamples);
  EXPECT_EQ(t.summary.malformed_examples[0],
            "t.std:2:9: error: missing field: expected '|' after the thread name "
            "(THREAD|OP(ARG)|LOCATION)");
  EXPECT_EQ(t.summary.malformed_examples[4].substr(0, 10), "t.std:6:9:");
  EXPECT_EQ(error_of(text).substr(0, 10), "t.std:2:9:");  // strict: the first one throws
}

TEST(StdReader, EmptyInputIsAnEmptyTrace) {
  EXPECT_EQ(parse_trace("").size(), 0u);
  EXPECT_EQ(parse_trace("\n\n# nothing\n").size(), 0u);
}

// Random lines over the characters that matter: the reader (fast paths included) must agree
// with parse_std_line, the reference, on every one.
TEST(StdReader, FastPathsAgreeWithTheReferenceParserOnRandomLines) {
  std::mt19937_64 rng(7);
  const std::string alphabet = "T1|(|)rwacqelforkjinbgd x\t\r#|()";
  const char* templates[] = {"T1|r(x)|1",     "T12|w(V3)|45",  "T0|acq(L1)|7", "T0|rel(L1)|8",
                             "T0|fork(T1)|0", "T1|join(T2)|9", "T1|begin|3",   "T2|req(l)|4"};
  for (int iter = 0; iter < 20000; ++iter) {
    std::string line = templates[rng() % std::size(templates)];
    const int edits = static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % (line.size() + 1);
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          line.insert(pos, 1, c);
          break;
        case 1:
          if (pos < line.size()) line.erase(pos, 1);
          break;
        default:
          if (pos < line.size()) line[pos] = c;
      }
    }
    if (rng() % 4 == 0) line = std::string(rng() % 40, 'A') + line;  // long lines too
    SCOPED_TRACE(line);
    const io::StdLine ref = io::parse_std_line(line);
    // First line of a text with plenty of bytes after it (the vector path needs 64).
    const std::string text = line + "\n" + std::string(100, '#') + "\n";
    const Trace t = parse_trace(text, ReadOptions{InputFormat::Std, true}, "t.std");
    switch (ref.kind) {
      case io::StdLine::Kind::Blank:
        EXPECT_EQ(t.summary.event_lines, 0u);
        break;
      case io::StdLine::Kind::Skipped:
        EXPECT_EQ(t.size(), 0u);
        EXPECT_EQ(t.summary.skipped_total(), 1u);
        break;
      case io::StdLine::Kind::Error:
        EXPECT_EQ(t.size(), 0u);
        ASSERT_EQ(t.summary.malformed, 1u);
        EXPECT_EQ(t.summary.malformed_examples[0],
                  "t.std:1:" + std::to_string(ref.column) + ": error: " + ref.message);
        break;
      case io::StdLine::Kind::Event:
        ASSERT_EQ(t.size(), 1u);
        EXPECT_EQ(t.events[0].op, ref.op);
        EXPECT_EQ(t.thread_name(t.events[0].thread), ref.thread);
        EXPECT_EQ(t.target_name(t.events[0]), ref.argument);
        EXPECT_EQ(t.location_name(t.events[0].location), ref.location);
        break;
    }
  }
}

// Past a few ten thousand names the reader prefetches name slots a few lines ahead and
// delivers the lines late (StdParser::stage): the events, their ids, lines and names are those
// of the line-by-line reference parser, also around comments, skipped ops, CRLF lines and
// malformed lines (--lenient), and a name past the limit is reported at its own line.
TEST(StdReader, StagedLookupsOfLargeNameTablesKeepEveryLineInOrder) {
  std::mt19937_64 rng(11);
  std::string text;
  for (int i = 0; i < 300000; ++i) {
    switch (rng() % 20) {
      case 0:
        text += "# c\n";
        break;
      case 1:
        text += "T1|begin|3\n";
        break;
      case 2:
        text += "T1|w(x y)|3\n";  // malformed
        break;
      case 3:
        text.append("T2|acq(L").append(std::to_string(rng() % 50)).append(")|9\r\n");
        break;
      default:  // appends: g++ 12 warns (-Wrestrict) about chains of string operator+
        text.append("T").append(std::to_string(rng() % 8)).append(rng() % 2 ? "|r(V" : "|w(V");
        text.append(std::to_string(rng() % 150000)).append(")|");
        text.append(std::to_string(rng() % 200000)).append("\n");
    }
  }
  Symbols symbols;
  std::vector<Event> events;
  std::vector<EventId> ids;
  std::vector<uint32_t> lines;
  EventId id = 0;
  uint32_t line = 0;
  for (size_t p = 0; p < text.size();) {
    const size_t nl = text.find('\n', p);
    const io::StdLine r = io::parse_std_line(std::string_view(text).substr(p, nl - p));
    p = nl + 1;
    ++line;
    if (r.kind == io::StdLine::Kind::Blank) continue;
    ++id;
    if (r.kind != io::StdLine::Kind::Event) continue;
    Event e;
    e.op = r.op;
    e.thread = symbols.threads.intern(r.thread);
    e.target = (r.op == Op::Read || r.op == Op::Write ? symbols.variables : symbols.locks)
                   .intern(r.argument);
    e.location = symbols.locations.intern(r.location);
    events.push_back(e);
    ids.push_back(id);
    lines.push_back(line);
  }
  const TempFile file(text);
  for (bool from_file : {false, true}) {
    SCOPED_TRACE(from_file ? "file" : "string");
    const ReadOptions lenient{InputFormat::Std, true};
    const Trace t =
        from_file ? load_trace(file.path, lenient) : parse_trace(text, lenient, "t.std");
    ASSERT_GT(t.symbols.variables.size(), 100000u);
    EXPECT_EQ(t.events, events);
    EXPECT_EQ(t.ids, ids);
    EXPECT_EQ(t.lines, lines);
    for (auto table :
         {&Symbols::threads, &Symbols::variables, &Symbols::locks, &Symbols::locations}) {
      ASSERT_EQ((t.symbols.*table).size(), (symbols.*table).size());
      for (uint32_t i = 0; i < (t.symbols.*table).size(); ++i)
        ASSERT_EQ((t.symbols.*table).name(i), (symbols.*table).name(i));
    }
  }
  // The limit on names while staging: the error names the line of the first name past it.
  Symbols limited;
  limited.variables.set_max_names(100000);
  struct Discard : EventConsumer {
    void on_event(EventId, const Event&, uint32_t) override {}
  } sink;
  uint32_t past = 0;  // the line of the 100,001st distinct variable
  {
    SymbolTable names;
    for (size_t k = 0; k < events.size() && past == 0; ++k)
      if (events[k].op == Op::Read || events[k].op == Op::Write)
        if (names.intern(symbols.variables.name(events[k].target)) == 100000) past = lines[k];
  }
  ASSERT_GT(past, 0u);
  try {
    read_events_from_string(text, "n.std", ReadOptions{InputFormat::Std, true}, limited, sink);
    ADD_FAILURE() << "no error past the name limit";
  } catch (const InputError& e) {
    const std::string expected =
        std::string("n.std:").append(std::to_string(past)).append(":1: error: more than 100000");
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
  }
}

std::string big_text(size_t lines) {
  std::mt19937_64 rng(3);
  std::string text;
  for (size_t i = 0; i < lines; ++i) {
    switch (rng() % 7) {
      case 0:
        text += "# comment " + std::to_string(i) + "\n";
        break;
      case 1:
        text += "T" + std::to_string(rng() % 4) + "|acq(L" + std::to_string(rng() % 3) + ")|" +
                std::string(1 + rng() % 50, 'l') + "\r\n";
        break;
      case 2:
        text += "T" + std::to_string(rng() % 4) + "|begin|1\n";
        break;
      default:
        text += "Thread" + std::to_string(rng() % 4) + "|" + (rng() % 2 ? "r" : "w") + "(V" +
                std::to_string(rng() % 1000) + std::string(rng() % 20, 'v') + ")|" +
                std::to_string(rng() % 100000) + "\n";
    }
  }
  return text;
}

TEST(StdReader, FileStringAndStreamReadsAgree) {
  const std::string text = big_text(170000) + "T9|w(last)|no-newline";  // > 4 MiB, > one chunk
  ASSERT_GT(text.size(), size_t{4} << 20);
  const TempFile file(text);
  const Trace from_string = parse_trace(text);
  const Trace from_file = load_trace(file.path);
  expect_same(from_file, from_string);
  EXPECT_EQ(from_file.summary.skipped_ops, from_string.summary.skipped_ops);
  EXPECT_EQ(from_file.summary.lines, 170001u);

  // Standard input: a pipe fed by a thread, read in chunks.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const int saved_stdin = dup(STDIN_FILENO);
  ASSERT_EQ(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
  close(fds[0]);
  std::thread writer([&] {
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n =
          write(fds[1], text.data() + done, std::min<size_t>(70001, text.size() - done));
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
  });
  Trace from_stdin;
  {
    TraceCollector collector(from_stdin);
    from_stdin.summary = read_events("-", {}, from_stdin.symbols, collector);
  }
  writer.join();
  dup2(saved_stdin, STDIN_FILENO);
  close(saved_stdin);
  expect_same(from_stdin, from_string);
  EXPECT_EQ(from_stdin.summary.lines, 170001u);
}

TEST(StdReader, ChunkReaderPassesLinesUpToTheLimitAndStopsAfter) {
  // A line just under the limit comes whole; a 9 MiB line is LineTooLong (the buffer does not
  // grow without bound: a pipe from /dev/zero cannot exhaust memory).
  std::string good = "T0|w(x)|1\nT0|w(y)|";
  good.append(kMaxLineBytes - 20, 'L');
  good += "\nT0|w(z)|3\n";
  std::string text = good;
  text.append(size_t{9} << 20, 'M');
  text += '\n';
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
  });
  io::ChunkReader reader(fds[0], "pipe");
  std::string seen;
  EXPECT_THROW(
      {
        for (std::string_view block = reader.next(); !block.empty(); block = reader.next()) {
          EXPECT_EQ(block.back(), '\n');
          seen.append(block);
        }
      },
      io::LineTooLong);
  char buffer[1 << 16];
  while (read(fds[0], buffer, sizeof buffer) > 0) {
  }
  writer.join();
  close(fds[0]);
  EXPECT_EQ(seen, good);
}

TEST(StdReader, MissingFileIsAnInputError) {
  EXPECT_THROW(load_trace("/nonexistent/trace.std"), InputError);
  try {
    load_trace("/nonexistent/trace.std");
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/trace.std: error: cannot open file", 0),
              0u);
  }
  EXPECT_THROW(load_trace("/tmp"), InputError);
}

TEST(InputFormat, DetectedFromTheFirstEventLine) {
  EXPECT_EQ(detect_input_format("# c\n\nT0|w(x)|1\n"), InputFormat::Std);
  EXPECT_EQ(detect_input_format("1,RD,1,Test.java:1:1,1\n"), InputFormat::SpeedyGo);
  EXPECT_EQ(detect_input_format("# 1,2\n12,WR,3,nil,0"), InputFormat::SpeedyGo);
  EXPECT_EQ(detect_input_format("garbage\n1,RD,1,x,1\n"), InputFormat::Std);
  EXPECT_EQ(detect_input_format("1|w(x),2|3\n"), InputFormat::Std);
  EXPECT_EQ(detect_input_format(""), InputFormat::Std);
  EXPECT_EQ(detect_input_format("T0|w(x)", false), std::nullopt);
  EXPECT_EQ(detect_input_format("# only a comment\n", false), std::nullopt);
  EXPECT_EQ(parse_input_format("speedygo"), InputFormat::SpeedyGo);
  EXPECT_EQ(parse_input_format("rv"), std::nullopt);  // RV-Predict logs: not read
  EXPECT_EQ(input_format_name(InputFormat::Std), "std");
}

// --- SpeedyGo --------------------------------------------------------------------------------

TEST(SpeedyGoReader, AccessesAndLocksWithPrefixedNames) {
  const Trace t = parse_trace(
      "1,LK,1,nil,1\n1,RD,1,Test.java:1:1,1\n1,WR,1,Test.java:2:1,2\n"
      "1,UK,1,nil,0\n2,WR,7,Test.java:4:1,4\n");
  EXPECT_EQ(t.summary.format, "speedygo");
  EXPECT_EQ(std_of(t),
            "1@1 T1|acq(L1)|nil\n2@2 T1|r(V1)|Test.java:1:1\n3@3 T1|w(V1)|Test.java:2:1\n"
            "4@4 T1|rel(L1)|nil\n5@5 T2|w(V7)|Test.java:4:1\n");
}

TEST(SpeedyGoReader, SignalWaitPairsBecomeForkAndJoin) {
  // Test12 of tests/data/speedygo: T3 signals T4's start, T4's last event is a signal that
  // T3 waits for.
  const Trace t = parse_trace(
      "3,RD,1,Test.java:3:1,1\n3,SIG,1,nil,1\n4,WT,1,nil,1\n4,WR,1,Test.java:4:1,1\n"
      "4,SIG,2,nil,2\n3,WT,2,nil,2\n3,RD,1,Test.java:6:1,1\n");
  EXPECT_EQ(std_of(t),
            "1@1 T3|r(V1)|Test.java:3:1\n2@2 T3|fork(T4)|nil\n4@4 T4|w(V1)|Test.java:4:1\n"
            "6@6 T3|join(T4)|nil\n7@7 T3|r(V1)|Test.java:6:1\n");
  EXPECT_EQ(t.summary.skipped_ops,
            (std::map<std::string, uint64_t>{{"SIG (join)", 1}, {"WT (fork)", 1}}));
}

TEST(SpeedyGoReader, SignalWaitPairsThatAreNeitherForkNorJoinAreSkipped) {
  // T2 has run before it waits and T1 goes on after its signal: a plain synchronisation that
  // no fork or join expresses.
  const Trace t = parse_trace(
      "1,WR,1,A:1:1,1\n2,WR,2,A:2:1,1\n1,SIG,5,nil,5\n2,WT,5,nil,5\n1,WR,1,A:3:1,1\n"
      "2,WT,9,nil,9\n1,NT,3,nil,3\n1,NTWT,3,nil,3\n1,ARD,1,A:4:1,1\n1,PREBRANCH,0,nil,0\n");
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.summary.skipped_ops, (std::map<std::string, uint64_t>{{"ARD", 1},
                                                                    {"NT", 1},
                                                                    {"NTWT", 1},
                                                                    {"PREBRANCH", 1},
                                                                    {"SIG (untranslated)", 1},
                                                                    {"WT (untranslated)", 2}}));
  // A signal waited for by two threads is not one fork either.
  const Trace two = parse_trace("1,SIG,1,nil,1\n2,WT,1,nil,1\n3,WT,1,nil,1\n2,WR,1,A:1:1,1\n");
  EXPECT_EQ(two.size(), 1u);
  EXPECT_EQ(two.summary.skipped_total(), 3u);
  // SIGNALJOIN/WAITJOIN pair among themselves.
  const Trace joins = parse_trace("2,WR,1,A:1:1,1\n2,SIGNALJOIN,1,nil,4\n1,WAITJOIN,0,nil,4\n");
  EXPECT_EQ(std_of(joins), "1@1 T2|w(V1)|A:1:1\n3@3 T1|join(T2)|nil\n");
}

TEST(SpeedyGoReader, EveryErrorClassHasItsExactColumn) {
  const ErrorCase cases[] = {
      {"1,RD,1,x:1:1", 13, "missing field: expected 1 more (TID,OP,ID,SRCREF,N)"},
      {"1,RD", 5, "missing field: expected 3 more"},
      {"1,RD,1,x:1:1,1,9", 15, "too many fields (expected TID,OP,ID,SRCREF,N)"},
      {",RD,1,x,1", 1, "empty thread id"},
      {"1a,RD,1,x,1", 2, "thread id: expected an unsigned integer"},
      {"-1,RD,1,x,1", 1, "thread id: expected an unsigned integer"},
      {"99999999999999999999,RD,1,x,1", 1, "thread id: number out of range"},
      {"1,rd,1,x,1", 3, "unknown operation 'rd'"},
      {"1, RD,1,x,1", 3, "unknown operation '\\x20RD'"},
      {"1,RD,,x,1", 6, "empty id"},
      {"1,RD,x,x,1", 6, "id: expected an unsigned integer"},
      {"1,RD,1,,1", 8, "empty source reference"},
      {"1,RD,1,x,", 10, "empty last field"},
      {"1,RD,1,x,1 ", 11, "last field: expected an unsigned integer"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.line);
    const std::string expected =
        "t.std:2:" + std::to_string(c.column) + ": error: " + std::string(c.message);
    EXPECT_EQ(error_of("1,WR,1,x,1\n" + std::string(c.line) + "\n", InputFormat::SpeedyGo)
                  .substr(0, expected.size()),
              expected);
  }
  // Lenient: counted and skipped, ids kept.
  const Trace t = parse_trace("1,WR,1,x,1\n1,XX,1,x,1\n\n1,RD,1,x,1\r\n",
                              ReadOptions{InputFormat::Auto, true}, "t.log");
  EXPECT_EQ(t.ids, (std::vector<EventId>{1, 3}));
  EXPECT_EQ(t.lines, (std::vector<uint32_t>{1, 4}));
  EXPECT_EQ(t.summary.malformed, 1u);
  EXPECT_EQ(t.summary.malformed_examples.at(0).substr(0, 20), "t.log:2:3: error: un");
}

TEST(SpeedyGoReader, LinesParseIntoFields) {
  const io::SpeedyGoLine l = io::parse_speedygo_line("12,SIG,3,nil,4\r");
  EXPECT_EQ(l.kind, io::SpeedyGoLine::Kind::Signal);
  EXPECT_EQ(l.thread, 12u);
  EXPECT_EQ(l.id, 3u);
  EXPECT_EQ(l.channel, 4u);
  EXPECT_EQ(l.location, "nil");
  EXPECT_EQ(io::parse_speedygo_line("# x").kind, io::SpeedyGoLine::Kind::Blank);
  EXPECT_EQ(io::parse_speedygo_line("1,POSTBRANCH,0,nil,0").kind, io::SpeedyGoLine::Kind::Skipped);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
