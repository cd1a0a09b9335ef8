// racepred convert: a trace from one format into another (docs/FORMATS.md, docs/CLI.md).
#include <unistd.h>

#include <iostream>
#include <memory>

#include "racepred/cli/cli.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/io/reader.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::cli {
namespace {

struct ConvertOptions {
  std::string input_format = "auto";
  std::string to;
  std::string output = "-";
  bool allow_loss = false;
  bool lenient = false;
  std::string trace;
};

// Skipped ops that are not merely the other half of a fork or join (SpeedyGo's signal/wait
// pairs): what reading dropped from the input.
uint64_t dropped_ops(const ReadSummary& summary, std::string& list) {
  uint64_t n = 0;
  for (const auto& [op, count] : summary.skipped_ops) {
    if (op.ends_with("(fork)") || op.ends_with("(join)")) continue;
    n += count;
    list += (list.empty() ? "" : ", ") + op + " " + std::to_string(count);
  }
  return n;
}

int convert(const ConvertOptions& o) {
  ReadOptions read;
  read.format = *parse_input_format(o.input_format);
  read.lenient = o.lenient;
  const TraceFormat& to = *find_format(o.to);
  if (to.binary && (o.output.empty() || o.output == "-") && isatty(STDOUT_FILENO))
    throw UsageError("refusing to write the binary format " + std::string(to.name) +
                     " to a terminal: give an output file with -o");
  OutputFile output(o.output, {o.trace});  // -o: the rules of every report's -o
  const Trace trace = load_trace(o.trace, read);
  std::string list;
  if (const uint64_t dropped = dropped_ops(trace.summary, list); dropped > 0 && !o.allow_loss)
    throw UsageError("converting would lose " + std::to_string(dropped) +
                     " operations that racepred reads but does not model (" + list +
                     "); pass --allow-loss to convert without them");
  WriteOptions write;
  write.allow_loss = o.allow_loss;
  write_trace(trace, to.id, output.path(), write);
  output.commit();
  if (to.id == InputFormat::SpeedyGo) {
    uint64_t pairs = 0;  // SpeedyGo writes a fork or join as two lines (SIG/WT and the joins')
    for (const Event& e : trace.events) pairs += e.op == Op::Fork || e.op == Op::Join;
    if (pairs > 0)
      std::cerr << "racepred: note: event ids change: SpeedyGo has no fork or join, each of the "
                << pairs << " forks and joins is written as two lines (a signal and its wait), "
                << "so a report on the converted trace numbers the events after the first of "
                   "them differently (locations and races are the same)\n";
  }
  if (trace.summary.malformed > 0)
    std::cerr << "racepred: warning: " << trace.summary.malformed
              << " malformed lines skipped (--lenient)\n";
  return kExitNoRace;
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("convert", "Convert a trace into another trace format");
  sub->description(
      "Convert a trace into another trace format (formats: docs/FORMATS.md). The input format\n"
      "is recognised by its content (or given with --input-format), compressed input (.gz,\n"
      ".zst, .xz) is read directly. A conversion that would lose information (names the\n"
      "target format cannot hold, locations it has no place for, operations racepred skips)\n"
      "stops with a list of what would be lost, unless --allow-loss.\n"
      "Exit code: 0, or 2 on an input or usage error.\n"
      "Examples:\n"
      "  racepred convert --to rapidbin -o trace.bin trace.std\n"
      "  racepred convert --to std trace.rr.gz > trace.std");
  auto o = std::make_shared<ConvertOptions>();
  sub->add_option("--to", o->to, "Output format")
      ->required()
      ->check(CLI::IsMember(output_format_names()));
  sub->add_option("-o,--output", o->output, "Output file ('-': standard output)")
      ->capture_default_str();
  add_input_format_option(sub, o->input_format);
  sub->add_flag("--allow-loss", o->allow_loss,
                "Convert even when the output format cannot hold everything (names numbered "
                "anew, locations or skipped operations dropped)");
  add_lenient_option(sub, o->lenient, "Skip malformed input lines (counted) instead of failing");
  add_trace_argument(sub, o->trace);
  return {sub, [o](std::ostream&) { return convert(*o); }};
}

}  // namespace racepred::cli
