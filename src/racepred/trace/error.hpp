#pragma once

#include <stdexcept>
#include <string>

namespace racepred {

// Bad input (malformed trace, ill-formed trace, unknown name…). The message is complete and
// user-facing, e.g. "t.std:3:4: error: unknown operation 'wr'". The CLI prints it and exits 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A name space (threads, variables, locks, locations) outgrew its limit (SymbolTable::kMaxNames).
// The reader adds the file and line.
class NameLimitError : public InputError {
 public:
  using InputError::InputError;
};

// A trace that breaks well-formedness (the validator's rules): the events were read as they
// are, so the message does not depend on the format the reader recognised.
class WellFormednessError : public InputError {
 public:
  using InputError::InputError;
};

// Misuse of the command line (unknown engine, conflicting options). Exit code 2 as well.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace racepred
