#include "racepred/recording/naming.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

#include "racepred/format/trace_format.hpp"

namespace racepred::recording {
namespace {

namespace fmt = racepred::format;

// Interns `name`, made unique with "@ADDRESS" (and primes) when another key has it already.
void intern_unique(SymbolTable& table, std::string name, uint64_t addr) {
  const uint32_t want = table.size();
  if (table.intern(name) == want) return;
  name += '@';
  name += hex(addr);
  for (int k = 2; table.intern(name) != want; ++k) name += "'";
}

}  // namespace

std::string heap_name(const std::string& site, uint64_t instance, uint64_t offset) {
  // Appended piece by piece: gcc 12 warns (-Wrestrict, falsely) on "literal" + std::string.
  std::string name = "heap[";
  name.append(site).append("#").append(std::to_string(instance)).append("]");
  if (offset) name.append("+").append(std::to_string(offset));
  return name;
}

Symbols name_trace(Assembled& assembled, Symbolizer& symbolizer) {
  const std::vector<uint64_t>& sites = assembled.addresses.sites();
  const auto& callers = assembled.callers;
  // One symbolisation of every code address: locations, allocation sites, callers.
  std::vector<uint64_t> all_pcs = assembled.pcs;
  const size_t n_locs = assembled.pcs.size();
  all_pcs.insert(all_pcs.end(), sites.begin(), sites.end());
  for (const auto& c : callers) all_pcs.push_back(c.second);
  // Each distinct address once (with call stacks, one address has a location index per stack).
  std::vector<uint64_t> distinct = all_pcs;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const std::vector<std::string> distinct_names = symbolizer.code_names(distinct);
  std::vector<std::string> code(all_pcs.size());
  for (size_t i = 0; i < all_pcs.size(); ++i)
    code[i] = distinct_names[static_cast<size_t>(
        std::lower_bound(distinct.begin(), distinct.end(), all_pcs[i]) - distinct.begin())];
  // A fork or join in a system header's code (std::thread's constructor) is named by its caller
  // (only by a source line: "FILE:LINE (FUNCTION)", not "module+0xOFF").
  for (size_t k = 0; k < callers.size(); ++k) {
    const std::string& caller = code[n_locs + sites.size() + k];
    std::string& name = code[callers[k].first];
    if (name.rfind("/usr/", 0) == 0 && caller.rfind("/usr/", 0) != 0 &&
        caller.find(" (") != std::string::npos)
      name = caller;
  }
  // Threads' stacks by their low address (a later thread reusing a stack takes it over).
  std::map<uint64_t, Assembled::Stack> stacks;
  for (const Assembled::Stack& s : assembled.stacks) stacks[s.low] = s;
  auto stack_of = [&](uint64_t a) -> std::string {
    auto it = stacks.upper_bound(a);
    if (it != stacks.begin() && a < std::prev(it)->second.high)
      return std::string("stack of ").append(assembled.threads.name(std::prev(it)->second.thread)) +
             " ";
    return symbolizer.stack(a) ? "stack of T0 " : "";
  };
  auto key_name = [&](const Key& k) {
    const bool atomic = k.addr & fmt::kAtomicLockBit;
    const uint64_t a = k.addr & ~fmt::kAtomicLockBit;
    std::string name;
    if (k.instance) {
      name = heap_name(code[n_locs + k.instance], k.instance, a);
    } else {
      name = symbolizer.data_name(a);
      if (name.empty()) name = stack_of(a) + hex(a);
    }
    return atomic ? "atomic:" + name : name;
  };

  Symbols symbols;
  symbols.threads = assembled.threads;
  for (const Key& k : assembled.addresses.variables())
    intern_unique(symbols.variables, key_name(k), k.addr);
  for (const Key& k : assembled.addresses.locks())
    intern_unique(symbols.locks, key_name(k), k.addr);
  std::vector<uint32_t> loc_map(n_locs);
  for (size_t i = 0; i < n_locs; ++i) loc_map[i] = symbols.locations.intern(code[i]);
  if (!assembled.caller_nodes.empty()) {
    // Each event's stack: its own location, then its callers' (deduplicated by content).
    Stacks& stacks = symbols.stacks;
    stacks.frames.assign(1, {});
    stacks.of_event.assign(assembled.events.size() + 1, 0);
    std::unordered_map<uint64_t, uint32_t> ids;  // (location id, node) -> stack id
    const std::vector<uint32_t>& nodes = assembled.location_nodes;
    for (size_t i = 0; i < assembled.events.size(); ++i) {
      const uint32_t index = assembled.events[i].location;
      const uint32_t node = index < nodes.size() ? nodes[index] : 0;
      if (node == 0) continue;
      const uint64_t key = (uint64_t{loc_map[index]} << 32) | node;
      auto [it, fresh] = ids.emplace(key, static_cast<uint32_t>(stacks.frames.size()));
      if (fresh) {
        std::vector<uint32_t>& frames = stacks.frames.emplace_back(1, loc_map[index]);
        for (const uint32_t caller : assembled.caller_nodes[node])
          frames.push_back(loc_map[caller]);
      }
      stacks.of_event[i + 1] = it->second;  // event ids are the ordinals from 1 (finish.cpp)
      const Event& e = assembled.events[i];
      if (e.op == Op::Fork) {
        if (e.target >= stacks.created.size()) stacks.created.resize(size_t{e.target} + 1);
        stacks.created[e.target] = {e.thread, it->second};
      }
    }
  }
  for (Event& e : assembled.events) e.location = loc_map[e.location];
  return symbols;
}

}  // namespace racepred::recording
