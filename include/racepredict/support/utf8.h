//===- support/utf8.h - Names are bytes; what we write is UTF-8 -----------===//
//
// File, function, variable and thread names come from the program and the
// system as bytes: a source file saved in Latin-1, a path in another
// encoding. JSON, SARIF and XML must be UTF-8 (nlohmann::json throws on
// anything else), so every writer passes names through here. A byte that
// does not start a valid UTF-8 sequence becomes the four characters `\xHH`:
// readable, reversible by hand, and the same in every format.
//
#pragma once

#include "racepredict/support/forwarding_buf.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace racepredict {

/// Whether `s` is valid UTF-8 (no overlong forms, surrogates or code
/// points above U+10FFFF: what JSON parsers accept).
bool isUtf8(std::string_view s);

/// `s` with every byte that is not part of a valid UTF-8 sequence written
/// as `\xHH` (uppercase hex); valid input is returned unchanged.
std::string escapeNonUtf8(std::string_view s);

/// The inverse of escapeNonUtf8 for what it produces: `\xHH` with HH at
/// least 80 becomes that byte again (a name that itself contains such text
/// is the one ambiguity, accepted: it never occurs in practice).
std::string unescapeNonUtf8(std::string_view s);

/// Makes every string and key of `j` valid UTF-8 (escapeNonUtf8).
void makeUtf8(nlohmann::json &j);
void makeUtf8(nlohmann::ordered_json &j);

/// `j` as text (`dump(indent)`) after makeUtf8: what every JSON and SARIF
/// writer prints, never the internal error nlohmann raises for a byte that
/// is not UTF-8.
std::string jsonText(nlohmann::json j, int indent = 2);
std::string jsonText(nlohmann::ordered_json j, int indent = 2);

/// A stream buffer that forwards to another one, escaping what is not
/// UTF-8 (escapeNonUtf8) across any split of the writes: text reports and
/// diagnostics go through it. finish() (or the destructor) writes a
/// sequence left incomplete at the end.
class Utf8Filter : public ForwardingBuf {
public:
  explicit Utf8Filter(std::streambuf *out) : ForwardingBuf(out) {}
  ~Utf8Filter() override { finish(); }

  /// Escapes a pending incomplete sequence (the end of the output) and
  /// flushes; false on a failed write.
  bool finish() { return flushPending() && pubsync() == 0; }
  /// Escapes a pending incomplete sequence, without flushing.
  bool flushPending();

protected:
  /// Writes the valid part of pending_ + s, keeps an incomplete tail.
  bool forward(const char *s, size_t n) override;

private:
  std::string pending_;
};

} // namespace racepredict
