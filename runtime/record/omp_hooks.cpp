//===- record/omp_hooks.cpp - OpenMP (libomp) as synchronisation ----------===//
//
// Programs built with -fopenmp run their parallel regions on libomp's own
// threads, which libomp creates with pthread_create (recorded: fork/begin)
// and synchronises with its own futex and spin barriers, which no hook
// sees. The recorder is an OMPT tool (OpenMP 5.0 §4: libomp calls
// ompt_start_tool, which the executable defines) and records:
//
// - a parallel region's start and end as barrier generations of its team
//   (every member's events before the region's start precede every
//   member's events in it, the master's code before the fork included; all
//   of the region precedes the master's code after the join). The team's
//   barrier key is a number no address can be. libomp reports a worker's
//   passage of the join barrier only when it wakes for the next region, so
//   each member instead waits for the others in a counting barrier of ours
//   when it arrives at the join (and at the start) and records its
//   departure there: the same order, one more barrier per region;
// - every other barrier of the team (`omp barrier`, the implicit barrier of
//   a worksharing construct, libomp's own ones) as a barrier event at its
//   end, when the real barrier has released everyone;
// - critical sections, omp_*_lock and `ordered` as lock sections (the calls
//   are rewritten by the pass: hooks.def, lock_protocol.h);
// - reductions as critical sections: libomp may combine the threads'
//   partial results inside its barrier code (the tree method) where nothing
//   is recorded, so __kmpc_reduce* here always take the reduction's
//   critical section and return 1 (each thread combines its own part, as
//   libomp's critical method does; the OpenMP specification leaves the
//   method to the implementation).
//
// The pthread calls libomp makes for itself (its suspend mutexes and
// condition variables, whose use depends on timing) are not recorded
// (interpose.c asks __racepredict_from_openmp); tasks are not modelled
// (docs/recording.md).
//
#include "lock_protocol.h"
#include "ompt_abi.h"
#include "real.h"

#include "../common/raw_io.h"

#include "racepredict/abi/runtime.h"

#include <dlfcn.h>
#include <link.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

/// A team (one instance of a parallel region).
struct Team {
  uint64_t key;        ///< its barrier key (kTeamTag | a counter)
  const void *forkRa;  ///< where the master returns from the fork
  uint32_t forkLoc;    ///< the source location of the fork
  uint32_t size;       ///< members (the implicit tasks' parallelism)
  uint32_t arrived;    ///< in the counting barrier's open generation
  uint32_t generation; ///< futex word of the counting barrier
  Team *nextFree;
};
/// "OMP" above the 47-bit user address space: never a barrier's address.
constexpr uint64_t kTeamTag = 0x4f4d50ull << 40;
uint64_t gTeams;
Team *gFreeTeams;
volatile uint32_t gTeamLock;

Team *newTeam(const void *forkRa) {
  spinLock(&gTeamLock);
  Team *t = gFreeTeams;
  if (t)
    gFreeTeams = t->nextFree;
  uint64_t n = ++gTeams;
  spinUnlock(&gTeamLock);
  if (!t)
    t = static_cast<Team *>(rawAlloc(sizeof(Team)));
  *t = Team{kTeamTag | n, forkRa, 0, 0, 0, 0, nullptr};
  return t;
}

void freeTeam(Team *t) {
  spinLock(&gTeamLock);
  t->nextFree = gFreeTeams;
  gFreeTeams = t;
  spinUnlock(&gTeamLock);
}

/// The teams this thread's implicit tasks belong to, innermost last.
constexpr int kMaxNesting = 16;
RP_TLS Team *tlsTeams[kMaxNesting];
RP_TLS int tlsDepth;
/// The location of the __kmpc_barrier call this thread is in (0: none).
RP_TLS uint32_t tlsBarrierLoc;

Team *currentTeam() {
  int d = tlsDepth;
  return d > 0 && d <= kMaxNesting ? tlsTeams[d - 1] : nullptr;
}

void *barrierObj(const Team *t) { return reinterpret_cast<void *>(t->key); }

/// Records this thread's departure from a generation of the team's barrier.
void recordDeparture(const Team *t, uint32_t loc) {
  uint64_t ops[2] = {t->key, t->size};
  recordSync(RP_BARRIER, loc, ops, 2);
}

/// Waits until every member of `t` has arrived (a generation-counting
/// barrier on a futex), then records the departure.
void teamBarrier(Team *t, uint32_t loc) {
  if (RP_UNLIKELY(gReplayOn))
    replayBarrierArrive(static_cast<pthread_barrier_t *>(barrierObj(t)), loc);
  else
    beforeBlocking();
  uint32_t gen = __atomic_load_n(&t->generation, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(&t->arrived, 1, __ATOMIC_ACQ_REL) == t->size) {
    __atomic_store_n(&t->arrived, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->generation, gen + 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &t->generation, FUTEX_WAKE_PRIVATE, 0x7fffffff, nullptr,
            nullptr, 0);
  } else {
    while (__atomic_load_n(&t->generation, __ATOMIC_ACQUIRE) == gen)
      syscall(SYS_futex, &t->generation, FUTEX_WAIT_PRIVATE, gen, nullptr,
              nullptr, 0);
  }
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  recordDeparture(t, loc);
}

// --- OMPT callbacks --------------------------------------------------------

void onParallelBegin(ompt_data_t *, const ompt_frame_t *, ompt_data_t *region,
                     unsigned, int, const void *codeptr) {
  region->ptr = newTeam(codeptr);
}

void onParallelEnd(ompt_data_t *region, ompt_data_t *, int, const void *) {
  // Every member has passed the join barrier: none is in teamBarrier.
  if (region->ptr)
    freeTeam(static_cast<Team *>(region->ptr));
  region->ptr = nullptr;
}

void onImplicitTask(int endpoint, ompt_data_t *region, ompt_data_t *,
                    unsigned size, unsigned index, int flags) {
  if (flags & ompt_task_initial)
    return;
  if (endpoint == ompt_scope_end) {
    if (tlsDepth > 0)
      --tlsDepth;
    return;
  }
  Team *t = region ? static_cast<Team *>(region->ptr) : nullptr;
  if (tlsDepth < kMaxNesting)
    tlsTeams[tlsDepth] = t;
  ++tlsDepth;
  // libomp calls the region's code: it has no instrumented call site (a
  // worker's slot may still hold one of its previous region).
  uint32_t site = __racepredict_callsite;
  __racepredict_callsite = 0;
  if (!t || size < 2)
    return;
  __atomic_store_n(&t->size, size, __ATOMIC_RELAXED); // the same for all
  if (index == 0)
    t->forkLoc = site; // the master's: where it forked the team
  teamBarrier(t, index == 0 ? site : 0);
}

bool isBarrier(int kind) {
  return kind == ompt_sync_region_barrier ||
         kind == ompt_sync_region_barrier_implicit ||
         kind == ompt_sync_region_barrier_explicit ||
         kind == ompt_sync_region_barrier_implementation ||
         kind == ompt_sync_region_barrier_implicit_workshare ||
         kind == ompt_sync_region_barrier_implicit_parallel;
}

void onSyncRegion(int kind, int endpoint, ompt_data_t *region, ompt_data_t *,
                  const void *codeptr) {
  if (!isBarrier(kind))
    return; // taskwait, taskgroup: tasks are not modelled
  Team *t = region ? static_cast<Team *>(region->ptr) : nullptr;
  if (endpoint == ompt_scope_begin) {
    if (!t || t->size < 2)
      return;
    // The join barrier: libomp 14 calls it "implicit" like a worksharing
    // construct's, but reports no code address for a worker and the
    // fork's for the master.
    bool join = (kind == ompt_sync_region_barrier_implicit ||
                 kind == ompt_sync_region_barrier_implicit_parallel) &&
                (!codeptr || codeptr == t->forkRa);
    if (join)
      teamBarrier(t, codeptr ? t->forkLoc : 0);
    else if (RP_UNLIKELY(gReplayOn))
      replayBarrierArrive(static_cast<pthread_barrier_t *>(barrierObj(t)),
                          tlsBarrierLoc);
    else
      beforeBlocking();
    return;
  }
  // The end: a join barrier's reports no team (a worker's comes only at the
  // next region); every other barrier has released the whole team.
  if (!t || t->size < 2)
    return;
  if (RP_UNLIKELY(gReplayOn))
    replayAfterBlocking();
  recordDeparture(t, tlsBarrierLoc);
}

int onInitialize(ompt_function_lookup_t lookup, int, ompt_data_t *) {
  auto set = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (!set)
    return 0;
  set(ompt_callback_parallel_begin,
      reinterpret_cast<ompt_callback_t>(onParallelBegin));
  set(ompt_callback_parallel_end,
      reinterpret_cast<ompt_callback_t>(onParallelEnd));
  set(ompt_callback_implicit_task,
      reinterpret_cast<ompt_callback_t>(onImplicitTask));
  if (set(ompt_callback_sync_region,
          reinterpret_cast<ompt_callback_t>(onSyncRegion)) == ompt_set_never)
    report("this OpenMP runtime reports no barriers: races across them "
           "will be predicted");
  return 1; // keep the tool
}

void onFinalize(ompt_data_t *) {}

// --- libomp's own pthread calls ----------------------------------------------

/// libomp's executable segments, found once.
struct CodeRange {
  uintptr_t lo, hi;
};
constexpr int kMaxRanges = 4;
CodeRange gOmpCode[kMaxRanges];
int gOmpRanges; // set when libomp starts the tool

int findOmpCode(struct dl_phdr_info *info, size_t, void *base) {
  if (info->dlpi_addr != reinterpret_cast<uintptr_t>(base))
    return 0;
  int n = 0;
  for (int i = 0; i < info->dlpi_phnum && n < kMaxRanges; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      gOmpCode[n++] = {info->dlpi_addr + ph.p_vaddr,
                       info->dlpi_addr + ph.p_vaddr + ph.p_memsz};
  }
  return n;
}

void lookUpOmpCode() {
  int n = 0;
  Dl_info info;
  void *fn = dlsym(RTLD_DEFAULT, "__kmpc_fork_call");
  if (fn && dladdr(fn, &info) && info.dli_fbase)
    n = dl_iterate_phdr(findOmpCode, info.dli_fbase);
  __atomic_store_n(&gOmpRanges, n, __ATOMIC_RELEASE);
}

/// Enters a critical section (`enter` calls libomp; it has no try form):
/// blocks without the token, the acquisition recorded late
/// (lock_protocol.h).
template <typename F> void enterCritical(void *crit, uint32_t loc, F enter) {
  if (RP_UNLIKELY(gReplayOn))
    preBlock(crit, RP_ACQUIRE, loc, true);
  else
    beforeBlocking();
  enter();
  acquiredLate(postBlock(0), RP_ACQUIRE, crit, loc);
}

/// omp_set_lock and the nest form: tried with the test form first (it
/// returns the new nesting, 0 when the lock is taken), lock_protocol.h.
template <typename Set, typename Test>
void setLock(void *l, Set set, Test test, uint32_t loc) {
  acquire(
      l, [test](void *x) { return test(x) > 0 ? 0 : EBUSY; },
      [set](void *x) {
        set(x);
        return 0;
      },
      RP_ACQUIRE, true, loc);
}

/// omp_test_lock and the nest form: what the real call returned.
template <typename Test> int testLock(void *l, Test test, uint32_t loc) {
  int r = 0;
  tryAcquire(
      l,
      [&](void *x) {
        r = test(x);
        return r > 0 ? 0 : EBUSY;
      },
      kTryAcquire, loc);
  return r;
}

template <typename Unset> void unsetLock(void *l, Unset unset, uint32_t loc) {
  callRecorded(
      l,
      [unset](void *x) {
        unset(x);
        return 0;
      },
      RP_RELEASE, loc);
}

/// The key of the lock that orders `ordered` regions of this thread's team.
void *orderedLock() {
  Team *t = currentTeam();
  return reinterpret_cast<void *>(t ? t->key : kTeamTag);
}

} // namespace
} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" {

ompt_start_tool_result_t *ompt_start_tool(unsigned int, const char *) {
  static ompt_start_tool_result_t tool = {onInitialize, onFinalize, {0}};
  // libomp is initialising on this thread, before it starts any other.
  lookUpOmpCode();
  return &tool;
}

int __racepredict_from_openmp(const void *ra) {
  int n = __atomic_load_n(&gOmpRanges, __ATOMIC_ACQUIRE);
  auto a = reinterpret_cast<uintptr_t>(ra);
  for (int i = 0; i < n; ++i)
    if (a >= gOmpCode[i].lo && a < gOmpCode[i].hi)
      return 1;
  return 0;
}

// --- critical sections, reductions, ordered ---------------------------------

void __racepredict___kmpc_critical(void *ident, int32_t gtid, void *crit,
                                   uint32_t loc) {
  enterCritical(crit, loc, [&] { real___kmpc_critical()(ident, gtid, crit); });
}

void __racepredict___kmpc_critical_with_hint(void *ident, int32_t gtid,
                                             void *crit, uint32_t hint,
                                             uint32_t loc) {
  enterCritical(crit, loc, [&] {
    real___kmpc_critical_with_hint()(ident, gtid, crit, hint);
  });
}

void __racepredict___kmpc_end_critical(void *ident, int32_t gtid, void *crit,
                                       uint32_t loc) {
  callRecorded(
      crit,
      [&](void *c) {
        real___kmpc_end_critical()(ident, gtid, c);
        return 0;
      },
      RP_RELEASE, loc);
}

int32_t __racepredict___kmpc_reduce_nowait(void *ident, int32_t gtid, int32_t,
                                           uint64_t, void *, void *, void *lck,
                                           uint32_t loc) {
  __racepredict___kmpc_critical(ident, gtid, lck, loc);
  return 1;
}

void __racepredict___kmpc_end_reduce_nowait(void *ident, int32_t gtid,
                                            void *lck, uint32_t loc) {
  __racepredict___kmpc_end_critical(ident, gtid, lck, loc);
}

int32_t __racepredict___kmpc_reduce(void *ident, int32_t gtid, int32_t nvars,
                                    uint64_t size, void *data, void *fn,
                                    void *lck, uint32_t loc) {
  return __racepredict___kmpc_reduce_nowait(ident, gtid, nvars, size, data, fn,
                                            lck, loc);
}

void __racepredict___kmpc_barrier(void *ident, int32_t gtid, uint32_t loc) {
  uint32_t saved = tlsBarrierLoc;
  tlsBarrierLoc = loc;
  real___kmpc_barrier()(ident, gtid);
  tlsBarrierLoc = saved;
}

void __racepredict___kmpc_end_reduce(void *ident, int32_t gtid, void *lck,
                                     uint32_t loc) {
  // The blocking form: everyone has combined before anyone goes on.
  __racepredict___kmpc_end_critical(ident, gtid, lck, loc);
  __racepredict___kmpc_barrier(ident, gtid, loc);
}

void __racepredict___kmpc_ordered(void *ident, int32_t gtid, uint32_t loc) {
  enterCritical(orderedLock(), loc,
                [&] { real___kmpc_ordered()(ident, gtid); });
}

void __racepredict___kmpc_end_ordered(void *ident, int32_t gtid, uint32_t loc) {
  callRecorded(
      orderedLock(),
      [&](void *) {
        real___kmpc_end_ordered()(ident, gtid);
        return 0;
      },
      RP_RELEASE, loc);
}

// --- omp_lock_t, omp_nest_lock_t --------------------------------------------
// A nest lock is a recursive lock: every nested set and unset is an acquire
// and a release of it (the model lets a holder re-acquire).

void __racepredict_omp_set_lock(void *l, uint32_t loc) {
  setLock(l, real_omp_set_lock(), real_omp_test_lock(), loc);
}

void __racepredict_omp_set_nest_lock(void *l, uint32_t loc) {
  setLock(l, real_omp_set_nest_lock(), real_omp_test_nest_lock(), loc);
}

int __racepredict_omp_test_lock(void *l, uint32_t loc) {
  return testLock(l, real_omp_test_lock(), loc);
}

int __racepredict_omp_test_nest_lock(void *l, uint32_t loc) {
  return testLock(l, real_omp_test_nest_lock(), loc); // the new nesting
}

void __racepredict_omp_unset_lock(void *l, uint32_t loc) {
  unsetLock(l, real_omp_unset_lock(), loc);
}

void __racepredict_omp_unset_nest_lock(void *l, uint32_t loc) {
  unsetLock(l, real_omp_unset_nest_lock(), loc);
}

} // extern "C"
