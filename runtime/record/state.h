//===- record/state.h - Recorder state: threads, tickets, stripes --------===//
//
// The recorder's consistency protocol (docs/recording.md, format v3):
//   * memory accesses are ordered per stripe (a 64-byte line of the address
//     space, hashed into 2^RP_STRIPE_BITS version words): a write, RMW or
//     first-seen read locks the version word (odd), performs the access and
//     bumps it to the next even value; an ordinary read is optimistic (a
//     seqlock read: version, value, version again) and writes nothing
//     shared. Each access records its place in its stripe's order;
//   * synchronisation events take a global ticket `seq` (acquire-like after
//     the real operation succeeded, release-like before it);
//   * the reader merges the threads' records by a topological sort of
//     program order, stripe order and ticket order (binary_merge.cpp).
// Events are varint-encoded straight into a per-thread buffer (format.h).
//
#pragma once

#include "racepredict/trace/format.h"

#include "../common/options.h"
#include "../replay/replay.h"

#include <stddef.h>
#include <stdint.h>

#define RP_TLS __attribute__((tls_model("initial-exec"))) __thread
#define RP_LIKELY(x) __builtin_expect(!!(x), 1)
#define RP_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace racepredict::rt {

/// Call-stack frames kept per thread; deeper frames are counted, not shown.
inline constexpr uint32_t kMaxFrames = 64;
/// Worst-case size of one record: a branch with 8 dependences (kind + 11
/// varints of 10 bytes; everything else is below 64), plus the stack record
/// that may precede it (kind + 2 varints + kMaxFrames call sites of 5 bytes).
inline constexpr uint32_t kMaxRecord = 128 + 24 + kMaxFrames * 5;

struct ThreadState {
  uint8_t *buf;       ///< records of the current block (without its header)
  uint32_t cap;       ///< bytes in buf
  uint32_t len;       ///< committed bytes
  uint64_t firstSeq;  ///< seq of the block's first ticketed record
  uint64_t lastSeq;   ///< seq of the block's last ticketed record
  bool seqBased;      ///< the block's firstSeq has been set
  uint64_t prevOrder; ///< stripe-order field of the block's previous access
  uint32_t count;     ///< committed records in the block
  /// len | count << 32, published together so that the exit flusher never
  /// pairs a byte length with the record count of another moment.
  uint64_t published;
  /// Records written but not yet committed (a stack record before its event).
  uint32_t pending;
  uint64_t prevLoc; ///< location key of the block's previous record (v2 delta)
  uint32_t key;     ///< thread key: 0 = main, then creation ordinals
  /// 1 while the thread is inside a recording hook; the exit flusher waits
  /// for 0 so it never copies a half-written buffer.
  volatile uint32_t inHook;
  /// A read (or failed trylock) was recorded since the last branch; a branch
  /// with none adds no constraint under the plain rule and is dropped.
  bool readsSinceBranch;
  bool ended;
  /// Index (1-based, among this thread's event records) of the latest load
  /// hook's record, 0 if it was not recorded (branch_deps).
  uint64_t lastReadSeq;
  uint64_t events; ///< event records written by this thread
  /// Shadow call stack (func_enter/func_exit): the call site of each frame.
  /// depth may exceed kMaxFrames (deep recursion); only the outermost
  /// kMaxFrames frames are kept. The trace knows the stack as traceDepth
  /// frames whose first `synced` equal frames[0..synced).
  uint32_t frames[kMaxFrames];
  uint32_t depth;
  uint32_t synced;
  uint32_t traceDepth;
  ThreadState *next;
  // Replay mode (docs/replay.md): the schedule thread this thread is
  // (slot + 1, 0 = none), its next event's ordinal (alloc/free excluded)
  // and how many threads it has created (its children's creation paths).
  uint32_t replaySlot;
  uint32_t ordinal;
  uint32_t children;
};

struct Globals {
  Options opts;
  bool initialized;
  int fd;
  uint32_t srcCount;    ///< source ids handed out to modules
  ThreadState *threads; ///< all thread states (push-only list)
  uint32_t nextThreadKey;
  volatile uint32_t stopping; ///< set at exit: no further recording
  volatile uint32_t fileLock;
  volatile uint32_t initLock;
  volatile uint32_t srcLock;
  bool finished;
  char traceName[512];
};

extern Globals g;
/// The ticket counter, alone on its cache line.
extern uint64_t gSeq;
extern RP_TLS ThreadState *tlsState;

// --- spin locks (futex-free: held for a handful of instructions) ---------
void spinSlow(volatile uint32_t *l);
inline void spinLock(volatile uint32_t *l) {
  if (RP_UNLIKELY(__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)))
    spinSlow(l);
}
inline void spinUnlock(volatile uint32_t *l) {
  __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/// Striped spin locks for synchronisation objects (trylock, unlock and
/// timed-lock retries), one cache line each.
inline constexpr unsigned kStripeBits = 12;
struct alignas(64) Stripe {
  volatile uint32_t lock;
};
extern Stripe gStripes[1u << kStripeBits];
inline volatile uint32_t *stripeFor(uintptr_t addr) {
  return &gStripes[static_cast<uint32_t>(addr >> 3) & ((1u << kStripeBits) - 1)]
              .lock;
}

/// Memory-access stripes: one version word per stripe (format.h
/// RP_STRIPE_*: a 64-byte line of the address space, modulo 2^16 lines). An
/// even version v means free with v/2 exclusive accesses done; odd means an
/// exclusive access is in progress. Neighbouring lines use neighbouring
/// words, so threads working on different lines rarely share a word's line
/// and a program's own false sharing is not made worse.
extern uint64_t gVersions[1u << RP_STRIPE_BITS];
inline uint64_t *versionFor(uintptr_t addr) {
  return &gVersions[(addr >> RP_STRIPE_SHIFT) & ((1u << RP_STRIPE_BITS) - 1)];
}
/// True when [addr, addr + size) lies in one stripe line.
inline bool inOneLine(uintptr_t addr, unsigned size) {
  return ((addr ^ (addr + size - 1)) >> RP_STRIPE_SHIFT) == 0;
}
uint64_t lockVersionSlow(uint64_t *w);
/// Locks a stripe for an exclusive access; returns the even version found.
inline uint64_t lockVersion(uint64_t *w) {
  uint64_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
  if (RP_LIKELY(!(v & 1)) &&
      __atomic_compare_exchange_n(w, &v, v + 1, false, __ATOMIC_ACQUIRE,
                                  __ATOMIC_RELAXED))
    return v;
  return lockVersionSlow(w);
}
inline void unlockVersion(uint64_t *w, uint64_t v) {
  __atomic_store_n(w, v + 2, __ATOMIC_RELEASE);
}
/// The stripe-order field of an access (format.h): an exclusive access that
/// found version v is exclusive access number v/2 + 1 (field v + 2); a
/// shared read that saw v comes after v/2 exclusive ones (field v + 1).
inline uint64_t exclusiveField(uint64_t v) { return v + 2; }
inline uint64_t sharedField(uint64_t v) { return v + 1; }

/// Shadow of the last recorded value per address, to notice writes the
/// trace cannot show (uninstrumented code, the kernel, calloc). A
/// set-associative cache indexed by the granule's low bits (2^20 sets of
/// kShadowWays slots, 96 MB of address space): neighbouring granules have
/// neighbouring sets, so the pages touched grow with the program's working
/// set (about 12 bytes of shadow per byte accessed), as TSan's shadow does.
/// A set's low bits are its stripe, so a slot is only touched under its
/// stripe's version lock; optimistic reads only look (shadowHit) and are
/// validated by the version.
inline constexpr unsigned kShadowSetBits = 20;
inline constexpr unsigned kShadowWays = 4;
inline constexpr size_t kShadowSlots =
    (size_t{1} << kShadowSetBits) * kShadowWays;
static_assert(kShadowSetBits >= RP_STRIPE_BITS + RP_STRIPE_SHIFT - 3,
              "a set must map to one stripe");
struct ShadowSlot {
  uint64_t tag; ///< addr | size << 48; 0 = empty
  uint64_t raw; ///< last recorded value, zero-extended
  uint64_t key; ///< the address's current location key (0 = the address)
};
/// Per set: the next way to evict (low bits), whether the set holds any
/// slot (kSetUsed) and whether it has ever evicted one (bit 7): then a miss
/// may be an address seen before.
inline constexpr uint8_t kSetUsed = 0x40;
extern ShadowSlot *gShadow;
extern uint8_t *gShadowMeta;
/// Fresh location keys for renamed addresses (bit 63 set, never reused).
uint64_t freshKey(uintptr_t addr);
/// Without the lock: true when the shadow holds `addr` with this size and
/// value, so that an observing access changes nothing; *k is then its key.
inline size_t shadowSet(uintptr_t addr) {
  return (addr >> 3) & ((size_t{1} << kShadowSetBits) - 1);
}
inline uint64_t shadowTag(uintptr_t addr, unsigned size) {
  return addr | static_cast<uint64_t>(size) << 48;
}
inline bool shadowHit(uintptr_t addr, unsigned size, uint64_t raw,
                      uint64_t *k) {
  size_t set = shadowSet(addr);
  if (!(gShadowMeta[set] & kSetUsed))
    return false; // never read the slots of an unused set (see locationKey)
  const ShadowSlot *ways = &gShadow[set * kShadowWays];
  uint64_t tag = shadowTag(addr, size);
  for (unsigned w = 0; w < kShadowWays; ++w)
    if (ways[w].tag == tag) {
      if (ways[w].raw != raw)
        return false;
      *k = ways[w].key ? ways[w].key : addr;
      return true;
    }
  return false;
}
/// Under the stripe lock of `addr`: the location key to record. When an
/// observing access finds a value other than the last recorded one, the
/// address is *renamed* to a fresh key: the read then starts a new location
/// under the first-read rule and the trace stays consistent; only pairs
/// across the hidden write are not compared (docs/recording.md). An
/// observing access that misses in a set that has evicted before cannot
/// know the last recorded value: it renames too (sound: it can only hide
/// races, never make a read disagree with the trace).
inline uint64_t locationKey(uintptr_t addr, unsigned size, uint64_t raw,
                            bool observes) {
  size_t set = shadowSet(addr);
  ShadowSlot *ways = &gShadow[set * kShadowWays];
  uint64_t tag = shadowTag(addr, size);
  if (!(gShadowMeta[set] & kSetUsed)) {
    // The set's first slot: written without reading the page first. A read
    // would map the shared zero page and the write then copy it, which in a
    // multi-threaded process flushes every core's TLB (an IPI per page).
    gShadowMeta[set] |= kSetUsed;
    ways[0] = {tag, raw, 0};
    return addr;
  }
  ShadowSlot *s = nullptr;
  for (unsigned w = 0; w < kShadowWays; ++w)
    if (ways[w].tag && (ways[w].tag & 0xFFFFFFFFFFFFull) == addr) {
      s = &ways[w];
      break;
    }
  uint64_t k = 0;
  if (s) {
    k = s->key;
    if (observes && (s->tag >> 48) == size && s->raw != raw)
      k = freshKey(addr);
  } else {
    uint8_t &meta = gShadowMeta[set];
    for (unsigned w = 0; w < kShadowWays && !s; ++w)
      if (!ways[w].tag)
        s = &ways[w];
    if (!s) {
      s = &ways[meta & (kShadowWays - 1)];
      meta = static_cast<uint8_t>(((meta + 1) & (kShadowWays - 1)) | 0x80 |
                                  kSetUsed);
    }
    if (observes && (meta & 0x80))
      k = freshKey(addr);
  }
  s->tag = tag;
  s->raw = raw;
  s->key = k;
  return k ? k : addr;
}

/// A ticket-only record (format.h RP_MARK): orders the thread's earlier
/// accesses before every later ticket, at a moment that records no event
/// (a condition wait's release half, a barrier arrival).
void recordMark();

inline uint64_t takeSeq() {
  return __atomic_fetch_add(&gSeq, 1, __ATOMIC_SEQ_CST);
}

/// The thread state to record with, or null when this event must not be
/// recorded (runtime not initialised, category disabled, re-entered from a
/// hook or a signal handler). On success inHook is 1: call leave().
ThreadState *attachSlow();
inline ThreadState *enter(uint32_t category) {
  ThreadState *ts = tlsState;
  if (RP_UNLIKELY(!ts)) {
    ts = attachSlow();
    if (!ts)
      return nullptr;
  }
  if (RP_UNLIKELY(ts->inHook || !(g.opts.eventMask & category) || ts->ended))
    return nullptr;
  ts->inHook = 1;
  // No fence: an optimistic read takes no locked instruction, so its
  // stopped() check may pass the inHook store. That only loses a record
  // written after the flusher's snapshot of `published`; the one step that
  // must not overlap the flusher, flushThread, fences first (leave()).
  // Replay: wait for this event's turn before the hook takes any lock.
  if (RP_UNLIKELY(gReplayOn))
    replayGate(ts);
  return ts;
}
/// True when the exit flusher has started: the event must be dropped.
inline bool stopped() {
  return RP_UNLIKELY(__atomic_load_n(&g.stopping, __ATOMIC_SEQ_CST) != 0);
}
void flushThread(ThreadState *ts);
/// Flushes the buffer when fewer than `room` bytes are left, unless the
/// exit flusher has started.
inline void flushIfFull(ThreadState *ts, uint32_t room) {
  if (RP_UNLIKELY(ts->len + room > ts->cap)) {
    // Dekker with finishTrace: inHook = 1, fence, read g.stopping.
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!stopped())
      flushThread(ts);
  }
}
inline void leave(ThreadState *ts) {
  flushIfFull(ts, kMaxRecord);
  __atomic_store_n(&ts->inHook, 0, __ATOMIC_RELEASE);
}

// --- record encoding ------------------------------------------------------
inline uint8_t *putVarint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}
inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

/// Writes a stack record bringing the trace's view of the call stack up to
/// date (format.h, RP_STACK); the event record follows it.
uint8_t *putStackRecord(ThreadState *ts, uint8_t *p);
inline uint32_t shownDepth(const ThreadState *ts) {
  return ts->depth < kMaxFrames ? ts->depth : kMaxFrames;
}

/// Starts a record of `kind` (code byte plus RP_HAS_SRC) and the stack
/// record that must precede it; returns the write cursor.
inline uint8_t *beginCode(ThreadState *ts, unsigned kind, uint32_t loc) {
  uint8_t *p = ts->buf + ts->len;
  if (RP_UNLIKELY(ts->synced != ts->traceDepth || ts->synced != shownDepth(ts)))
    p = putStackRecord(ts, p);
  *p++ = static_cast<uint8_t>(kind | (loc ? RP_HAS_SRC : 0));
  return p;
}
/// Appends a ticket as the delta from the block's previous one.
inline uint8_t *putSeq(ThreadState *ts, uint8_t *p, uint64_t seq) {
  if (!ts->seqBased)
    ts->firstSeq = seq, ts->lastSeq = seq - 1, ts->seqBased = true;
  p = putVarint(p, seq - ts->lastSeq - 1);
  ts->lastSeq = seq;
  return p;
}
/// Starts a ticketed record of `kind` with ticket `seq`.
inline uint8_t *beginRecord(ThreadState *ts, uint64_t seq, unsigned kind,
                            uint32_t loc) {
  return putSeq(ts, beginCode(ts, kind, loc), seq);
}
/// Appends the source id and publishes the record to the exit flusher.
/// Commits the records written up to `p` (`records` of them) and
/// publishes them to the exit flusher.
inline void publishRecords(ThreadState *ts, uint8_t *p, uint32_t records) {
  ts->count += records;
  ts->len = static_cast<uint32_t>(p - ts->buf);
  __atomic_store_n(&ts->published,
                   uint64_t{ts->len} | uint64_t{ts->count} << 32,
                   __ATOMIC_RELEASE);
}
inline void endRecord(ThreadState *ts, uint8_t *p, uint32_t loc) {
  if (loc)
    p = putVarint(p, loc);
  publishRecords(ts, p, 1 + ts->pending);
  ts->pending = 0;
  ++ts->events;
}

/// v2 size codes of access records (format.h).
inline unsigned sizeCode(unsigned size) {
  return size == 1   ? RP_SIZE_1
         : size == 4 ? RP_SIZE_4
         : size == 8 ? RP_SIZE_8
                     : RP_SIZE_VARINT;
}
/// Appends a location key as the delta from the block's previous one.
inline uint8_t *putLocation(ThreadState *ts, uint8_t *p, uint64_t lkey) {
  p = putVarint(p, zigzag(static_cast<int64_t>(lkey - ts->prevLoc)));
  ts->prevLoc = lkey;
  return p;
}
/// Starts an access record: code with size code, stripe-order field (as
/// the delta from the block's previous one), location, [size].
inline uint8_t *beginAccess(ThreadState *ts, uint64_t order, unsigned kind,
                            uint64_t lkey, unsigned size, uint32_t loc) {
  unsigned sc = sizeCode(size);
  uint8_t *p = beginCode(ts, kind | sc << RP_SIZE_SHIFT, loc);
  p = putVarint(p, zigzag(static_cast<int64_t>(order - ts->prevOrder)));
  ts->prevOrder = order;
  p = putLocation(ts, p, lkey);
  if (sc == RP_SIZE_VARINT)
    p = putVarint(p, size);
  return p;
}

/// Records an event whose operands are `n` varints (sync events).
void recordSimple(ThreadState *ts, uint64_t seq, unsigned kind, uint32_t loc,
                  const uint64_t *ops, int n);
/// Records an alloc/free of `size` bytes at location `lkey`.
void recordBlockEvent(ThreadState *ts, uint64_t seq, unsigned kind,
                      uint64_t lkey, uint64_t size, uint32_t loc);
/// Takes a ticket and records a sync event, unless stopping.
void recordSync(unsigned kind, uint32_t loc, const uint64_t *ops, int n,
                uint32_t category = kRecSync);
inline uint64_t key(const void *p) { return reinterpret_cast<uintptr_t>(p); }

/// Like enter() but never attaches a new thread (allocation hooks run inside
/// glibc's thread start-up, before the trampoline has set up its state).
inline ThreadState *enterAttached(uint32_t category) {
  ThreadState *ts = tlsState;
  if (!ts || ts->inHook || !(g.opts.eventMask & category) || ts->ended)
    return nullptr;
  ts->inHook = 1;
#if !defined(__x86_64__) && !defined(__i386__)
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
  return ts;
}

/// Marks the read just recorded for the plain-branch filter and
/// branch_deps (which name it by its index among the thread's events).
inline void noteRead(ThreadState *ts) {
  ts->readsSinceBranch = true;
  ts->lastReadSeq = ts->events;
}

// --- lifecycle (trace_writer.cpp, init.cpp) -------------------------------
/// Initialises the runtime once (options, trace file, main thread, exit
/// handlers); false while initialisation is in progress on this thread.
bool ensureInit();
void openTrace();
void writeBlock(uint8_t type, const uint8_t *payload, uint32_t len);
/// Exit / fatal-signal path: stops recording, writes every buffer and END.
void finishTrace(bool fromSignal);
ThreadState *newThreadState(uint32_t threadKey);
void installExitHandlers();
/// Thread lifecycle events shared by pthread_exit and the start trampoline.
void threadEnd(ThreadState *ts);

} // namespace racepredict::rt
