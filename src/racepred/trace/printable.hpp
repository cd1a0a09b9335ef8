// Names from a trace shown to a person: control characters escaped (so that a name cannot move
// the cursor, recolour the terminal or overwrite a line of the report) and long names cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace racepred {

// How many bytes of a name text output echoes before cutting it.
inline constexpr size_t kPrintableNameBytes = 200;

// `text` with every byte below 0x20 and 0x7f written as \xHH (\t, \n, \r, \e included), the C1
// controls U+0080-U+009F and the bidirectional overrides and isolates (U+202A-U+202E,
// U+2066-U+2069) as \uHHHH, a raw byte 0x80-0x9F outside a UTF-8 sequence as \xHH, and a space
// at either end as \x20 (so that "T1 " and "T1" differ); cut after `max_bytes` (at a UTF-8
// character boundary) with "...[N bytes]" giving the full size. Other bytes, invalid UTF-8
// included, are kept: they cannot control a terminal.
std::string printable(std::string_view text, size_t max_bytes = kPrintableNameBytes);

// The same for multi-line text (a rendered table, a message): keeps '\n' and spaces, escapes the
// other control characters, cuts nothing.
std::string printable_text(std::string_view text);

}  // namespace racepred
