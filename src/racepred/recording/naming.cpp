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

Symbols name_symbols(const Assembled& assembled, Symbolizer& symbolizer,
                     std::vector<uint32_t>& loc_map) {
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
  // A stack variable is named after its thread and frame: the function of its first access,
  // normally the one that declares it ("stack of T2 (worker) 0x7f…").
  auto frame_of = [&](uint32_t var) -> std::string {
    if (var >= assembled.first_access.size() || assembled.first_access[var] >= n_locs) return "";
    const std::string& where = code[assembled.first_access[var]];
    const size_t open = where.rfind(" (");
    if (open == std::string::npos || !where.ends_with(")")) return "";
    return where.substr(open + 1) + " ";  // "(function) "
  };
  auto stack_of = [&](uint64_t a, uint32_t var) -> std::string {
    auto it = stacks.upper_bound(a);
    if (it != stacks.begin() && a < std::prev(it)->second.high)
      return std::string("stack of ").append(assembled.threads.name(std::prev(it)->second.thread)) +
             " " + frame_of(var);
    return symbolizer.stack(a) ? "stack of T0 " + frame_of(var) : "";
  };
  // var: the variable id, or UINT32_MAX (a lock).
  auto key_name = [&](const Key& k, uint32_t var) {
    const bool atomic = k.addr & fmt::kAtomicLockBit;
    const uint64_t a = k.addr & ~fmt::kAtomicLockBit;
    std::string name;
    if (k.instance) {
      name = heap_name(code[n_locs + k.instance], k.instance, a);
    } else {
      name = symbolizer.data_name(a);
      if (name.empty()) name = stack_of(a, var) + hex(a);
    }
    return atomic ? "atomic:" + name : name;
  };

  Symbols symbols;
  symbols.threads = assembled.threads;
  const std::vector<Key>& variables = assembled.addresses.variables();
  for (uint32_t v = 0; v < variables.size(); ++v)
    intern_unique(symbols.variables, key_name(variables[v], v), variables[v].addr);
  for (const Key& k : assembled.addresses.locks())
    intern_unique(symbols.locks, key_name(k, UINT32_MAX), k.addr);
  loc_map.resize(n_locs);
  for (size_t i = 0; i < n_locs; ++i) loc_map[i] = symbols.locations.intern(code[i]);
  if (!assembled.caller_nodes.empty()) symbols.stacks.frames.assign(1, {});  // id 0: none
  return symbols;
}

StackNumbering::StackNumbering(const Assembled& assembled,
                               const std::vector<uint32_t>& location_ids, Stacks& stacks)
    : assembled_(assembled),
      nodes_(assembled.location_nodes),
      location_ids_(location_ids),
      stacks_(stacks) {
  if (stacks_.frames.empty()) stacks_.frames.emplace_back();  // id 0: no stack
}

uint32_t StackNumbering::lookup(uint32_t index) {
  // Each location index has one stack: looked up in the table once, then by index.
  if (index < of_index_.size() && of_index_[index]) [[likely]] {
    last_index_ = index;
    return last_stack_ = of_index_[index];
  }
  const uint32_t node = nodes_[index];
  const uint64_t key = (uint64_t{location_ids_[index]} << 32) | node;
  auto [it, fresh] = ids_.emplace(key, static_cast<uint32_t>(stacks_.frames.size()));
  if (fresh) {
    std::vector<uint32_t>& frames = stacks_.frames.emplace_back(1, location_ids_[index]);
    for (const uint32_t caller : assembled_.caller_nodes[node])
      frames.push_back(location_ids_[caller]);
  }
  if (index >= of_index_.size()) of_index_.resize(std::max<size_t>(nodes_.size(), index + 1), 0);
  of_index_[index] = it->second;
  last_index_ = index;
  return last_stack_ = it->second;
}

void StackNumbering::created(const Event& e, uint32_t stack) {
  if (e.target >= stacks_.created.size()) stacks_.created.resize(size_t{e.target} + 1);
  stacks_.created[e.target] = {e.thread, stack};
}

Symbols name_trace(Assembled& assembled, Symbolizer& symbolizer) {
  std::vector<uint32_t> loc_map;
  Symbols symbols = name_symbols(assembled, symbolizer, loc_map);
  if (!assembled.caller_nodes.empty()) {
    StackNumbering numbering(assembled, loc_map, symbols.stacks);
    symbols.stacks.of_event.assign(assembled.events.size() + 1, 0);
    for (size_t i = 0; i < assembled.events.size(); ++i)  // event ids: ordinals from 1
      symbols.stacks.of_event[i + 1] = numbering.number(assembled.events[i]);
  }
  for (Event& e : assembled.events) e.location = loc_map[e.location];
  return symbols;
}

}  // namespace racepred::recording
