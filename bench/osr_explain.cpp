// osr_explain TRACE < PAIRS: why each pair (two event ids, "FIRST SECOND" per line, the earlier
// access first) is or is not an OSR race under racepred's osr (docs/ENGINES.md, "osr"). One line
// per pair:
//   FIRST SECOND race|ordered|two-open|cycle  S=<prefix length per thread>  open=<acquire ids>
//   reversed=<release ids with a B edge>  late=<release ids in S after SECOND>  [lock=<name>]
//   [cycle=<acquire ids>]
// `ordered`: FIRST is in S (it is TRF-before SECOND);
// `two-open`: a lock has two open sections (not all read sections); `cycle`: P ∪ B has a cycle
// through the reversed sections listed. Used by bench/osr_focs.sh to explain the pairs
// focs-lab/rapid's OSR reports and racepred's osr does not.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "racepred/engines/osr/osr.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/trace_index.hpp"

int main(int argc, char** argv) {
  using namespace racepred;
  if (argc != 2) {
    std::fprintf(stderr, "usage: osr_explain TRACE < PAIRS\n");
    return 2;
  }
  try {
    const Trace trace = load_checked_trace(argv[1]);
    const TraceIndex index(trace);
    std::unordered_map<EventId, uint32_t> at;
    for (uint32_t i = 0; i < index.size(); ++i) at[index.id(i)] = i;
    osr::Checker checker(index);
    const auto ids = [&](const std::vector<uint32_t>& v) {
      std::string s;
      for (const uint32_t i : v) {
        if (!s.empty()) s += ',';
        s += std::to_string(index.id(i));
      }
      return s.empty() ? std::string("-") : s;
    };
    uint64_t a = 0, b = 0;
    while (std::cin >> a >> b) {
      const auto i = at.find(a), j = at.find(b);
      if (i == at.end() || j == at.end() || i->second >= j->second) {
        std::cout << a << ' ' << b << " bad-pair\n";
        continue;
      }
      const osr::Explanation x = checker.explain(i->second, j->second);
      using V = osr::Explanation::Verdict;
      const char* verdict = x.verdict == V::Race      ? "race"
                            : x.verdict == V::Ordered ? "ordered"
                            : x.verdict == V::TwoOpen ? "two-open"
                                                      : "cycle";
      std::string s;
      for (const uint32_t q : x.closure) {
        if (!s.empty()) s += ',';
        s += std::to_string(q);
      }
      std::cout << a << ' ' << b << ' ' << verdict << " S=" << s << " open=" << ids(x.open)
                << " reversed=" << ids(x.reversed);
      // The releases in S later in the trace than SECOND (closed sections a one-pass analysis
      // has not seen closed when it reaches SECOND).
      std::vector<uint32_t> late;
      for (uint32_t w = 0; w < x.closure.size(); ++w)
        for (uint32_t q = 0; q < x.closure[w]; ++q) {
          const uint32_t k = index.thread_events(w)[q];
          const Op op = index.event(k).op;
          if (k > j->second && (op == Op::Release || op == Op::ReadRelease)) late.push_back(k);
        }
      std::cout << " late=" << ids(late);
      if (x.verdict == V::TwoOpen) std::cout << " lock=" << index.lock_name(x.lock);
      if (x.verdict == V::Cycle) std::cout << " cycle=" << ids(x.cycle);
      std::cout << '\n';
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "osr_explain: %s\n", e.what());
    return 2;
  }
  return 0;
}
