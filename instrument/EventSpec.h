//===- instrument/EventSpec.h - The instrumentation spec (--events) -------===//
//
// Which program points become custom events, in the spirit of Carril's
// RaceQuest instrumentation (thesis Fig. 6.3/6.4). One entry per line:
//
//   open(#return)          after  call open_file
//   close(#0)              before call close_file
//   read(#0, *#1)          before call read_block
//   inc()                  before body increment
//   x(load, #value)        after  read-global x
//   x(store, #value)       before write-global x
//   mark(uplink)           before line rover.c:42
//
// Arguments: #N (call argument / parameter N), #return, #value, #address,
// #size (global accesses), `*` to dereference (repeatable), and literals
// (identifiers and integers). Plain C++ (no LLVM): the pass and the
// wrappers' checker share it.
//
#pragma once

#include <string>
#include <vector>

namespace racepredict {

struct SpecArg {
  enum Kind { Param, Return, Value, Address, Size, Literal } kind = Literal;
  unsigned index = 0;  ///< Param: N of #N
  unsigned derefs = 0; ///< leading `*`s
  std::string literal; ///< Literal: identifier or integer text
  bool isInteger() const;
};

struct SpecEntry {
  std::string event;
  std::vector<SpecArg> args;
  enum When { Before, After } when = Before;
  enum Target { Call, Body, ReadGlobal, WriteGlobal, Line } target = Call;
  std::string symbol; ///< function, global, or file (Line)
  unsigned line = 0;  ///< Line: the source line
  unsigned specLine = 0;
};

struct EventSpec {
  std::string file;
  std::vector<SpecEntry> entries;
};

/// At most this many arguments per event (the hook's fixed arity).
inline constexpr unsigned kMaxEventArgs = 4;

struct SpecParseResult {
  bool ok = false;
  std::string error; ///< "FILE:LINE: message"
  EventSpec spec;
};

SpecParseResult parseEventSpec(const std::string &text,
                               const std::string &fileName);
/// Reads the file first ("cannot open event spec 'x'").
SpecParseResult parseEventSpecFile(const std::string &path);

/// "open(#return) after call open_file": an entry as written (messages).
std::string toString(const SpecEntry &e);

} // namespace racepredict
