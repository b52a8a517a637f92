//===- record/trace_names.cpp - NAMES entries the runtime writes ---------===//
#include "trace_names.h"

#include "state.h"

#include <string.h>

namespace racepredict::rt {

void writeName(unsigned ns, uint64_t key, const char *text, size_t len) {
  uint8_t buf[1 + 10 + 10 + 256];
  if (len > 256)
    len = 256;
  uint8_t *p = buf;
  *p++ = static_cast<uint8_t>(ns);
  p = putVarint(p, key);
  p = putVarint(p, len);
  memcpy(p, text, len);
  p += len;
  writeBlock(RP_BLOCK_NAMES, buf, static_cast<uint32_t>(p - buf));
}

} // namespace racepredict::rt
