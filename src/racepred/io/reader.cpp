// Reader entry points: picks the format, the input method (mmap or chunks) and the parser.
#include "racepred/io/reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "racepred/io/format_impl.hpp"
#include "racepred/io/formats.hpp"
#include "racepred/io/input.hpp"
#include "racepred/io/source.hpp"
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

// `guessed`: the format was recognised from the content, not named by --input-format nor taken
// from an STD line with '|'; a reading error then says so and how to choose another.
ReadSummary dispatch(io::Input& in, std::string_view name, InputFormat format,
                     const ReadOptions& options, Symbols& symbols, EventConsumer& consumer,
                     bool guessed) {
  const TraceFormat& f = format_of(format);
  ReadSummary summary;
  summary.format = std::string(f.name);
  if (!guessed) {
    f.read(in, name, options, symbols, consumer, summary);
    return summary;
  }
  try {
    f.read(in, name, options, symbols, consumer, summary);
  } catch (const WellFormednessError&) {  // about the events, not about how they were read
    throw;
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (the input was read as " + std::string(f.name) +
                     ", recognised from its content; --input-format FORMAT reads it as another "
                     "format)");
  }
  return summary;
}

// A UTF-8 byte-order mark at the start is not part of the trace.
std::string_view skip_bom(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

// A stream (pipe, standard input, decompressor): the format is judged on its first bytes.
ReadSummary read_stream(io::ByteSource& source, std::string_view name, const ReadOptions& options,
                        Symbols& symbols, EventConsumer& consumer) {
  io::ChunkReader reader(source, std::string(name));
  InputFormat format = options.format;
  bool guessed = false;
  for (size_t want = 64 * 1024; format == InputFormat::Auto; want *= 2) {
    if (want > 2 * kMaxLineBytes) {  // no end of the first event line in sight: STD decides
      format = InputFormat::Std;
      guessed = true;
      break;
    }
    const std::string_view start = skip_bom(reader.peek(want));
    const bool complete = start.size() < want - 3;  // peek stops short only at the end of input
    if (auto detected = detect_format(start, complete, &guessed)) format = *detected;
  }
  io::Input in;
  in.stream = &reader;
  try {
    return dispatch(in, name, format, options, symbols, consumer, guessed);
  } catch (const io::LineTooLong&) {  // a reader that does not name the line itself
    throw InputError(std::string(name) + ": error: a line longer than the limit of " +
                     std::to_string(kMaxLineBytes) + " bytes");
  }
}

// Bytes in memory (a mapped file or a string): decompressed as a stream when compressed.
ReadSummary read_memory(std::string_view text, std::string_view name, const ReadOptions& options,
                        Symbols& symbols, EventConsumer& consumer, const char* readable_end,
                        bool mapped) {
  const io::Compression compression = io::detect_compression(text);
  if (compression != io::Compression::None) {
    io::MemorySource compressed(text);
    const auto plain = io::make_decompressor(compression, compressed, std::string(name));
    ReadSummary summary = read_stream(*plain, name, options, symbols, consumer);
    summary.compression = std::string(io::compression_name(compression));
    return summary;
  }
  text = skip_bom(text);
  bool guessed = false;
  const InputFormat format =
      options.format == InputFormat::Auto ? *detect_format(text, true, &guessed) : options.format;
  io::Input in;
  in.text = text;
  in.readable_end = readable_end;
  in.mapped = mapped;
  return dispatch(in, name, format, options, symbols, consumer, guessed);
}

}  // namespace

namespace io {

void read_std(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
              EventConsumer& consumer, ReadSummary& summary) {
  StdParser parser(name, options, symbols, consumer, summary);
  if (in.stream) {
    try {
      for (std::string_view block = in.stream->next(); !block.empty(); block = in.stream->next())
        parser.parse_block(block.data(), block.data() + block.size(),
                           block.data() + block.size() + kReadPadding);
    } catch (const LineTooLong&) {
      throw InputError(std::string(name) + ":" + std::to_string(parser.lines() + 1) +
                       ":1: error: line longer than the limit of " + std::to_string(kMaxLineBytes) +
                       " bytes");
    }
    parser.finish();
    return;
  }
  const std::string_view text = in.text;
  const void* last = text.empty() ? nullptr : memrchr(text.data(), '\n', text.size());
  if (last && static_cast<const char*>(last) + 1 == text.data() + text.size()) {
    const char* begin = text.data();
    const char* const end = text.data() + text.size();
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    while (begin < end) {
      const char* stop = end;
      if (in.mapped && static_cast<size_t>(end - begin) > kWindow) {
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
      parser.parse_block(begin, stop, stop == end ? in.readable_end : end);
      if (in.mapped) {  // the parsed pages are not read again
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
}

void read_speedygo(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                   EventConsumer& consumer, ReadSummary& summary) {
  if (in.stream) {  // the signal/wait pairing needs the whole text
    const std::string text = in.stream->read_all();
    parse_speedygo(text, name, options, symbols, consumer, summary);
    return;
  }
  parse_speedygo(in.text, name, options, symbols, consumer, summary);
}

}  // namespace io

std::string_view input_format_name(InputFormat format) {
  return format == InputFormat::Auto ? "auto" : format_of(format).name;
}

std::optional<InputFormat> parse_input_format(std::string_view name) {
  if (name == "auto") return InputFormat::Auto;
  if (const TraceFormat* f = find_format(name)) return f->id;
  return std::nullopt;
}

std::optional<InputFormat> detect_input_format(std::string_view text, bool complete) {
  return detect_format(skip_bom(text), complete);
}

ReadSummary read_events_from_string(std::string_view text, std::string_view name,
                                    const ReadOptions& options, Symbols& symbols,
                                    EventConsumer& consumer) {
  return read_memory(text, name, options, symbols, consumer, text.data() + text.size(), false);
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
        summary = read_memory(file.text(), name, options, symbols, consumer, file.readable_end(),
                              /*mapped=*/true);
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
  io::FdSource raw(fd, name);
  // The magic bytes decide whether it is compressed.
  std::string head(io::kCompressionMagicSize, '\0');
  size_t got = 0;
  while (got < head.size()) {
    const size_t n = raw.read(head.data() + got, head.size() - got);
    if (n == 0) break;
    got += n;
  }
  head.resize(got);
  const io::Compression compression = io::detect_compression(head);
  io::PrefixedSource source(std::move(head), raw);
  if (compression == io::Compression::None)
    return read_stream(source, name, options, symbols, consumer);
  const auto plain = io::make_decompressor(compression, source, name);
  ReadSummary summary = read_stream(*plain, name, options, symbols, consumer);
  summary.compression = std::string(io::compression_name(compression));
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
