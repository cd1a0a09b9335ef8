// report/table (text tables, the papers' trace table, its JSON form) and engines/annotate.
#include <gtest/gtest.h>

#include "racepred/driver/annotate.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/report/notation.hpp"
#include "racepred/report/table.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

TEST(TextHelpers, DisplayWidthCountsCharacters) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("w(x)"), 4u);
  EXPECT_EQ(display_width("\xE2\x88\xAA"), 1u);  // "∪"
}

TEST(TextHelpers, WrapBreaksAfterCommasAndSpaces) {
  EXPECT_EQ(wrap_text("[0:w(x)_1,0:acq(y)_2,0:rel(y)_3]", 12),
            (std::vector<std::string>{"[0:w(x)_1,", "0:acq(y)_2,", "0:rel(y)_3]"}));
  EXPECT_EQ(wrap_text("(e1,e3) (e2,e3)", 8), (std::vector<std::string>{"(e1,e3)", "(e2,e3)"}));
  EXPECT_EQ(wrap_text("(e1,e3) (e2,e3)", 5),
            (std::vector<std::string>{"(e1,", "e3)", "(e2,", "e3)"}));
  EXPECT_EQ(wrap_text("abcdefghij", 4), (std::vector<std::string>{"abcd", "efgh", "ij"}));
  EXPECT_EQ(wrap_text("short", 10), (std::vector<std::string>{"short"}));
  EXPECT_EQ(wrap_text("", 10), (std::vector<std::string>{""}));
  for (const std::string& line : wrap_text("{ [3,0], [2,2], [1,7], [9,9] }", 9))
    EXPECT_LE(display_width(line), 9u) << line;
}

TEST(TextHelpers, TruncateEndsInDots) {
  EXPECT_EQ(truncate_text("[0:w(x)_1,0:acq(y)_2]", 10), "[0:w(x)...");
  EXPECT_EQ(truncate_text("abc", 10), "abc");
  EXPECT_EQ(truncate_text("abcdef", 3), "abc");
}

TEST(TextTable, NaturalWidthsAndRule) {
  TextTable t;
  t.add_column("", false);
  t.add_column("T0");
  t.add_column("W(x)");
  t.add_row({"e1", "w(x)", "{ [1,0] }"});
  t.add_row({"e2"});
  EXPECT_EQ(t.render(),
            "    T0    W(x)\n"
            "--  ----  ---------\n"
            "e1  w(x)  { [1,0] }\n"
            "e2\n");
  EXPECT_THROW(t.add_row({"a", "b", "c", "d"}), std::invalid_argument);
}

TEST(TextTable, NarrowsTheWidestColumnsAndWraps) {
  TextTable t;
  t.add_column("", false);
  t.add_column("event", true, 4);
  t.add_column("D(t)", true, 6);
  t.add_row({"e1", "w(x)", "[0:w(x)_1,0:acq(y)_2,0:rel(y)_3,1:acq(y)_4]"});
  const std::vector<size_t> widths = t.layout(30);
  EXPECT_EQ(widths[0], 2u);
  EXPECT_EQ(widths[1], 5u);                               // already narrow: kept
  EXPECT_EQ(widths[0] + widths[1] + widths[2] + 4, 30u);  // the rest goes to D(t)
  const std::string out = t.render({30, false});
  size_t lines = 0;
  for (size_t p = 0; (p = out.find('\n', p)) != std::string::npos; ++p) ++lines;
  EXPECT_GT(lines, 3u);  // header, rule, a wrapped row
  for (size_t p = 0, q; (q = out.find('\n', p)) != std::string::npos; p = q + 1)
    EXPECT_LE(display_width(out.substr(p, q - p)), 30u) << out;
  const std::string cut = t.render({30, true});
  EXPECT_NE(cut.find("..."), std::string::npos) << cut;
}

TEST(TextTable, NeverBelowTheMinimumWidth) {
  TextTable t;
  t.add_column("", false);
  t.add_column("a", true, 8);
  t.add_column("b", true, 8);
  t.add_row({"e1", std::string(20, 'x'), std::string(20, 'y')});
  const std::vector<size_t> widths = t.layout(10);  // cannot fit: minimums
  EXPECT_EQ(widths[1], 8u);
  EXPECT_EQ(widths[2], 8u);
}

Trace small_trace() {
  return parse_trace(
      "T0|w(x)|L1\n"
      "# a comment does not count\n"
      "T0|fork(T1)|L2\n"
      "T1|acq(y)|L3\n"
      "T1|r(x)|L4\n"
      "T1|rel(y)|L5\n");
}

TEST(TraceTable, ColumnsLayoutLikeTheSeeds) {
  const Trace t = small_trace();
  std::vector<NamedCells> cells(t.size());
  cells[0] = {{"W(x)", "{ [1,0] }"}, {"races", ""}};
  cells[3] = {{"races", "(e1,e4)"}, {"unused", ""}};
  const std::string out = render_trace_table(t, cells);
  EXPECT_EQ(out,
            "    T0        T1      W(x)       races\n"
            "--  --------  ------  ---------  -------\n"
            "e1  w(x)              { [1,0] }\n"
            "e2  fork(T1)\n"
            "e3            acq(y)\n"
            "e4            r(x)               (e1,e4)\n"
            "e5            rel(y)\n");
  EXPECT_EQ(annotation_columns(cells), (std::vector<std::string>{"W(x)", "races"}));
}

TEST(TraceTable, CompactLayoutAndLegend) {
  const Trace t = parse_trace("main|w(x)|L1\nworker|w(x)|L2\n");
  TraceTableOptions options;
  options.layout = TraceLayout::Compact;
  const std::string out = render_trace_table(t, {}, options);
  EXPECT_EQ(out,
            "thread indices (vector clocks, epochs): 0=main 1=worker\n"
            "    thread  event\n"
            "--  ------  -----\n"
            "e1  main    w(x)\n"
            "e2  worker  w(x)\n");
}

TEST(TraceTable, AutoLayoutGoesCompactWhenThreadsDoNotFit) {
  std::string text;
  for (int t = 0; t < 20; ++t) {
    text += 'T';
    text += std::to_string(t);
    text += "|w(x)|L\n";
  }
  const Trace trace = parse_trace(text);
  TraceTableOptions options;
  options.table.width = 80;
  const std::string out = render_trace_table(trace, {}, options);
  EXPECT_EQ(out.rfind("     thread  event\n", 0), 0u) << out;  // labels up to "e20"
}

TEST(TraceTable, Json) {
  const Trace t = small_trace();
  std::vector<NamedCells> cells(t.size());
  cells[3] = {{"races", "(e1,e4)"}};
  const nlohmann::ordered_json doc = trace_table_json(t, cells);
  EXPECT_EQ(doc["threads"], nlohmann::ordered_json::parse(R"(["T0","T1"])"));
  EXPECT_EQ(doc["columns"], nlohmann::ordered_json::parse(R"(["races"])"));
  ASSERT_EQ(doc["events"].size(), 5u);
  EXPECT_EQ(
      doc["events"][3].dump(),
      R"json({"id":4,"thread":"T1","op":"r","target":"x","location":"L4","cells":{"races":"(e1,e4)"}})json");
  EXPECT_EQ(doc["events"][1]["target"], "T1");
  EXPECT_TRUE(doc["events"][0]["cells"].empty());
}

TEST(Notation, SeedSpellings) {
  const Trace t = small_trace();
  EXPECT_EQ(event_text(t.symbols, t.events[1]), "fork(T1)");
  EXPECT_EQ(event_ref_hash(t.symbols, 4, t.events[3]), "1#r(x)_4");
  EXPECT_EQ(event_ref_colon(t.symbols, 4, t.events[3]), "1:r(x)_4");
  EXPECT_EQ(races_text({1, 2}, 4), "(e1,e4) (e2,e4)");
  EXPECT_EQ(races_text({}, 4), "");
}

class PlainEngine final : public Engine {
 public:
  void on_events(std::span<const EventId>, std::span<const Event>) override {}
};

TEST(AnnotateTrace, EngineWithoutAnnotationIsAUsageError) {
  const Trace t = small_trace();
  try {
    annotate_trace([](EngineContext&) { return std::make_unique<PlainEngine>(); }, "plain", t);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'plain' has no annotated view"), std::string::npos) << message;
    EXPECT_NE(message.find("hb-sets"), std::string::npos) << message;
  }
  EXPECT_THROW(annotate_trace("no-such-engine", t), UsageError);
}

TEST(AnnotateTrace, RowsFollowTheTrace) {
  const Trace t = small_trace();
  const AnnotationRun run = annotate_trace("hb", t);
  ASSERT_EQ(run.rows.size(), t.size());
  EXPECT_EQ(run.rows[0][0].column, "VC_pre_post");
  EXPECT_EQ(run.rows[0][0].value, "[1,0]_w(x)_[2,0]");
  EXPECT_EQ(run.rows[1][0].value, "[2,0]_fork(T1)_[3,0]");
  EXPECT_EQ(run.rows[2][0].value, "[2,1]_acq(y)_[2,2]");
  EXPECT_EQ(run.sink.race_count(), 0u);  // the fork orders w(x)_1 before r(x)_4
  const std::vector<std::string> names = annotating_engines();
  for (const char* e : {"hb", "hb-sets", "hb-pairs", "tsan1"})
    EXPECT_NE(std::find(names.begin(), names.end(), e), names.end()) << e;
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
