//===- replay/schedule.cpp - Parse and validate a schedule file -----------===//
//
// The header, threads, steps, wakes and race of a schedule file (the
// deadlock lines are in schedule_blocks.cpp), over schedule_parser.h's
// tokenizer. Validation is strict so that a wrong or hand-edited file is
// rejected at start-up with its line number instead of misleading the
// turnstile later.
//
#include "schedule_parser.h"

namespace racepredict::rt {
namespace {

const char *const kMnemonics[] = {
    "begin",   "end",  "fork",   "join",      "acq",     "rel",     "racq",
    "tryfail", "wait", "signal", "broadcast", "barrier", "seminit", "post",
    "semwait", "rd",   "wr",     "ard",       "awr",     "armw",    "br",
    "alloc",   "free", "ev",     "send",      "recv"};
constexpr unsigned kNumKinds = sizeof(kMnemonics) / sizeof(kMnemonics[0]);

} // namespace

namespace detail {

bool Parser::header(Schedule *s) {
  if (!nextLine() || !is(0, "RPSCHED"))
    return fail("not a racepredict schedule file (no RPSCHED header)");
  if (numToks_ != 2 || !(is(1, "1") || is(1, "2")))
    return fail("unsupported schedule version (this runtime reads versions 1 "
                "and 2; regenerate it with the same racepredict)");
  s->version = is(1, "1") ? 1 : 2;
  if (!expectKeyword("kind", 2))
    return false;
  if (is(1, "race"))
    s->kind = kSchedRace;
  else if (is(1, "deadlock"))
    s->kind = kSchedDeadlock;
  else if (is(1, "violation"))
    s->kind = kSchedViolation;
  else
    return fail("unknown schedule kind", toks_[1].b, toks_[1].n);
  // Version 1 counted lock `request`s; version 2 counts `block`s of any
  // kind.
  const char *last = s->version == 1 ? "requests" : "blocks";
  if (!expectKeyword("threads", 8) || !is(2, "steps") || !is(4, "wakes") ||
      !is(6, last))
    return fail(s->version == 1
                    ? "expected 'threads N steps M wakes W requests R'"
                    : "expected 'threads N steps M wakes W blocks B'");
  countsLine_ = c_.line;
  return number(1, &s->numThreads) && number(3, &s->numSteps) &&
         number(5, &s->numWakes) && number(7, &s->numBlocks);
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
  if (st.kind == RP_ALLOC)
    return fail("alloc events are not scheduling points");
  if (st.kind == RP_FREE && s->kind != kSchedRace)
    return fail("a free is a step only as one of a race's racing pair");
  if (flags > (kStepNoNotify | kStepPastDeadline))
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

/// Per thread, the steps must walk its ordinals 0, 1, 2, ... in order, a
/// half step (k, 1) being followed by (k, 0) or ending the thread's part.
bool Parser::checkSteps(Schedule *s) {
  for (uint32_t i = 0; i < s->numSteps; ++i) {
    SchedStep &st = s->steps[i];
    SchedThread &t = s->threads[st.thread];
    bool halfPending = t.stepOrdinals > t.fullOrdinals;
    if (st.kind == RP_FREE) {
      // Frees take no ordinal: one comes before the thread's next event.
      if (halfPending || st.ordinal != t.fullOrdinals) {
        c_.line = 0;
        return fail("the steps of a thread must follow its events in program "
                    "order");
      }
      continue;
    }
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
  s->blocks = static_cast<SchedBlock *>(
      alloc_(sizeof(SchedBlock) * (s->numBlocks + 1)));
  if (!pool_ || !s->threads || !s->steps || !s->wakes || !s->blocks)
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
      if ((kd < RP_READ || kd > RP_ATOMIC_RMW) && kd != RP_FREE)
        return fail("a racing step must be a memory access or a free");
    }
    for (uint32_t k = 0; k < s->raceFirst; ++k)
      if (s->steps[k].kind == RP_FREE)
        return fail("a free is a step only as one of a race's racing pair");
    if (s->steps[s->raceFirst].thread == s->steps[s->raceSecond].thread)
      return fail("the racing steps must be of different threads");
    if (s->numBlocks) {
      c_.line = countsLine_;
      return fail("a race schedule has no blocked threads");
    }
  } else if (s->kind == kSchedViolation) {
    if (s->numSteps < 1 || s->numBlocks) {
      c_.line = countsLine_;
      return fail("a violation schedule has steps and no blocked threads");
    }
  } else {
    if (s->numBlocks < 1) {
      c_.line = countsLine_;
      return fail(s->version == 1 ? "a deadlock schedule needs requests"
                                  : "a deadlock schedule needs blocks");
    }
    for (uint32_t i = 0; i < s->numBlocks; ++i)
      if (!(s->version == 1 ? requestLine(s, i) : blockLine(s, i)))
        return false;
    if (!checkBlocks(s))
      return false;
  }
  if (!expectKeyword("end", 1))
    return false;
  if (nextLine())
    return fail("text after 'end'");
  return true;
}

} // namespace detail

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
  detail::Parser p(text, len, alloc, err);
  return p.run(out);
}

} // namespace racepredict::rt
