//===- replay/schedule_parser.h - The schedule file's tokenizer -----------===//
//
// Shared by schedule.cpp (header, threads, steps, wakes, race) and
// schedule_blocks.cpp (the deadlock lines): a hand-written tokenizer over
// the file's bytes, because the runtime may not use stdio or the heap
// (docs/replay.md). Internal to the runtime (and its unit tests).
//
#pragma once

#include "schedule.h"

#include "racepredict/trace/format.h"

namespace racepredict::rt::detail {

struct Cursor {
  const char *p, *end;
  uint32_t line;
};

/// One token of the current line: [b, b+n).
struct Token {
  const char *b;
  size_t n;
};

class Parser {
public:
  Parser(const char *text, size_t len, SchedAlloc alloc, SchedError *err)
      : c_{text, text + len, 0}, alloc_(alloc), err_(err) {}

  bool run(Schedule *out);

private:
  bool fail(const char *msg, const char *detail = nullptr, size_t dn = 0) {
    err_->line = c_.line;
    size_t k = 0;
    for (const char *m = msg; *m && k + 1 < sizeof(err_->msg); ++m)
      err_->msg[k++] = *m;
    if (detail) {
      const char *sep = " '";
      for (const char *m = sep; *m && k + 1 < sizeof(err_->msg); ++m)
        err_->msg[k++] = *m;
      for (size_t i = 0; i < dn && k + 2 < sizeof(err_->msg); ++i)
        err_->msg[k++] = detail[i];
      if (k + 1 < sizeof(err_->msg))
        err_->msg[k++] = '\'';
    }
    err_->msg[k] = 0;
    return false;
  }

  /// Reads the next non-empty line into toks_; false at end of file.
  bool nextLine() {
    for (;;) {
      if (c_.p >= c_.end)
        return false;
      ++c_.line;
      numToks_ = 0;
      const char *e = c_.p;
      while (e < c_.end && *e != '\n')
        ++e;
      const char *s = c_.p;
      while (s < e) {
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
          ++s;
        if (s >= e)
          break;
        const char *b = s;
        while (s < e && *s != ' ' && *s != '\t' && *s != '\r')
          ++s;
        if (numToks_ < kMaxToks)
          toks_[numToks_] = {b, static_cast<size_t>(s - b)};
        ++numToks_;
      }
      c_.p = e < c_.end ? e + 1 : e;
      if (numToks_)
        return true;
    }
  }

  bool is(size_t i, const char *word) const {
    const Token &t = toks_[i];
    size_t k = 0;
    for (; k < t.n; ++k)
      if (word[k] != t.b[k])
        return false;
    return word[k] == 0;
  }

  bool expectKeyword(const char *word, size_t ntoks) {
    if (!nextLine())
      return fail("unexpected end of file, expected", word, wordLen(word));
    if (!is(0, word))
      return fail("expected", word, wordLen(word));
    if (numToks_ != ntoks)
      return fail("wrong number of fields on the line starting with", word,
                  wordLen(word));
    return true;
  }

  static size_t wordLen(const char *w) {
    size_t n = 0;
    while (w[n])
      ++n;
    return n;
  }

  bool number(size_t i, uint32_t *v) {
    const Token &t = toks_[i];
    uint64_t x = 0;
    if (t.n == 0 || t.n > 10)
      return fail("expected a number, got", t.b, t.n);
    for (size_t k = 0; k < t.n; ++k) {
      if (t.b[k] < '0' || t.b[k] > '9')
        return fail("expected a number, got", t.b, t.n);
      x = x * 10 + static_cast<uint64_t>(t.b[k] - '0');
    }
    if (x >= kNoThread)
      return fail("number out of range", t.b, t.n);
    *v = static_cast<uint32_t>(x);
    return true;
  }

  bool kind(size_t i, uint8_t *k) {
    int r = kindFromMnemonic(toks_[i].b, toks_[i].n);
    if (r < 0)
      return fail("unknown event kind", toks_[i].b, toks_[i].n);
    *k = static_cast<uint8_t>(r);
    return true;
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }

  /// Decodes a percent-encoded string token into the string pool.
  bool string(size_t i, const char **out) {
    const Token &t = toks_[i];
    char *dst = pool_ + poolLen_;
    size_t n = 0;
    if (!(t.n == 1 && t.b[0] == '-')) {
      for (size_t k = 0; k < t.n; ++k) {
        char ch = t.b[k];
        if (ch == '%') {
          int hi = k + 2 < t.n ? hexDigit(t.b[k + 1]) : -1;
          int lo = k + 2 < t.n ? hexDigit(t.b[k + 2]) : -1;
          if (hi < 0 || lo < 0)
            return fail("bad percent escape in", t.b, t.n);
          ch = static_cast<char>(hi * 16 + lo);
          k += 2;
        }
        dst[n++] = ch;
      }
    }
    dst[n] = 0;
    poolLen_ += n + 1;
    *out = dst;
    return true;
  }

  bool header(Schedule *s);
  bool threadLine(Schedule *s, uint32_t i);
  bool stepLine(Schedule *s, uint32_t i);
  bool wakeLine(Schedule *s, uint32_t i);
  bool requestLine(Schedule *s, uint32_t i);
  bool blockLine(Schedule *s, uint32_t i);
  bool checkSteps(Schedule *s);
  bool checkBlocks(Schedule *s);

  /// A number, or `-` (kNoThread).
  bool optNumber(size_t i, uint32_t *v) {
    if (toks_[i].n == 1 && toks_[i].b[0] == '-') {
      *v = kNoThread;
      return true;
    }
    return number(i, v);
  }

  static constexpr size_t kMaxToks = 14;
  Cursor c_;
  SchedAlloc alloc_;
  SchedError *err_;
  Token toks_[kMaxToks];
  size_t numToks_ = 0;
  char *pool_ = nullptr;
  size_t poolLen_ = 0;
  uint32_t countsLine_ = 0; ///< the `threads ... blocks B` line
};

} // namespace racepredict::rt::detail
