// Names of a recording's variables, locks and locations (docs/RECORDER.md, "Names"): a global is
// named by its symbol and member path, heap memory by its allocation site and instance
// ("heap[file.c:7:9 (main)#3]+8"), anything else by its hex address ("stack of T2 0x7f…" on a
// thread's stack); the atomic lock of an address is "atomic:NAME". Locations are source lines.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "racepred/recording/assemble.hpp"
#include "racepred/recording/symbolizer.hpp"
#include "racepred/trace/symbols.hpp"

namespace racepred::recording {

// "heap[SITE#INSTANCE]" and "+OFFSET" unless it is 0.
std::string heap_name(const std::string& site, uint64_t instance, uint64_t offset);

// Names the variables and locks of `assembled` one at a time, in id order, as a writer needs
// them: formatted into the caller's buffer, nothing kept per heap name. Heap names are unique by
// construction (an instance is one allocation); any other name (a global, a stack variable, a
// hex address) that another key has already taken gets "@ADDRESS", so only those are kept.
class KeyNamer {
 public:
  // Symbolises every code address of `assembled` once (locations, allocation sites, callers);
  // `symbols` gets the threads and the locations, `location_ids` the location id of each
  // location index (several code addresses may share a source line). `assembled` and
  // `symbolizer` must outlive the namer.
  KeyNamer(const Assembled& assembled, Symbolizer& symbolizer, Symbols& symbols,
           std::vector<uint32_t>& location_ids);
  KeyNamer(const KeyNamer&) = delete;
  KeyNamer& operator=(const KeyNamer&) = delete;

  uint32_t variables() const { return static_cast<uint32_t>(variables_.size()); }
  uint32_t locks() const { return static_cast<uint32_t>(locks_.size()); }
  // Appends the name of variable `v` (of lock `l`) to `out`. Each space must be named in id
  // order, every id once (the uniqueness of the names that are not heap depends on it).
  void variable(uint32_t v, std::string& out) { name(variables_[v], v, variable_others_, out); }
  void lock(uint32_t l, std::string& out) { name(locks_[l], UINT32_MAX, lock_others_, out); }
  // Every name into `symbols`' tables of variables and locks (which hold none yet), in id order
  // (for writers that need the whole tables: STD text, a trace in memory).
  void name_all(Symbols& symbols);

 private:
  // var: the variable id, or UINT32_MAX (a lock).
  void name(const Key& k, uint32_t var, SymbolTable& others, std::string& out);
  void stack_of(uint64_t a, uint32_t var, std::string& out);
  void frame_of(uint32_t var, std::string& out);

  const Assembled& assembled_;
  Symbolizer& symbolizer_;
  const std::vector<Key>& variables_;
  const std::vector<Key>& locks_;
  size_t n_locs_;
  std::vector<std::string> code_;              // per distinct code address
  std::vector<uint32_t> of_index_;             // per location index: its entry of code_
  std::vector<uint32_t> of_site_;              // per instance: the entry of code_ of its site
  std::vector<Assembled::Stack> stacks_;       // threads' stacks by low address, the last one wins
  SymbolTable variable_others_, lock_others_;  // the names given so far that are not heap
  std::string scratch_;
};

// The names of `assembled`'s threads, variables, locks and locations (unique: a repeated name
// gets "@ADDRESS"); `location_ids` gets the location id of each location index (several code
// addresses may share a source line). The stacks are numbered as the events come
// (StackNumbering).
Symbols name_symbols(const Assembled& assembled, Symbolizer& symbolizer,
                     std::vector<uint32_t>& location_ids);

// Numbers the call stacks of events as they come (a stack: the event's own location, then its
// callers', deduplicated by content), appending each new one to `stacks`.
class StackNumbering {
 public:
  // All three must outlive it.
  StackNumbering(const Assembled& assembled, const std::vector<uint32_t>& location_ids,
                 Stacks& stacks);
  // The stack id of `e`, whose location is still a location index (0: none); a fork's stack
  // is where its thread was created.
  uint32_t number(const Event& e) {
    const uint32_t index = e.location;
    if (index >= nodes_.size() || nodes_[index] == 0) return 0;
    const uint32_t stack = index == last_index_ ? last_stack_ : lookup(index);
    if (e.op == Op::Fork) created(e, stack);
    return stack;
  }

 private:
  uint32_t lookup(uint32_t index);
  void created(const Event& e, uint32_t stack);

  const Assembled& assembled_;
  const std::vector<uint32_t>& nodes_;
  const std::vector<uint32_t>& location_ids_;
  Stacks& stacks_;
  std::unordered_map<uint64_t, uint32_t> ids_;  // (location id, node) -> stack id
  std::vector<uint32_t> of_index_;              // per location index: its stack id, or 0
  uint32_t last_index_ = UINT32_MAX, last_stack_ = 0;
};

// name_symbols, then the events' stacks and locations (from location indices to ids).
Symbols name_trace(Assembled& assembled, Symbolizer& symbolizer);

}  // namespace racepred::recording
