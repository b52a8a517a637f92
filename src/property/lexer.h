//===- property/lexer.h - Tokens of the property language -----------------===//
//
// Private to src/property. One line at a time: the language is line
// oriented (blocks by indentation), so tokens carry their line and column.
//
#pragma once

#include "racepredict/support/error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace racepredict::property {

struct Token {
  enum Kind : uint8_t { Ident, Number, String, Punct, Arrow, DotDot } kind;
  std::string text; ///< identifier, number or string contents, punctuation
  uint32_t line = 0, col = 0;
  bool is(Kind k, const char *s) const { return kind == k && text == s; }
  bool punct(const char *s) const { return is(Punct, s); }
  bool ident(const char *s) const { return is(Ident, s); }
};

/// Splits one line (without its newline) into tokens; `#` starts a comment
/// outside strings. Errors are "FILE:LINE:COL: message".
Expected<std::vector<Token>> lexLine(const std::string &line, uint32_t lineNo,
                                     const std::string &fileName);

/// "'x'" for messages, or "end of line".
std::string describe(const Token *t);

} // namespace racepredict::property
