// Reader entry points: picks the format, the input method (mmap or chunks) and the parser.
#include "racepred/io/reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "racepred/io/input.hpp"
#include "racepred/io/speedygo_parser.hpp"
#include "racepred/io/std_parser.hpp"

namespace racepred {
namespace {

std::string display_name(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

// Reserves room for the events of `bytes` of trace text (lines have 12 bytes or more, mostly),
// so that loading a big trace does not copy and re-fault its vectors while they grow. Unused
// reserved memory is never touched. Capped so that huge inputs do not ask for absurd amounts.
void reserve_for(Trace& trace, uint64_t bytes) {
  const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes / 12 + 16, uint64_t{1} << 26));
  trace.events.reserve(n);
  trace.ids.reserve(n);
  trace.lines.reserve(n);
}

uint64_t size_of(const std::string& path) {
  struct stat st;
  if (path == "-" || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  return static_cast<uint64_t>(st.st_size);
}

// Size of the windows a mapped STD file is parsed in: each window is prefetched before it is
// parsed and dropped from memory after, so the reader's memory does not grow with the file.
constexpr size_t kWindow = size_t{16} << 20;

ReadSummary parse_whole_text(std::string_view text, std::string_view name, InputFormat format,
                             const ReadOptions& options, Symbols& symbols, EventConsumer& consumer,
                             const char* readable_end, bool mapped = false) {
  ReadSummary summary;
  if (format == InputFormat::Auto) format = *detect_input_format(text);
  summary.format = input_format_name(format);
  if (format == InputFormat::SpeedyGo) {
    io::parse_speedygo(text, name, options, symbols, consumer, summary);
    return summary;
  }
  io::StdParser parser(name, options, symbols, consumer, summary);
  const void* last = text.empty() ? nullptr : memrchr(text.data(), '\n', text.size());
  if (last && static_cast<const char*>(last) + 1 == text.data() + text.size()) {
    const char* begin = text.data();
    const char* const end = text.data() + text.size();
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    while (begin < end) {
      const char* stop = end;
      if (mapped && static_cast<size_t>(end - begin) > kWindow) {
        // End the window after the last full line in it (a longer line extends it).
        const void* nl = memrchr(begin, '\n', kWindow);
        stop =
            nl ? static_cast<const char*>(nl) + 1
               : static_cast<const char*>(memchr(begin + kWindow, '\n', end - begin - kWindow)) + 1;
        const char* next_end = std::min(end, stop + kWindow);
        const uintptr_t pf = reinterpret_cast<uintptr_t>(stop) & ~(page - 1);
        madvise(reinterpret_cast<void*>(pf), reinterpret_cast<uintptr_t>(next_end) - pf,
                MADV_WILLNEED);
      }
      parser.parse_block(begin, stop, stop == end ? readable_end : end);
      if (mapped) {  // the parsed pages are not read again
        const uintptr_t from = reinterpret_cast<uintptr_t>(text.data());
        const uintptr_t to = reinterpret_cast<uintptr_t>(stop) & ~(page - 1);
        if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
      }
      begin = stop;
    }
  } else {
    parser.parse_text(text);
  }
  parser.finish();
  return summary;
}

}  // namespace

std::string_view input_format_name(InputFormat format) {
  switch (format) {
    case InputFormat::Auto:
      return "auto";
    case InputFormat::Std:
      return "std";
    case InputFormat::SpeedyGo:
      return "speedygo";
  }
  return "?";
}

std::vector<std::string> input_format_names() {
  return {"auto", "std", "speedygo"};
}

std::optional<InputFormat> parse_input_format(std::string_view name) {
  if (name == "auto") return InputFormat::Auto;
  if (name == "std") return InputFormat::Std;
  if (name == "speedygo") return InputFormat::SpeedyGo;
  return std::nullopt;
}

std::optional<InputFormat> detect_input_format(std::string_view text, bool complete) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // BOM
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      if (!complete) return std::nullopt;
      end = text.size();
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#' ||
        line.find_first_not_of(" \t") == std::string_view::npos)
      continue;
    if (line.find('|') != std::string_view::npos) return InputFormat::Std;
    if (line.front() >= '0' && line.front() <= '9' && line.find(',') != std::string_view::npos)
      return InputFormat::SpeedyGo;
    return InputFormat::Std;
  }
  if (!complete) return std::nullopt;
  return InputFormat::Std;  // no event line at all: an empty trace either way
}

ReadSummary read_events_from_string(std::string_view text, std::string_view name,
                                    const ReadOptions& options, Symbols& symbols,
                                    EventConsumer& consumer) {
  return parse_whole_text(text, name, options.format, options, symbols, consumer,
                          text.data() + text.size());
}

ReadSummary read_events(const std::string& path, const ReadOptions& options, Symbols& symbols,
                        EventConsumer& consumer) {
  const std::string name = display_name(path);
  // Standard input, a pipe, or a file that cannot be mapped: streamed.
  int fd = STDIN_FILENO;
  io::MappedFile file;
  if (path != "-") {
    if (file.open(path, &fd)) {
      const auto truncated = [&] {
        return InputError(name + ": error: the file was truncated while it was read (" +
                          std::to_string(file.text().size()) +
                          " bytes when opened); no result for a file that changes under the "
                          "reader");
      };
      ReadSummary summary;
      try {
        summary = parse_whole_text(file.text(), name, options.format, options, symbols, consumer,
                                   file.readable_end(), /*mapped=*/true);
      } catch (const InputError&) {
        if (file.truncated())
          throw truncated();  // from the blank lines read instead of the lost pages
        throw;
      }
      if (file.truncated()) throw truncated();
      return summary;
    }
  }
  struct FdCloser {
    int fd;
    ~FdCloser() {
      if (fd != STDIN_FILENO && fd >= 0) ::close(fd);
    }
  } closer{fd};
  io::ChunkReader reader(fd, name);
  InputFormat format = options.format;
  for (size_t want = 64 * 1024; format == InputFormat::Auto; want *= 2) {
    if (want > 2 * kMaxLineBytes) {  // no end of the first event line in sight: STD decides
      format = InputFormat::Std;
      break;
    }
    const std::string_view start = reader.peek(want);
    const bool complete = start.size() < want;  // peek stops short only at the end of input
    if (auto detected = detect_input_format(start, complete)) format = *detected;
  }
  const auto too_long = [&](uint64_t line) {
    return InputError(name + ":" + std::to_string(line) +
                      ":1: error: line longer than the limit of " + std::to_string(kMaxLineBytes) +
                      " bytes");
  };
  if (format == InputFormat::SpeedyGo) {
    std::string text;
    try {
      text = reader.read_all();
    } catch (const io::LineTooLong&) {
      throw InputError(name + ": error: a line longer than the limit of " +
                       std::to_string(kMaxLineBytes) + " bytes");
    }
    return parse_whole_text(text, name, format, options, symbols, consumer,
                            text.data() + text.size());
  }
  ReadSummary summary;
  summary.format = input_format_name(InputFormat::Std);
  io::StdParser parser(name, options, symbols, consumer, summary);
  try {
    for (std::string_view block = reader.next(); !block.empty(); block = reader.next())
      parser.parse_block(block.data(), block.data() + block.size(),
                         block.data() + block.size() + io::kReadPadding);
  } catch (const io::LineTooLong&) {
    throw too_long(parser.lines() + 1);
  }
  parser.finish();
  return summary;
}

Trace load_trace(const std::string& path, const ReadOptions& options) {
  Trace trace;
  reserve_for(trace, size_of(path));
  TraceCollector collector(trace);
  trace.summary = read_events(path, options, trace.symbols, collector);
  return trace;
}

Trace parse_trace(std::string_view text, const ReadOptions& options, std::string_view name) {
  Trace trace;
  reserve_for(trace, text.size());
  TraceCollector collector(trace);
  trace.summary = read_events_from_string(text, name, options, trace.symbols, collector);
  return trace;
}

Trace load_checked_trace(const std::string& path, const ReadOptions& options, ValidationMode mode,
                         ValidationReport* report) {
  Trace trace;
  reserve_for(trace, size_of(path));
  TraceCollector collector(trace);
  Validator validator(trace.symbols, ValidationOptions{mode, display_name(path)}, collector);
  trace.summary = read_events(path, options, trace.symbols, validator);
  validator.on_end();
  if (report) *report = validator.report();
  return trace;
}

Trace parse_checked_trace(std::string_view text, const ReadOptions& options, ValidationMode mode,
                          ValidationReport* report, std::string_view name) {
  Trace trace;
  reserve_for(trace, text.size());
  TraceCollector collector(trace);
  Validator validator(trace.symbols, ValidationOptions{mode, std::string(name)}, collector);
  trace.summary = read_events_from_string(text, name, options, trace.symbols, validator);
  validator.on_end();
  if (report) *report = validator.report();
  return trace;
}

}  // namespace racepred
