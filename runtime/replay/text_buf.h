//===- replay/text_buf.h - A string builder for replay messages -----------===//
//
// Bigger than RawBuf (512 bytes): step descriptions carry source text.
// Truncates silently; lives on the stack (no malloc in the runtime).
//
#pragma once

#include "../common/raw_io.h"

#include <stddef.h>
#include <stdint.h>

namespace racepredict::rt {

struct Text {
  char data[4096];
  size_t len = 0;
  Text &str(const char *s) {
    while (s && *s && len + 1 < sizeof(data))
      data[len++] = *s++;
    return *this;
  }
  Text &num(uint64_t v) {
    RawBuf b;
    b.num(v);
    return str(b.cstr());
  }
  Text &hex(uint64_t v) {
    RawBuf b;
    b.hex(v);
    return str(b.cstr());
  }
  /// One line of the result file: newlines in the value become spaces.
  Text &line(const char *key, const char *value) {
    str(key).str(" ");
    while (value && *value && len + 2 < sizeof(data)) {
      char c = *value++;
      data[len++] = c == '\n' || c == '\r' ? ' ' : c;
    }
    return str("\n");
  }
  const char *cstr() {
    data[len] = 0;
    return data;
  }
  void copyTo(char *buf, size_t cap) const {
    size_t n = len < cap - 1 ? len : cap - 1;
    for (size_t i = 0; i < n; ++i)
      buf[i] = data[i];
    buf[n] = 0;
  }
};

} // namespace racepredict::rt
