//===- report/memory_block.h - The allocation an address belongs to -------===//
//
// A heap access is recorded by address; TSan names the object by its
// allocation ("Location is heap block of size 40 at 0x… allocated by main
// thread: #0 calloc … #1 main unit.cpp:53"). The trace has every recorded
// allocation (malloc & co., operator new through them, and stack objects)
// with its size and stack, so the report can do the same.
//
#pragma once

#include "racepredict/trace/trace.h"

#include <cstdint>
#include <optional>
#include <string>

namespace racepredict::report {

/// The numeric address of a location named by its hex key ("0x55…"); none
/// for named (global) locations.
std::optional<uint64_t> locationAddress(const std::string &name);

/// The last alloc event before `e` whose block holds `e`'s address and
/// that no free ended before `e`; kNone if there is none.
trace::EventId allocationOf(const trace::Trace &t, trace::EventId e);

/// "block of size 40 at 0x55… (offset 32) allocated by thread t0" for the
/// allocation `alloc` and the access `e`.
std::string blockText(const trace::Trace &t, trace::EventId alloc,
                      trace::EventId e);

} // namespace racepredict::report
