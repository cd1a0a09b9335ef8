// libFuzzer target: `racepred check-witness` on a trace and a witness file. An input is a trace
// (STD text), a line "%%", and a witness file; without "%%" the whole input is the witness file
// of a fixed trace. Every input ends in verdicts or an InputError naming its file; a witness
// judged valid (its cut expanded) has distinct events of the trace that end with its race
// (adjacent) or leave both racing events out (enabled).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "racepred/witness/checker.hpp"
#include "racepred/witness/witness.hpp"

namespace {

constexpr const char* kTrace =
    "T0|fork(T1)|L1\nT1|acq(m)|L2\nT1|r(y)|L3\nT1|rel(m)|L4\nT0|w(x)|L5\nT0|acq(m)|L6\n"
    "T0|w(y)|L7\nT0|rel(m)|L8\nT1|w(x)|L9\nT0|join(T1)|L10\nT0|r(x)|L11\n"
    "T2|racq(m)|L12\nT2|r(x)|L13\nT2|rrel(m)|L14\n";

void check_error(const racepred::InputError& e) {
  const std::string_view what = e.what();
  if (!what.starts_with("fuzz.json") && !what.starts_with("fuzz.std")) {
    std::fprintf(stderr, "input error without its file: %s\n", e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace racepred;
  if (size > 8192) return 0;
  const std::string_view input = fuzz::as_text(data, size);
  const size_t cut = input.find("\n%%\n");
  const std::string_view trace_text = cut == std::string_view::npos ? kTrace : input.substr(0, cut);
  const std::string_view witness_text =
      cut == std::string_view::npos ? input : input.substr(cut + 4);
  Trace trace;
  try {
    trace = parse_checked_trace(trace_text, {}, ValidationMode::Strict, nullptr, fuzz::kName);
  } catch (const InputError& e) {
    check_error(e);
    return 0;
  }
  witness::WitnessFile file;
  try {
    file = witness::parse_witness_file(witness_text, "fuzz.json", trace.size());
  } catch (const InputError& e) {
    check_error(e);
    return 0;
  }
  witness::Checker checker(trace);
  for (const witness::Witness& w : file.witnesses) {
    if (w.prefix.size() > trace.size()) std::abort();  // refused by the parser
    const witness::Verdict v = checker.check(w);
    if (!v.valid()) {
      if (v.message.empty()) std::abort();
      continue;
    }
    // T': the cut's events (each thread up to the event the cut names) in trace order, then
    // the listed prefix.
    std::vector<EventId> listed;
    std::set<ThreadId> cut_threads;
    for (const EventId id : w.cut) {
      const size_t i = trace.index_of(id);
      if (i == SIZE_MAX || !cut_threads.insert(trace.events[i].thread).second) std::abort();
    }
    for (size_t i = 0; i < trace.size(); ++i)
      for (const EventId id : w.cut) {
        const size_t last = trace.index_of(id);
        if (trace.events[last].thread == trace.events[i].thread && i <= last)
          listed.push_back(trace.ids[i]);
      }
    listed.insert(listed.end(), w.prefix.begin(), w.prefix.end());
    if (checker.events(w) != listed.size()) std::abort();
    std::set<EventId> seen;
    for (const EventId id : listed)
      if (trace.index_of(id) == SIZE_MAX || !seen.insert(id).second) std::abort();
    const size_t n = listed.size();
    if (w.notion == witness::Notion::Adjacent &&
        (n < 2 || listed[n - 2] != w.first || listed[n - 1] != w.second))
      std::abort();
    if (w.notion == witness::Notion::Enabled && (seen.count(w.first) || seen.count(w.second)))
      std::abort();
  }
  return 0;
}
