//===- record/branch_hooks.cpp - Conditional branches and their reads -----===//
//
// A branch is recorded plain (it depends on every earlier read of its
// thread) or with the seqs of the reads it depends on (docs/dependences.md);
// one that adds nothing to what the thread's recorded branches already
// require is not recorded.
//
#include "access_record.h"

#include "racepredict/abi/runtime.h"

namespace racepredict::rt {

void plainBranch(ThreadState *ts, uint32_t loc) {
  // A plain branch with no read since the previous plain branch adds no
  // constraint (its dependences are a subset of that branch's): drop it.
  if (!ts->readsSinceBranch)
    return;
  if (stopped())
    return;
  if (RP_UNLIKELY(gReplayOn))
    replayCommit(ts, RP_BRANCH, loc, nullptr, 0, 0, 0);
  ts->plainSeq = ts->nextSeq;
  uint8_t *p = beginCode(ts, RP_BRANCH, loc);
  p = putVarint(p, 0);
  endRecord(ts, p, loc);
  ts->readsSinceBranch = false;
}

namespace {

/// True when a branch on exactly these reads adds nothing to what the
/// thread's recorded branches already require (the model makes every event
/// depend on all earlier branches of its thread, docs/semantics.md): each
/// read comes before the last recorded plain branch, which depends on all
/// of them, or the set is the previous precise branch's. Only this thread's
/// own seqs are compared, so a replay decides the same.
bool branchCovered(ThreadState *ts, uint64_t *deps, uint32_t m) {
  bool beforePlain = true;
  for (uint32_t k = 0; k < m; ++k)
    beforePlain &= deps[k] < ts->plainSeq;
  if (beforePlain)
    return true;
  // Sorted, so that the same set compares equal whatever the order.
  for (uint32_t k = 1; k < m; ++k)
    for (uint32_t j = k; j > 0 && deps[j - 1] > deps[j]; --j) {
      uint64_t t = deps[j];
      deps[j] = deps[j - 1];
      deps[j - 1] = t;
    }
  bool same = m == ts->prevDepCount;
  for (uint32_t k = 0; k < m && same; ++k)
    same = deps[k] == ts->prevDeps[k];
  return same;
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

void __racepredict_branch(uint32_t loc) {
  // The common case of a loop: no read since the last plain branch, which
  // plainBranch would drop anyway; decided before enter()'s bookkeeping.
  if (tlsState && !tlsState->readsSinceBranch)
    return;
  ThreadState *ts = enter(kRecBranch);
  if (!ts)
    return;
  plainBranch(ts, loc);
  leave(ts);
}

void __racepredict_branch_private(uint32_t loc) {
  if (RP_LIKELY(!g.opts.plainBranches))
    return;
  ThreadState *ts = enter(kRecBranch);
  if (!ts)
    return;
  plainBranch(ts, loc);
  leave(ts);
}

/// branch_deps beyond the fast path: any number of dependences, unrecorded
/// reads, the plain rule, stack records, waiting for the token.
static __attribute__((noinline)) void branchDepsSlow(uint32_t loc, void *seqs,
                                                     uint32_t n) {
  ThreadState *ts = enter(kRecBranch);
  if (!ts)
    return;
  if (g.opts.plainBranches) {
    plainBranch(ts, loc);
    leave(ts);
    return;
  }
  const auto *deps = static_cast<const uint64_t *>(seqs);
  uint64_t uniq[8];
  uint32_t m = 0;
  bool plain = n > 8;
  for (uint32_t i = 0; i < n && !plain; ++i) {
    // A phi of seqs whose path carried no read (BranchDeps.h kNoRead).
    if (deps[i] == ~uint64_t{0})
      continue;
    // A dependence that was not recorded (events= filter, re-entrancy)
    // cannot be named: fall back to the conservative plain rule.
    if (deps[i] == 0)
      plain = true;
    bool dup = false;
    for (uint32_t k = 0; k < m; ++k)
      dup |= uniq[k] == deps[i];
    if (!dup)
      uniq[m++] = deps[i];
  }
  if (plain) {
    plainBranch(ts, loc);
    leave(ts);
    return;
  }
  if (m == 0 || branchCovered(ts, uniq, m)) {
    leave(ts); // decided by control flow alone here, or already required
    return;
  }
  if (!stopped()) {
    ts->prevDepCount = m;
    for (uint32_t k = 0; k < m; ++k)
      ts->prevDeps[k] = uniq[k];
    if (RP_UNLIKELY(gReplayOn))
      replayCommit(ts, RP_BRANCH, loc, nullptr, 0, 0, 0);
    putBranchDeps(ts, beginCode(ts, RP_BRANCH, loc), uniq, m, loc, false);
  }
  leave(ts);
}

void __racepredict_branch_deps(uint32_t loc, void *seqs, uint32_t n) {
  // The common case: one dependence, the fast path's conditions.
  if (n == 1) {
    if (ThreadState *ts = enterFast(kRecBranch)) {
      uint64_t d = *static_cast<const uint64_t *>(seqs);
      if (RP_LIKELY(d != 0)) {
        if (d != ~uint64_t{0} && d >= ts->plainSeq &&
            !(ts->prevDepCount == 1 && ts->prevDeps[0] == d)) {
          ts->prevDepCount = 1;
          ts->prevDeps[0] = d;
          // The stack is in the trace (enterFast): no stack record.
          uint8_t *p = ts->buf + ts->len;
          *p++ = static_cast<uint8_t>(RP_BRANCH | (loc ? RP_HAS_SRC : 0));
          putBranchDeps(ts, p, &d, 1, loc, true);
        }
        __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
        return;
      }
      __atomic_store_n(&ts->inHook, kOutside, __ATOMIC_RELEASE);
    }
  }
  branchDepsSlow(loc, seqs, n);
}

} // extern "C"
