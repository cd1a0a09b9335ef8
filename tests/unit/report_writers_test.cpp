// Text and JSON report writers (docs/CLI.md "JSON report", schema racepred/1).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "racepred/io/reader.hpp"
#include "racepred/report/writers.hpp"

namespace racepred {
namespace {

using nlohmann::json;

// Events: 1 T1 w(x)@A, 2 T2 r(x)@B, 3 T2 w(x)@B, 4 T3 w(y)@C, 5 T1 w(y)@D.
const char* const kTrace = "T1|w(x)|A\nT2|r(x)|B\nT2|w(x)|B\nT3|w(y)|C\n# comment\nT1|w(y)|D\n";

struct Fixture {
  Trace trace = parse_trace(kTrace, {}, "t.std");
  Access at(EventId id) const { return Access::of(id, trace.events[trace.index_of(id)]); }
  Race race(EventId first, EventId second) const {
    return Race{at(first), at(second), trace.events[trace.index_of(second)].target};
  }
  Report report(const std::vector<EngineReport>& results) const {
    Report r;
    r.trace = TraceInfo{"t.std",
                        5,
                        trace.symbols.threads.size(),
                        trace.symbols.variables.size(),
                        trace.symbols.locks.size(),
                        2,
                        ""};
    r.symbols = &trace.symbols;
    r.results = results;
    return r;
  }
};

TEST(JsonReport, FieldsMatchTheSchema) {
  Fixture f;
  RaceSink sink;
  sink.report(f.race(1, 3));
  sink.report(f.race(1, 2));
  // An engine that knows only the later event: first = kNoEvent.
  sink.report(Race{Access{kNoEvent, 0, 0, Op::Read}, f.at(5), f.race(4, 5).variable});
  sink.finalize();
  RaceSink empty;
  empty.finalize();
  const Report report = f.report({{"lockset", &sink, 0.5}, {"other", &empty, 0.0}});

  std::ostringstream out;
  write_json_report(out, report);
  const json j = json::parse(out.str());
  EXPECT_EQ(j["schema"], "racepred/1");
  const json& t = j["trace"];
  EXPECT_EQ(t["path"], "t.std");
  EXPECT_EQ(t["events"], 5);
  EXPECT_EQ(t["threads"], 3);
  EXPECT_EQ(t["variables"], 2);
  EXPECT_EQ(t["locks"], 0);
  EXPECT_EQ(t["skipped_events"], 2);
  ASSERT_EQ(j["results"].size(), 2u);

  const json& r = j["results"][0];
  EXPECT_EQ(r["engine"], "lockset");
  ASSERT_EQ(r["races"].size(), 3u);
  // Sorted by (first, second), with null first first.
  const json& unknown = r["races"][0];
  EXPECT_TRUE(unknown["first"].is_null());
  EXPECT_EQ(unknown["second"], 5);
  EXPECT_EQ(unknown["variable"], "y");
  EXPECT_TRUE(unknown["kind"].is_null());
  EXPECT_TRUE(unknown["first_thread"].is_null());
  EXPECT_EQ(unknown["second_thread"], "T1");
  EXPECT_TRUE(unknown["first_location"].is_null());
  EXPECT_EQ(unknown["second_location"], "D");
  const json& wr = r["races"][1];
  EXPECT_EQ(wr["first"], 1);
  EXPECT_EQ(wr["second"], 2);
  EXPECT_EQ(wr["variable"], "x");
  EXPECT_EQ(wr["kind"], "write-read");
  EXPECT_EQ(wr["first_thread"], "T1");
  EXPECT_EQ(wr["second_thread"], "T2");
  EXPECT_EQ(wr["first_location"], "A");
  EXPECT_EQ(wr["second_location"], "B");
  EXPECT_EQ(r["races"][2]["kind"], "write-write");
  EXPECT_EQ(r["race_count"], 3);
  EXPECT_EQ(r["racy_events"], json::array({2, 3, 5}));
  EXPECT_EQ(r["racy_event_count"], 3);
  EXPECT_EQ(r["racy_locations"], json::array({"B", "D"}));
  EXPECT_EQ(r["truncated"], false);
  EXPECT_DOUBLE_EQ(r["seconds"].get<double>(), 0.5);

  const json& e = j["results"][1];
  EXPECT_EQ(e["engine"], "other");
  EXPECT_TRUE(e["races"].is_array() && e["races"].empty());
  EXPECT_EQ(e["race_count"], 0);
  EXPECT_TRUE(e["racy_events"].is_array() && e["racy_events"].empty());
  EXPECT_TRUE(e["racy_locations"].is_array() && e["racy_locations"].empty());

  // Keys in their documented order (docs/CLI.md).
  std::vector<std::string> keys;
  const nlohmann::ordered_json ordered = json_report(report);
  for (const auto& item : ordered["results"][0].items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"engine", "races", "race_count", "racy_events",
                                      "racy_event_count", "racy_locations", "racy_location_count",
                                      "truncated", "first_detected", "seconds"}));
}

TEST(JsonReport, ReadWriteKindAndTruncation) {
  Fixture f;
  RaceSink sink(1);
  sink.report(f.race(2, 3));  // read then write: same thread, but the writer does not care
  sink.report(f.race(1, 3));
  sink.add_uncounted_races(4);
  sink.finalize();
  const json j = json_report(f.report({{"e", &sink, 0}}));
  const json& r = j["results"][0];
  ASSERT_EQ(r["races"].size(), 1u);
  EXPECT_EQ(r["races"][0]["first"], 1);
  EXPECT_EQ(r["race_count"], 6);
  EXPECT_EQ(r["truncated"], true);
  RaceSink rw;
  rw.report(f.race(2, 3));
  rw.finalize();
  EXPECT_EQ(json_report(f.report({{"e", &rw, 0}}))["results"][0]["races"][0]["kind"], "read-write");
}

TEST(JsonReport, InvalidUtf8NamesDoNotFail) {
  const Trace trace = parse_trace("T\xff|w(x)|L\xfe\nT2|w(x)|L\n");
  RaceSink sink;
  sink.report(Race{Access::of(1, trace.events[0]), Access::of(2, trace.events[1]), 0});
  sink.finalize();
  Report report;
  report.symbols = &trace.symbols;
  report.results = {{"e", &sink, 0}};
  std::ostringstream out;
  write_json_report(out, report);
  EXPECT_NO_THROW(json::parse(out.str()));
}

TEST(TextReport, BlocksPerLocationPairAndSummary) {
  Fixture f;
  RaceSink sink;
  sink.report(f.race(1, 2));  // A → B
  sink.report(f.race(1, 3));  // A → B again
  sink.report(f.race(4, 5));  // C → D
  sink.finalize();
  const Report report = f.report({{"lockset", &sink, 0.25}});
  std::ostringstream out;
  write_text_report(out, report);
  const std::string text = out.str();
  EXPECT_EQ(text,
            "==================\n"
            "WARNING: data race (engine lockset)\n"
            "  Read of x by thread T2 at B (event 2)\n"
            "  Previous write of x by thread T1 at A (event 1)\n"
            "  2 races at this pair of locations (A, B); the first detected is shown\n"
            "  This is the first race lockset detected (by the later event); lockset does not "
            "claim that it is real\n"
            "==================\n"
            "WARNING: data race (engine lockset)\n"
            "  Write of y by thread T1 at D (event 5)\n"
            "  Previous write of y by thread T3 at C (event 4)\n"
            "  1 race at this pair of locations (C, D)\n"
            "==================\n"
            "SUMMARY: racepred: 3 races (3 racy events, 2 racy locations) with engine lockset "
            "in t.std (5 events, 0.250 s)\n");
}

// An engine whose guarantee says its first race is real points at it.
TEST(TextReport, FirstRaceClaimIsNamedForEnginesThatMakeIt) {
  Fixture f;
  RaceSink sink;
  sink.report(f.race(1, 2));
  sink.finalize();
  std::ostringstream out;
  write_text_report(out, f.report({{"fasttrack", &sink, 0, {}, true}}));
  EXPECT_NE(out.str().find("  This is the first race fasttrack detected (by the later event): "
                           "the one its guarantee is about\n"),
            std::string::npos)
      << out.str();
}

TEST(TextReport, NoRacesUnknownFirstAndTruncation) {
  Fixture f;
  RaceSink none;
  none.finalize();
  RaceSink partial(1);
  partial.report(Race{Access{kNoEvent, 0, 0, Op::Read}, f.at(3), 0});
  partial.report(Race{Access{kNoEvent, 0, 0, Op::Read}, f.at(5), 1});
  partial.finalize();
  const Report report = f.report({{"hb", &none, 0}, {"djit", &partial, 0}});
  std::ostringstream out;
  write_text_report(out, report);
  const std::string text = out.str();
  EXPECT_NE(text.find("WARNING: data race (engine djit)\n"
                      "  Write of x by thread T2 at B (event 3)\n"
                      "  Previous access: not known (engine djit reports the later access of "
                      "each race)\n"
                      "  1 race listed at location B\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("note: engine djit lists the first 1 of 2 races (--max-races 1); the "
                      "SUMMARY counts all races\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SUMMARY: racepred: 0 races (0 racy events, 0 racy locations) with engine "
                      "hb in t.std (5 events, 0.000 s)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SUMMARY: racepred: 2 races (2 racy events, 2 racy locations) with engine "
                      "djit"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("engine hb)"), std::string::npos) << "no block for an engine without races";
}

TEST(TextReport, OneSeparatorBetweenBlocksOfSeveralEngines) {
  Fixture f;
  RaceSink a;
  a.report(f.race(1, 2));
  a.finalize();
  RaceSink b;
  b.report(f.race(4, 5));
  b.finalize();
  std::ostringstream out;
  write_text_report(out, f.report({{"one", &a, 0}, {"two", &b, 0}}));
  const std::string text = out.str();
  const std::string separator = "==================\n";
  EXPECT_EQ(text.find(separator + separator), std::string::npos) << text;
  EXPECT_EQ(text.rfind(separator, 0), 0u) << text;
  size_t separators = 0;
  for (size_t pos = text.find(separator); pos != std::string::npos;
       pos = text.find(separator, pos + 1))
    ++separators;
  EXPECT_EQ(separators, 3u) << text;
  EXPECT_LT(text.find("(engine one)"), text.find("(engine two)"));
  EXPECT_LT(text.find("SUMMARY: racepred: 1 race (1 racy event, 1 racy location) with engine one"),
            text.find("SUMMARY: racepred: 1 race (1 racy event, 1 racy location) with engine two"));
}

}  // namespace
}  // namespace racepred
