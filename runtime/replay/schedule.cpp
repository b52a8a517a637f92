//===- replay/schedule.cpp - Parse and validate a schedule file -----------===//
//
// A hand-written tokenizer over the file's bytes: the runtime may not use
// stdio or the heap (docs/replay.md). Validation is strict so that a wrong
// or hand-edited file is rejected at start-up with its line number instead
// of misleading the turnstile later.
//
#include "schedule.h"

#include "racepredict/trace/format.h"

namespace racepredict::rt {
namespace {

const char *const kMnemonics[] = {
    "begin",   "end",     "fork",    "join",   "acq",       "rel",
    "racq",    "tryfail", "wait",    "signal", "broadcast", "barrier",
    "seminit", "post",    "semwait", "rd",     "wr",        "ard",
    "awr",     "armw",    "br",      "alloc",  "free",      "ev"};
constexpr unsigned kNumKinds = sizeof(kMnemonics) / sizeof(kMnemonics[0]);

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
  bool checkSteps(Schedule *s);

  static constexpr size_t kMaxToks = 12;
  Cursor c_;
  SchedAlloc alloc_;
  SchedError *err_;
  Token toks_[kMaxToks];
  size_t numToks_ = 0;
  char *pool_ = nullptr;
  size_t poolLen_ = 0;
};

bool Parser::header(Schedule *s) {
  if (!nextLine() || !is(0, "RPSCHED"))
    return fail("not a racepredict schedule file (no RPSCHED header)");
  if (numToks_ != 2 || !is(1, "1"))
    return fail("unsupported schedule version (this runtime reads version 1;"
                " regenerate it with the same racepredict)");
  if (!expectKeyword("kind", 2))
    return false;
  if (is(1, "race"))
    s->kind = kSchedRace;
  else if (is(1, "deadlock"))
    s->kind = kSchedDeadlock;
  else
    return fail("unknown schedule kind", toks_[1].b, toks_[1].n);
  if (!expectKeyword("threads", 8) || !is(2, "steps") || !is(4, "wakes") ||
      !is(6, "requests"))
    return fail("expected 'threads N steps M wakes W requests R'");
  return number(1, &s->numThreads) && number(3, &s->numSteps) &&
         number(5, &s->numWakes) && number(7, &s->numRequests);
}

bool Parser::threadLine(Schedule *s, uint32_t i) {
  if (!expectKeyword("thread", 5))
    return false;
  uint32_t idx;
  if (!number(1, &idx))
    return false;
  if (idx != i)
    return fail("threads must be listed in index order");
  SchedThread &t = s->threads[i];
  if (is(2, "-")) {
    if (i != 0)
      return fail("only thread 0 may be the root (parent '-')");
    t.parent = kNoThread;
  } else {
    if (!number(2, &t.parent))
      return false;
    if (t.parent >= i)
      return fail("a thread's parent must be listed before it");
  }
  if (i == 0 && t.parent != kNoThread)
    return fail("thread 0 must be the root (parent '-')");
  if (!number(3, &t.childOrdinal) || !string(4, &t.name))
    return false;
  for (uint32_t k = 0; k < i; ++k)
    if (s->threads[k].parent == t.parent && t.parent != kNoThread &&
        s->threads[k].childOrdinal == t.childOrdinal)
      return fail("two threads have the same creation path");
  return true;
}

bool Parser::stepLine(Schedule *s, uint32_t i) {
  if (!expectKeyword("step", 10))
    return false;
  SchedStep &st = s->steps[i];
  uint32_t half, flags;
  if (!number(1, &st.thread) || !number(2, &st.ordinal) || !kind(3, &st.kind) ||
      !number(4, &half) || !number(5, &flags) || !number(6, &st.line) ||
      !number(7, &st.column) || !string(8, &st.file) || !string(9, &st.desc))
    return false;
  if (st.thread >= s->numThreads)
    return fail("step of an undeclared thread");
  if (half > 1 || (half && st.kind != RP_WAIT && st.kind != RP_BARRIER))
    return fail("only wait and barrier steps have a first half");
  if (st.kind == RP_ALLOC || st.kind == RP_FREE || st.kind == RP_CUSTOM)
    return fail("alloc, free and custom events are not scheduling points");
  if (flags > kStepNoNotify)
    return fail("unknown step flags");
  st.half = static_cast<uint8_t>(half);
  st.flags = static_cast<uint8_t>(flags);
  return true;
}

bool Parser::wakeLine(Schedule *s, uint32_t i) {
  if (!expectKeyword("wake", 4))
    return false;
  SchedWake &w = s->wakes[i];
  if (!number(1, &w.step) || !number(2, &w.thread) || !number(3, &w.ordinal))
    return false;
  if (w.step >= s->numSteps || w.thread >= s->numThreads)
    return fail("wake of an undeclared step or thread");
  unsigned k = s->steps[w.step].kind;
  if (k != RP_SIGNAL && k != RP_BROADCAST)
    return fail("a wake must name a signal or broadcast step");
  if (i > 0 && s->wakes[i - 1].step > w.step)
    return fail("wakes must be sorted by step");
  SchedStep &st = s->steps[w.step];
  if (st.wakeCount == 0)
    st.wakeBegin = i;
  ++st.wakeCount;
  return true;
}

bool Parser::requestLine(Schedule *s, uint32_t i) {
  if (!expectKeyword("request", 10))
    return false;
  SchedRequest &r = s->requests[i];
  if (!number(1, &r.thread) || !number(2, &r.ordinal) || !kind(3, &r.kind) ||
      !number(4, &r.line) || !number(5, &r.column) || !string(6, &r.file) ||
      !number(7, &r.holder) || !number(8, &r.holderOrdinal) ||
      !string(9, &r.desc))
    return false;
  if (r.thread >= s->numThreads || r.holder >= s->numThreads)
    return fail("request of an undeclared thread");
  if (r.kind != RP_ACQUIRE && r.kind != RP_RACQUIRE)
    return fail("a deadlock request must be acq or racq");
  if (r.ordinal != s->threads[r.thread].fullOrdinals ||
      s->threads[r.thread].stepOrdinals != r.ordinal)
    return fail("a request must be its thread's next event after the "
                "schedule");
  if (r.holderOrdinal >= s->threads[r.holder].fullOrdinals)
    return fail("a request's holder must have taken the lock in the "
                "schedule");
  return true;
}

/// Per thread, the steps must walk its ordinals 0, 1, 2, ... in order, a
/// half step (k, 1) being followed by (k, 0) or ending the thread's part.
bool Parser::checkSteps(Schedule *s) {
  for (uint32_t i = 0; i < s->numSteps; ++i) {
    SchedStep &st = s->steps[i];
    SchedThread &t = s->threads[st.thread];
    bool halfPending = t.stepOrdinals > t.fullOrdinals;
    bool ok = st.half ? (!halfPending && st.ordinal == t.fullOrdinals)
                      : (st.ordinal == t.fullOrdinals &&
                         (!halfPending || st.ordinal + 1 == t.stepOrdinals));
    if (halfPending && !st.half && ok) {
      // The completing step must be the same wait / barrier event.
      uint32_t k = i;
      while (k-- > 0 && s->steps[k].thread != st.thread) {
      }
      ok = s->steps[k].kind == st.kind && s->steps[k].line == st.line;
    }
    if (!ok) {
      c_.line = 0;
      return fail("the steps of a thread must follow its events in program "
                  "order");
    }
    if (st.half)
      t.stepOrdinals = st.ordinal + 1;
    else {
      t.fullOrdinals = st.ordinal + 1;
      t.stepOrdinals = st.ordinal + 1;
    }
  }
  return true;
}

bool Parser::run(Schedule *s) {
  if (!header(s))
    return false;
  if (s->numThreads == 0)
    return fail("a schedule needs at least one thread");
  // Decoded strings are never longer than the file itself.
  pool_ = static_cast<char *>(
      alloc_(static_cast<size_t>(c_.end - c_.p) + 1 + 4096));
  s->threads =
      static_cast<SchedThread *>(alloc_(sizeof(SchedThread) * s->numThreads));
  s->steps =
      static_cast<SchedStep *>(alloc_(sizeof(SchedStep) * (s->numSteps + 1)));
  s->wakes =
      static_cast<SchedWake *>(alloc_(sizeof(SchedWake) * (s->numWakes + 1)));
  s->requests = static_cast<SchedRequest *>(
      alloc_(sizeof(SchedRequest) * (s->numRequests + 1)));
  if (!pool_ || !s->threads || !s->steps || !s->wakes || !s->requests)
    return fail("out of memory");
  for (uint32_t i = 0; i < s->numThreads; ++i)
    if (!threadLine(s, i))
      return false;
  for (uint32_t i = 0; i < s->numSteps; ++i)
    if (!stepLine(s, i))
      return false;
  if (!checkSteps(s))
    return false;
  for (uint32_t i = 0; i < s->numWakes; ++i)
    if (!wakeLine(s, i))
      return false;
  if (s->kind == kSchedRace) {
    if (!expectKeyword("race", 3) || !number(1, &s->raceFirst) ||
        !number(2, &s->raceSecond))
      return false;
    if (s->numSteps < 2 || s->raceFirst != s->numSteps - 2 ||
        s->raceSecond != s->numSteps - 1)
      return fail("the racing steps must be the last two steps");
    const uint32_t racing[2] = {s->raceFirst, s->raceSecond};
    for (uint32_t k : racing) {
      unsigned kd = s->steps[k].kind;
      if (kd < RP_READ || kd > RP_ATOMIC_RMW)
        return fail("a racing step must be a memory access");
    }
    if (s->steps[s->raceFirst].thread == s->steps[s->raceSecond].thread)
      return fail("the racing steps must be of different threads");
    if (s->numRequests)
      return fail("a race schedule has no requests");
  } else {
    if (s->numRequests < 1)
      return fail("a deadlock schedule needs requests");
    for (uint32_t i = 0; i < s->numRequests; ++i)
      if (!requestLine(s, i))
        return false;
  }
  if (!expectKeyword("end", 1))
    return false;
  if (nextLine())
    return fail("text after 'end'");
  return true;
}

} // namespace

int kindFromMnemonic(const char *s, size_t n) {
  for (unsigned k = 0; k < kNumKinds; ++k) {
    const char *m = kMnemonics[k];
    size_t i = 0;
    while (i < n && m[i] && m[i] == s[i])
      ++i;
    if (i == n && m[i] == 0)
      return static_cast<int>(k);
  }
  return -1;
}

const char *kindMnemonic(unsigned kind) {
  return kind < kNumKinds ? kMnemonics[kind] : "?";
}

bool parseSchedule(const char *text, size_t len, SchedAlloc alloc,
                   Schedule *out, SchedError *err) {
  *out = Schedule{};
  err->line = 0;
  err->msg[0] = 0;
  Parser p(text, len, alloc, err);
  return p.run(out);
}

} // namespace racepredict::rt
