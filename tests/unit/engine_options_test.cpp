// The engines' settings table (engines/options.def): one declaration per setting, which the
// command line, its help and the docs follow.
#include <gtest/gtest.h>

#include <cctype>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

#include "racepred/driver/registry.hpp"
#include "racepred/engines/options.hpp"
#include "support/cli_run.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

using testing::run_racepred;

std::string read_doc(const std::string& name) {
  std::ifstream in(std::string(RACEPRED_EXAMPLES_DIR) + "/../docs/" + name);
  EXPECT_TRUE(in) << name;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// 2000000 → "2,000,000", as the docs write numbers.
std::string with_commas(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

TEST(EngineOptions, StructDefaultsAreTheTableDefaults) {
  const EngineOptions defaults;
  size_t rows = 0;
  for (const EngineOptionInfo& row : kEngineOptions) {
    ++rows;
    EXPECT_EQ(row.get(defaults), row.default_value) << row.id;
    EXPECT_LE(row.min, row.default_value) << row.id;
    EXPECT_LE(row.default_value, row.max) << row.id;
    EXPECT_EQ(row.flag.empty(), row.group == EngineOptionGroup::Internal) << row.id;
    EXPECT_FALSE(row.help.empty()) << row.id;
    // The engines a row names exist.
    std::stringstream names{std::string(row.engines)};
    for (std::string name; std::getline(names >> std::ws, name, ',');)
      EXPECT_NE(find_engine(name), nullptr) << row.id << ": " << name;
    // set() writes the field get() reads, and no other.
    EngineOptions changed;
    row.set(changed, row.min);
    EXPECT_EQ(row.get(changed), row.min) << row.id;
    for (const EngineOptionInfo& other : kEngineOptions) {
      if (other.id != row.id) {
        EXPECT_EQ(other.get(changed), other.default_value) << other.id;
      }
    }
  }
  EXPECT_EQ(rows, 16u);
  EXPECT_EQ(find_engine_option("--pwr-history")->id, "pwr_history");
  EXPECT_EQ(find_engine_option("max_states")->flag, "--max-states");
  EXPECT_EQ(find_engine_option("--nonsense"), nullptr);
}

// The help texts print the table's defaults: `racepred analyze --help` says what the table says.
TEST(EngineOptions, HelpPrintsTheTableDefaults) {
  const EngineOptionInfo& history = *find_engine_option("pwr_history");
  EXPECT_NE(engine_option_help(history).find("(default " + std::to_string(history.default_value) +
                                             ", the PWR paper's"),
            std::string::npos)
      << engine_option_help(history);
  for (const EngineOptionInfo& row : kEngineOptions)
    EXPECT_EQ(engine_option_help(row).find("{default}"), std::string::npos) << row.id;

  const testing::CliResult analyze = run_racepred("analyze --help");
  const testing::CliResult compare = run_racepred("compare --help");
  const testing::CliResult exact = run_racepred("exact --help");
  ASSERT_EQ(analyze.code, 0) << analyze.err;
  for (const EngineOptionInfo& row : kEngineOptions) {
    if (row.group == EngineOptionGroup::Internal) {
      EXPECT_EQ(analyze.out.find(std::string(row.id)), std::string::npos) << row.id;
      continue;
    }
    // CLI11 may wrap long lines: compare without runs of whitespace.
    const auto squeeze = [](const std::string& s) {
      std::string out;
      for (char c : s) {
        const bool blank = std::isspace(static_cast<unsigned char>(c)) != 0;
        if (!blank)
          out += c;
        else if (out.empty() || out.back() != ' ')
          out += ' ';
      }
      return out;
    };
    const std::string help = squeeze(engine_option_help(row));
    EXPECT_NE(squeeze(analyze.out).find(help), std::string::npos) << row.id << "\n" << analyze.out;
    const bool bounds = row.group == EngineOptionGroup::Bounds;
    EXPECT_EQ(squeeze(compare.out).find(help) != std::string::npos, bounds) << row.id;
    EXPECT_EQ(squeeze(exact.out).find(help) != std::string::npos, !bounds) << row.id;
  }
}

// `line` names `flag` as a whole word (not a prefix of a longer option).
bool names_flag(const std::string& line, const std::string& flag) {
  for (size_t at = line.find(flag); at != std::string::npos; at = line.find(flag, at + 1)) {
    const size_t end = at + flag.size();
    if (end == line.size() ||
        !(std::islower(static_cast<unsigned char>(line[end])) || line[end] == '-'))
      return true;
  }
  return false;
}

// `line` states `number` as a whole number (no digit or comma group before or after it).
// Hand-written, not std::regex: GCC 12's -O1 sanitizer build warns inside <regex>.
bool states_number(const std::string& line, const std::string& number) {
  const auto digit = [&](size_t i) {
    return i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) != 0;
  };
  for (size_t at = line.find(number); at != std::string::npos; at = line.find(number, at + 1)) {
    const size_t end = at + number.size();
    const bool before_ok = at == 0 || !(digit(at - 1) || line[at - 1] == ',');
    const bool after_ok = !digit(end) && !(end < line.size() && line[end] == ',' && digit(end + 1));
    if (before_ok && after_ok) return true;
  }
  return false;
}

// Every line of the user docs that names an option and a default states the table's default
// (as the docs write it: 2,000,000).
TEST(EngineOptions, DocsStateTheTableDefaults) {
  size_t checked = 0;
  for (const char* doc : {"CLI.md", "ENGINES.md", "GROUND_TRUTH.md"}) {
    std::stringstream text(read_doc(doc));
    for (std::string line; std::getline(text, line);) {
      if (line.find("default") == std::string::npos) continue;
      for (const EngineOptionInfo& row : kEngineOptions) {
        if (row.flag.empty() || !names_flag(line, std::string(row.flag))) continue;
        EXPECT_TRUE(states_number(line, with_commas(row.default_value)))
            << doc << ": a line about " << row.flag << " does not state its default "
            << with_commas(row.default_value) << ":\n"
            << line;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 6u);  // CLI.md's option tables and the exact and PWR sections
}

// 0 keeps a Budget row's default where the range allows it (--max-states 0), and is refused
// where the range does not (--pwr-history 0), with the range in the message.
TEST(EngineOptions, CommandLineRangesFollowTheTable) {
  const std::string trace = std::string(RACEPRED_EXAMPLES_DIR) + "/pwr/exG_3.std";
  const testing::CliResult zero =
      run_racepred("analyze -e exact --max-states 0 --max-memory 0 '" + trace + "'");
  EXPECT_EQ(zero.code, 1) << zero.err;  // the default budget: the races are found
  const testing::CliResult low = run_racepred("analyze -e pwr --pwr-history 0 '" + trace + "'");
  EXPECT_EQ(low.code, 2);
  EXPECT_NE(low.err.find("is not a whole number from 1 to 4294967295"), std::string::npos)
      << low.err;
  const testing::CliResult high = run_racepred("exact --max-memory 1099511627777 '" + trace + "'");
  EXPECT_EQ(high.code, 2);
  EXPECT_NE(high.err.find("from 0 to 1099511627776"), std::string::npos) << high.err;
}

// --m2-work: a check stopped at the bound is not reported and the text report says how many
// stopped and how to check them fully; 0 is no bound (a Bounds row takes 0 as given, unlike the
// Budget rows above). On m2_not_osr.std the one race is M2's own (osr's check rejects it), so a
// bound of 1 stops its closure.
TEST(EngineOptions, M2WorkBoundIsReportedAndZeroLiftsIt) {
  const std::string trace = std::string(RACEPRED_EXAMPLES_DIR) + "/m2/m2_not_osr.std";
  const testing::CliResult bounded = run_racepred("analyze -e m2 --m2-work 1 '" + trace + "'");
  EXPECT_EQ(bounded.code, 0) << bounded.out << bounded.err;  // the race is not reported
  EXPECT_NE(bounded.out.find("note: engine m2: 1 check stopped at its work bound (--m2-work 1); "
                             "this pair may be a race: --m2-work 0 checks it fully"),
            std::string::npos)
      << bounded.out;
  const testing::CliResult json =
      run_racepred("analyze -e m2 --m2-work 1 --format json '" + trace + "'");
  EXPECT_NE(json.out.find("\"stopped_checks\": 1"), std::string::npos) << json.out;
  for (const char* work : {"0", "262144"}) {
    const testing::CliResult full =
        run_racepred(std::string("analyze -e m2 --m2-work ") + work + " '" + trace + "'");
    EXPECT_EQ(full.code, 1) << work << full.out << full.err;  // the race (3,8)
    EXPECT_EQ(full.out.find("stopped"), std::string::npos) << work << full.out;
  }
  // compare takes the option too: exit 1 when a race is reported.
  EXPECT_EQ(run_racepred("compare -e m2 --m2-work 0 '" + trace + "'").code, 1);
  EXPECT_EQ(run_racepred("compare -e m2 --m2-work 1 '" + trace + "'").code, 0);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
