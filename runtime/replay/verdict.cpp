//===- replay/verdict.cpp - Confirm, diverge, report ----------------------===//
//
// The three outcomes of docs/replay.md. `settle` is the only writer of the
// result file (the first verdict wins: a confirmation is never overwritten
// by a later failure, nor the reverse), and ends the scheduled part.
//
#include "replay_state.h"
#include "text_buf.h"

#include "../common/raw_io.h"
#include "../record/state.h"

#include "racepredict/abi/replay.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

const char *verdictName(Verdict v) {
  switch (v) {
  case kVerdictConfirmed:
    return RP_VERDICT_CONFIRMED;
  case kVerdictDiverged:
    return RP_VERDICT_DIVERGED;
  case kVerdictReached:
    return RP_VERDICT_REACHED;
  default:
    return RP_VERDICT_NOT_REPRODUCED;
  }
}

const char *threadName(uint32_t slot) {
  return slot < gR.sched.numThreads ? gR.sched.threads[slot].name : "?";
}

/// `file:line:col` of a source id into t ("" when unknown).
void locationText(Text &t, uint32_t loc) {
  const __racepredict_source *s = sourceOf(loc);
  if (!s || !s->file || !s->file[0])
    return;
  t.str(s->file).str(":").num(s->line);
  if (s->column)
    t.str(":").num(s->column);
}

/// `x` or `buf+8` for an address inside a global of some module.
void variableText(Text &t, uint64_t addr) {
  for (uint32_t m = 0; m < gR.numModules; ++m) {
    const __racepredict_module *mod = gR.modules[m].module;
    for (uint32_t i = 0; i < mod->num_globals; ++i) {
      const __racepredict_global &g = mod->globals[i];
      auto base = reinterpret_cast<uint64_t>(g.addr);
      if (addr >= base && addr < base + (g.size ? g.size : 1)) {
        t.str(g.name);
        if (addr != base)
          t.str("+").num(addr - base);
        return;
      }
    }
  }
}

const char *schedKindName(uint8_t k) {
  return k == kSchedRace       ? "race"
         : k == kSchedDeadlock ? "deadlock"
                               : "violation";
}

/// A name as one token of an `observe` line: percent-encoded like the
/// schedule file's strings (`-` for the empty string).
void nameToken(RawBuf &b, const char *s) {
  if (!s || !*s) {
    b.str("-");
    return;
  }
  for (; *s; ++s) {
    auto c = static_cast<unsigned char>(*s);
    if (c <= 0x20 || c == '%' || c >= 0x7f) {
      char esc[4] = {'%', "0123456789ABCDEF"[c >> 4],
                     "0123456789ABCDEF"[c & 15], 0};
      b.str(esc);
    } else {
      char one[2] = {static_cast<char>(c), 0};
      b.str(one);
    }
  }
}

/// `observe STEP OBJ [ev NAME ARG...]` per full step of a violation
/// schedule: the object it operated on in this run (sync object, accessed
/// address; 0x0 if none) and, for a custom event, its name and arguments
/// (`#0x..` a number as recorded, `=NAME` a literal of the spec).
void writeObservations(int fd) {
  for (uint32_t h = 0; h < gR.sched.numSteps; ++h) {
    if (gR.sched.steps[h].half)
      continue;
    RawBuf b;
    b.str("observe ").num(h).str(" ").hex(gR.stepObj[h]);
    if (const __racepredict_event_desc *d = gR.stepEvent[h]) {
      b.str(" ev ");
      nameToken(b, d->name.name);
      uint32_t n = d->nargs < 4 ? d->nargs : 4;
      for (uint32_t i = 0; i < n; ++i) {
        uint64_t v = gR.stepArgs[4 * h + i];
        if ((d->kind[i] & 3) == RP_ARG_SYMBOL) {
          const auto *sym = reinterpret_cast<const __racepredict_symbol *>(v);
          b.str(" =");
          nameToken(b, sym ? sym->name : "");
        } else {
          b.str(" #").hex(v);
        }
      }
    }
    b.str("\n");
    writeAll(fd, b.data, b.len);
  }
}

bool writesMemory(unsigned k) {
  // A free writes the whole block it ends (a use-after-free).
  return k == RP_WRITE || k == RP_ATOMIC_WRITE || k == RP_ATOMIC_RMW ||
         k == RP_FREE;
}
bool atomicAccess(unsigned k) {
  return k == RP_ATOMIC_READ || k == RP_ATOMIC_WRITE || k == RP_ATOMIC_RMW;
}

} // namespace

const __racepredict_source *sourceOf(uint32_t loc) {
  if (!loc)
    return nullptr;
  uint32_t n = __atomic_load_n(&gR.numModules, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < n; ++i) {
    const ModuleEntry &m = gR.modules[i];
    if (loc > m.base && loc <= m.base + m.module->num_sources)
      return &m.module->sources[loc - m.base - 1];
  }
  return nullptr;
}

void describeLocation(char *buf, size_t cap, uint32_t loc) {
  Text t;
  const __racepredict_source *s = sourceOf(loc);
  if (s && s->file && s->file[0]) {
    locationText(t, loc);
    if (s->function && s->function[0])
      t.str(" in ").str(s->function);
  }
  t.copyTo(buf, cap);
}

void describeActual(char *buf, size_t cap, uint32_t slot, unsigned kind,
                    uint32_t loc) {
  Text t;
  t.str(slot == kNoThread ? "a thread outside the schedule" : threadName(slot))
      .str(" ")
      .str(kindMnemonic(kind));
  const __racepredict_source *s = sourceOf(loc);
  if (s && s->file && s->file[0]) {
    t.str(" @ ");
    locationText(t, loc);
    if (s->function && s->function[0])
      t.str(" in ").str(s->function);
  }
  t.copyTo(buf, cap);
}

void settle(Verdict v, uint32_t step, const char *message, const char *location,
            const char *variable) {
  uint32_t none = kVerdictNone;
  if (!__atomic_compare_exchange_n(&gR.verdict, &none, v, false,
                                   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    return;
  if (getpid() == gR.pid && g.opts.replay_result[0]) {
    Text f;
    RawBuf num;
    f.line("verdict", verdictName(v));
    f.line("kind", schedKindName(gR.sched.kind));
    num.num(step);
    f.line("step", num.cstr());
    RawBuf total;
    total.num(gR.sched.numSteps);
    f.line("steps", total.cstr());
    if (location && location[0])
      f.line("location", location);
    if (variable && variable[0])
      f.line("variable", variable);
    f.line("message", message);
    // Written under another name and renamed: the tool watches the file
    // for a verdict and must never read it half written.
    Text tmp;
    tmp.str(g.opts.replay_result).str(".tmp");
    int fd = open(tmp.cstr(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      writeAll(fd, f.data, f.len);
      if (v == kVerdictReached)
        writeObservations(fd);
      close(fd);
      rename(tmp.cstr(), g.opts.replay_result);
    }
  }
  Text e;
  e.str("racepredict replay: ").str(verdictName(v));
  if (step)
    e.str(" at step ").num(step).str("/").num(gR.sched.numSteps);
  e.str(": ").str(message).str("\n");
  writeAll(2, e.data, e.len);
  if (v != kVerdictConfirmed)
    wakeAllWaiters();
  releaseAll();
}

void settleReached() {
  settle(kVerdictReached, gR.sched.numSteps,
         "every step ran as scheduled; the violation's events are judged "
         "from what they did (the observe lines)",
         nullptr, nullptr);
}

void divergeMismatch(uint32_t h, unsigned kind, uint32_t loc, const char *why) {
  const SchedStep &st = gR.sched.steps[h];
  ThreadState *ts = tlsState;
  uint32_t slot = ts && ts->replaySlot ? ts->replaySlot - 1 : kNoThread;
  char actual[1024];
  describeActual(actual, sizeof actual, slot, kind, loc);
  Text m;
  m.str(slot == kNoThread ? "a thread outside the schedule" : threadName(slot))
      .str(" ")
      .str(why)
      .str(": it executed ")
      .str(actual)
      .str(st.half ? " where the schedule expects the first half of "
                   : " where the schedule expects ")
      .str(st.desc);
  Text where;
  locationText(where, loc);
  settle(kVerdictDiverged, h + 1, m.cstr(), where.cstr(), nullptr);
}

void checkRace(const RaceAccess &b) {
  const RaceAccess &a = gR.first;
  Text why;
  bool ok = false;
  if (!gR.haveFirst)
    why.str("the first access did not execute");
  else if (!(a.addr < b.addr + b.size && b.addr < a.addr + a.size))
    why.str("the two accesses touched different memory (")
        .hex(a.addr)
        .str(" and ")
        .hex(b.addr)
        .str(")");
  else if (!writesMemory(a.kind) && !writesMemory(b.kind))
    why.str("neither access writes");
  else if (atomicAccess(a.kind) && atomicAccess(b.kind))
    why.str("both accesses are atomic");
  else if (gR.clocks.overflowed())
    why.str("too many synchronisation objects to track happens-before");
  else if (gR.clocks.clock(b.slot, a.slot) >= a.epoch)
    why.str("the accesses were ordered by happens-before in the replay");
  else
    ok = true;
  Text var;
  variableText(var, a.addr);
  Text m;
  if (ok) {
    m.str("data race on ").hex(a.addr);
    if (var.len)
      m.str(" (").str(var.cstr()).str(")");
    char da[512], db[512];
    describeActual(da, sizeof da, a.slot, a.kind, a.loc);
    describeActual(db, sizeof db, b.slot, b.kind, b.loc);
    m.str(": ").str(da).str(" and ").str(db).str(
        " executed back to back, unordered by happens-before");
  } else {
    m.str("the schedule ran to its end but ").str(why.cstr());
  }
  Text where;
  locationText(where, b.loc);
  settle(ok ? kVerdictConfirmed : kVerdictNotReproduced, gR.sched.numSteps,
         m.cstr(), where.cstr(), var.cstr());
}

void printStep(uint32_t h) {
  if (!g.opts.replay_verbose)
    return;
  const SchedStep &st = gR.sched.steps[h];
  Text t;
  t.str("racepredict replay: [").num(h + 1).str("/").num(gR.sched.numSteps);
  t.str("] ").str(st.desc).str("\n");
  writeAll(2, t.data, t.len);
}

} // namespace racepredict::rt
