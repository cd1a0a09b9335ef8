#include "racepred/recording/naming.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <string_view>
#include <unordered_map>

#include "racepred/format/trace_format.hpp"

namespace racepred::recording {
namespace {

namespace fmt = racepred::format;

void append_decimal(std::string& out, uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_heap_name(std::string& out, std::string_view site, uint64_t instance, uint64_t offset) {
  out.append("heap[").append(site).append("#");
  append_decimal(out, instance);
  out.push_back(']');
  if (offset) {
    out.push_back('+');
    append_decimal(out, offset);
  }
}

}  // namespace

std::string heap_name(const std::string& site, uint64_t instance, uint64_t offset) {
  std::string name;
  append_heap_name(name, site, instance, offset);
  return name;
}

KeyNamer::KeyNamer(const Assembled& assembled, Symbolizer& symbolizer, Symbols& symbols,
                   std::vector<uint32_t>& loc_map)
    : assembled_(assembled),
      symbolizer_(symbolizer),
      variables_(assembled.addresses.variables()),
      locks_(assembled.addresses.locks()),
      n_locs_(assembled.pcs.size()) {
  const std::vector<uint64_t>& sites = assembled.addresses.sites();
  const auto& callers = assembled.callers;
  // One symbolisation of each distinct code address: locations, allocation sites, callers
  // (with call stacks, one address has a location index per stack).
  std::vector<uint64_t> distinct = assembled.pcs;
  distinct.insert(distinct.end(), sites.begin(), sites.end());
  for (const auto& c : callers) distinct.push_back(c.second);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  code_ = symbolizer.code_names(distinct);
  auto entry = [&](uint64_t pc) {
    return static_cast<uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), pc) -
                                 distinct.begin());
  };
  of_index_.resize(n_locs_);
  for (size_t i = 0; i < n_locs_; ++i) of_index_[i] = entry(assembled.pcs[i]);
  of_site_.resize(sites.size());
  for (size_t i = 0; i < sites.size(); ++i) of_site_[i] = entry(sites[i]);
  // A fork or join in a system header's code (std::thread's constructor) is named by its caller
  // (only by a source line: "FILE:LINE (FUNCTION)", not "module+0xOFF").
  for (const auto& [index, caller_pc] : callers) {
    const uint32_t caller = entry(caller_pc);
    const std::string& name = code_[of_index_[index]];
    if (name.rfind("/usr/", 0) == 0 && code_[caller].rfind("/usr/", 0) != 0 &&
        code_[caller].find(" (") != std::string::npos)
      of_index_[index] = caller;
  }
  // Threads' stacks by their low address (a later thread reusing a stack takes it over).
  std::map<uint64_t, Assembled::Stack> stacks;
  for (const Assembled::Stack& s : assembled.stacks) stacks[s.low] = s;
  for (const auto& [low, s] : stacks) stacks_.push_back(s);

  symbols.threads = assembled.threads;
  loc_map.resize(n_locs_);
  for (size_t i = 0; i < n_locs_; ++i) loc_map[i] = symbols.locations.intern(code_[of_index_[i]]);
  if (!assembled.caller_nodes.empty()) symbols.stacks.frames.assign(1, {});  // id 0: none
}

// A stack variable is named after its thread and frame: the function of its first access,
// normally the one that declares it ("stack of T2 (worker) 0x7f…").
void KeyNamer::frame_of(uint32_t var, std::string& out) {
  if (var >= assembled_.first_access.size() || assembled_.first_access[var] >= n_locs_) return;
  const std::string& where = code_[of_index_[assembled_.first_access[var]]];
  const size_t open = where.rfind(" (");
  if (open == std::string::npos || !where.ends_with(")")) return;
  out.append(where, open + 1).push_back(' ');  // "(function) "
}

void KeyNamer::stack_of(uint64_t a, uint32_t var, std::string& out) {
  auto it = std::upper_bound(stacks_.begin(), stacks_.end(), a,
                             [](uint64_t x, const Assembled::Stack& s) { return x < s.low; });
  if (it != stacks_.begin() && a < std::prev(it)->high) {
    out.append("stack of ").append(assembled_.threads.name(std::prev(it)->thread)).push_back(' ');
    frame_of(var, out);
  } else if (symbolizer_.stack(a)) {
    out.append("stack of T0 ");
    frame_of(var, out);
  }
}

void KeyNamer::name(const Key& k, uint32_t var, SymbolTable& others, std::string& out) {
  const bool atomic = k.addr & fmt::kAtomicLockBit;
  const uint64_t a = k.addr & ~fmt::kAtomicLockBit;
  if (k.instance) {  // unique: the instance is one allocation, the offset one place in it
    if (atomic) out.append("atomic:");
    append_heap_name(out, code_[of_site_[k.instance]], k.instance, a);
    return;
  }
  std::string& name = scratch_;
  name.clear();
  if (atomic) name.append("atomic:");
  const size_t bare = name.size();
  name.append(symbolizer_.data_name(a));
  if (name.size() == bare) {
    stack_of(a, var, name);
    name.append(hex(a));
  }
  // Unique: "@ADDRESS" (and primes) when another key has it already. (A name that looks like a
  // heap name never is one: it gets the suffix too, as heap names are not kept.)
  const bool heap_like = std::string_view(name).substr(bare).starts_with("heap[");
  const uint32_t want = others.size();
  if (heap_like || others.intern(name) != want) {
    name += '@';
    name += hex(k.addr);
    while (others.intern(name) != want) name += "'";
  }
  out.append(name);
}

void KeyNamer::name_all(Symbols& symbols) {
  std::string name;
  for (uint32_t v = 0; v < variables(); ++v) {
    name.clear();
    variable(v, name);
    symbols.variables.intern(name);
  }
  for (uint32_t l = 0; l < locks(); ++l) {
    name.clear();
    lock(l, name);
    symbols.locks.intern(name);
  }
}

Symbols name_symbols(const Assembled& assembled, Symbolizer& symbolizer,
                     std::vector<uint32_t>& loc_map) {
  Symbols symbols;
  KeyNamer namer(assembled, symbolizer, symbols, loc_map);
  namer.name_all(symbols);
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
