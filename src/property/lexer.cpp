//===- property/lexer.cpp - Tokens of the property language ---------------===//
#include "lexer.h"

#include <cctype>

namespace racepredict::property {

namespace {
bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
} // namespace

Expected<std::vector<Token>> lexLine(const std::string &line, uint32_t lineNo,
                                     const std::string &fileName) {
  std::vector<Token> out;
  auto fail = [&](size_t col, const std::string &msg) {
    return Error{fileName + ":" + std::to_string(lineNo) + ":" +
                 std::to_string(col + 1) + ": " + msg};
  };
  size_t i = 0, n = line.size();
  while (i < n) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#')
      break;
    Token t{Token::Punct, "", lineNo, static_cast<uint32_t>(i + 1)};
    if (identStart(c)) {
      size_t j = i;
      while (j < n && identChar(line[j]))
        ++j;
      t.kind = Token::Ident;
      t.text = line.substr(i, j - i);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < n &&
                std::isdigit(static_cast<unsigned char>(line[i + 1])))) {
      size_t j = i + 1;
      while (j < n && std::isalnum(static_cast<unsigned char>(line[j])))
        ++j;
      t.kind = Token::Number;
      t.text = line.substr(i, j - i);
      i = j;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < n && line[j] != '"')
        ++j;
      if (j == n)
        return fail(i, "unterminated string");
      t.kind = Token::String;
      t.text = line.substr(i + 1, j - i - 1);
      i = j + 1;
    } else if (c == '-' && i + 1 < n && line[i + 1] == '>') {
      t.kind = Token::Arrow;
      t.text = "->";
      i += 2;
    } else if (c == '.' && i + 1 < n && line[i + 1] == '.') {
      t.kind = Token::DotDot;
      t.text = "..";
      i += 2;
    } else if (std::string("(),;:[]*@").find(c) != std::string::npos) {
      t.text = std::string(1, c);
      ++i;
    } else {
      return fail(i, std::string("unexpected character '") + c + "'");
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string describe(const Token *t) {
  if (!t)
    return "end of statement";
  if (t->kind == Token::String)
    return "\"" + t->text + "\"";
  return "'" + t->text + "'";
}

} // namespace racepredict::property
