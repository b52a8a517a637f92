//===- record/trace_names.h - NAMES entries the runtime writes -----------===//
//
// Keys the runtime makes up (custom event names and literals, channels)
// get a text in the trace's NAMES block (trace/format.h), written once,
// when the key is made.
//
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace racepredict::rt {

/// Writes NAMES { u8 namespace `ns`, varint key, varint len, bytes } for the
/// first `len` (at most 256) bytes of `text`.
void writeName(unsigned ns, uint64_t key, const char *text, size_t len);

} // namespace racepredict::rt
