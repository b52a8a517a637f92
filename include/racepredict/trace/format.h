/*===- trace/format.h - Binary trace format (.rptrace), version 4 ---------===*/
/*
 * Shared by the recording runtime (C-compatible, no STL) and the analyser's
 * reader/writer. Everything multi-byte in the header is little-endian; all
 * record fields are LEB128 varints (zigzag for signed values), so a typical
 * access costs 4-8 bytes (DESIGN.md budget: <= 16 bytes/event).
 *
 *   File   := Header Block*
 *   Header := magic[8] = "RPTRACE\0", u16 version, u8 endian (1 = little),
 *             u8 pointer width (bytes), u32 flags (0)              (16 bytes)
 *   Block  := u8 type, u8 pad[3], u32 payload length, payload
 *
 * Block types:
 *   NAMES   { u8 namespace (trace::NameSpace), varint key, varint len, bytes }*
 *           Names raw object keys. Keys without a name are shown as
 *           "t<key>" (threads), as the signed decimal number (custom keys
 *           in [-2^31, 2^32): custom event arguments are recorded values)
 *           or "0x<hex key>" (everything else).
 *   SOURCES { varint id (>= 1), varint len, file, varint line, varint col,
 *             varint len, function, varint inlinedAt (v2) }*
 *           inlinedAt: the source id this location was inlined into, 0 = none.
 *   EVENTS  varint thread key, varint first seq, varint count, Record*count
 *           One per flushed per-thread buffer; blocks of different threads
 *           interleave, blocks of one thread come in its program order.
 *           v1/v2: `seq` is the global observed order: the event's index
 *           in the trace is its rank among all seqs (gaps are allowed).
 *           v3: only synchronisation, alloc/free, custom and mark records
 *           carry a seq (a global ticket); accesses carry their place in
 *           their stripe's order; branches carry neither. The observed order
 *           is a topological order of program order, ticket order and stripe
 *           order (src/trace/binary_merge.cpp; docs/recording.md):
 *           stripe order: per stripe, the access with field f comes after
 *           every access with a smaller field, except that accesses with
 *           the same odd field (shared reads) are unordered among
 *           themselves. The stripe of an access is
 *           (location key >> RP_STRIPE_SHIFT) mod 2^RP_STRIPE_BITS.
 *           v4: every event has a seq again (the global observed order, as
 *           in v1/v2) but no record carries it: an event's seq is the
 *           previous event's of its block + 1, unless a segment record
 *           (below) comes between them. The runtime records while holding
 *           the one recording token (docs/recording.md), so a thread's
 *           events come in runs of consecutive seqs.
 *   INIT    { varint location key, zigzag value }*
 *   GLOBALS (v2) { varint address, varint size, varint len, name }*
 *           Names the location keys inside each global variable: `name` at
 *           its address, `name+OFF` inside it, unless NAMES names the key.
 *   STOP    varint reason (RP_STOP_*), varint value (the signal, the limit
 *           reached, the milliseconds every thread was blocked), varint len,
 *           text (exec: the program and the trace that goes on), varint
 *           count, then per thread blocked when recording stopped (an
 *           observed deadlock): varint thread key, varint kind (the event
 *           the blocking call records: acquire, racquire, join, wait,
 *           semwait, barrier), varint object key (a lock, the joined
 *           thread, the condition, semaphore or barrier), varint source id
 *           (0 = none). Written just before END when the recording stopped
 *           before the program's own end (docs/recording.md); any version.
 *   END     (empty) written on clean shutdown, exit(), abort() and fatal
 *           signals; a file without it was cut (kill -9, disk full) and is
 *           readable up to the last complete record.
 *
 * Record := u8 code, then by kind. code = kind (bits 0-4) | size code (bits
 *           5-6, v2, access records: RP_SIZE_*) | RP_HAS_SRC (bit 7).
 *           v6: bit 5 of a Wait, Acquire, RAcquire, TryFail or SemWait
 *           record is RP_PAST_DEADLINE: a timed call (timed/clock wait,
 *           lock or semaphore wait) that returned after its deadline had
 *           passed (docs/replay.md: replay returns from it only then).
 *           Readers accept it in any version >= 2 (convert writes it in
 *           its v2 layout); no earlier writer set bits 5-6 there.
 *           v7: bit 6 of an Acquire, RAcquire or SemWait record is
 *           RP_TRY_ACQUIRE: a try-acquire that succeeded (trylock,
 *           sem_trywait, omp_test_lock): it orders like an acquire but
 *           never waited, so it is never the blocked request of a
 *           deadlock (docs/semantics.md). Read in any version >= 2, as
 *           bit 5.
 *   Event record: varint seqDelta (seq - previous seq in this block - 1; the
 *           first record's previous seq is firstSeq - 1), fields by kind,
 *           then varint source id if RP_HAS_SRC:
 *           (v3: accesses have zigzag(field - the previous access's field in
 *           this block, 0 at its start) in place of seqDelta, branches have
 *           nothing there; a ticketed record's previous seq is that of the
 *           block's previous ticketed record. v4: no record has seqDelta.)
 *   Begin, End               -
 *   Fork, Join               child thread key
 *   Acquire/Release/RAcquire/TryFail   lock key
 *   Wait                     cond key, lock key, notify seq + 1 (0 = none)
 *   Signal, Broadcast        cond key
 *   Barrier                  barrier key, count
 *   SemInit                  sem key, value;   SemPost, SemWait: sem key
 *   Read/Write/AtomicRead/AtomicWrite   location, [size], zigzag value
 *   AtomicRmw                location, [size], zigzag new, zigzag old
 *   Branch                   ndeps + 1 (0 = plain rule), then per dependence
 *                            (seq - dep seq) of a read of the same thread
 *                            (v3 only: how many events of this thread back)
 *   WriteDeps (code RP_WRITE_DEPS, any version >= 2): a Write whose value
 *                            depends only on the listed reads (issue 20,
 *                            docs/dependences.md): location, [size], zigzag
 *                            value, ndeps, then per dependence (seq - dep
 *                            seq) as for Branch; ndeps = 0: a value computed
 *                            from no read (a constant). Readers before it
 *                            stop at it ("unknown event kind 27").
 *   Alloc, Free              location, size
 *   Custom                   name key, nargs, arg key*   (NameSpace::Custom)
 *   Send, Recv (v5)          channel key, offset, byte count
 *                            (NameSpace::Channel; docs/semantics.md)
 *   v1: `location` is the key and `[size]` is always a varint.
 *   v2: `location` is zigzag(key - the previous location key of this EVENTS
 *       block, 0 at its start): neighbouring accesses cost 1-2 bytes instead
 *       of 6-7 for an address; `[size]` is present only for RP_SIZE_VARINT.
 *   Stack record (v2, code RP_STACK, no seq, no source): varint pops, varint
 *           pushes, then `pushes` call-site source ids, outermost first. It
 *           changes the thread's call stack (carried across its blocks)
 *           before its next event; the runtime writes one only when the
 *           stack changed since the thread's last event.
 *   Mark record (v3, code RP_MARK, no event): varint seqDelta. A ticket
 *           taken where no event is recorded (a condition wait's release
 *           half, a barrier arrival): the thread's earlier events precede
 *           every later ticket.
 *   Segment record (v4, code RP_SEGMENT, no event): varint gap. The next
 *           event's seq is the previous one's + 1 + gap (other threads'
 *           events came between); at a block's start the previous seq is
 *           firstSeq - 1.
 */
#ifndef RACEPREDICT_TRACE_FORMAT_H
#define RACEPREDICT_TRACE_FORMAT_H

#include <stdint.h>

/* Bump when a block or record layout changes; readers accept every version
 * from RP_TRACE_MIN_VERSION and reject others with a message naming both.
 * 2: call stacks (RP_STACK, SOURCES inlinedAt), location deltas, size codes.
 * 3: per-stripe order for accesses, tickets for the rest, marks.
 * 4: implicit consecutive seqs with segment records; no stripes, no marks.
 * 5: send and recv records (fd channels).
 * 6: RP_PAST_DEADLINE on timed synchronisation records.
 * 7: RP_TRY_ACQUIRE on successful try-acquires. */
#define RP_TRACE_VERSION 7
#define RP_TRACE_MIN_VERSION 1
#define RP_TRACE_MAGIC "RPTRACE"
#define RP_HEADER_SIZE 16
#define RP_BLOCK_HEADER_SIZE 8
#define RP_HAS_SRC 0x80
#define RP_KIND_MASK 0x1f
#define RP_SIZE_SHIFT 5
/* Size codes of v2 access records (bits 5-6 of the record code). */
#define RP_SIZE_VARINT 0 /* an explicit size varint follows the location */
#define RP_SIZE_1 1
#define RP_SIZE_4 2
#define RP_SIZE_8 3
/* v6: a timed call returned after its deadline (sync records only). */
#define RP_PAST_DEADLINE 0x20
/* v7: a try-acquire that succeeded (acquire and semwait records only). */
#define RP_TRY_ACQUIRE 0x40
/* The code of a stack record (v2); never an event kind. */
#define RP_STACK 30
/* The code of a mark record (v3); never an event kind. */
#define RP_MARK 29
/* The code of a write record with a dependence list; read as a Write. */
#define RP_WRITE_DEPS 27
/* The code of a segment record (v4); never an event kind. */
#define RP_SEGMENT 28
/* v3 access stripes: 64-byte lines of the address space modulo 2^16. */
#define RP_STRIPE_SHIFT 6
#define RP_STRIPE_BITS 16

enum rp_block_type {
  RP_BLOCK_NAMES = 1,
  RP_BLOCK_SOURCES = 2,
  RP_BLOCK_EVENTS = 3,
  RP_BLOCK_INIT = 4,
  RP_BLOCK_END = 5,
  RP_BLOCK_GLOBALS = 6,
  RP_BLOCK_STOP = 7
};

/* Why a recording stopped early: racepredict::trace::StopReason. */
enum rp_stop_reason {
  RP_STOP_SIGNAL = 1,          /* a fatal signal (value: its number) */
  RP_STOP_MAX_SECONDS = 2,     /* max_seconds (value: the limit) */
  RP_STOP_MAX_EVENTS = 3,      /* max_events */
  RP_STOP_MAX_TRACE_BYTES = 4, /* max_trace_bytes */
  RP_STOP_DEADLOCK = 5,   /* every thread blocked (value: for how long, ms) */
  RP_STOP_STUCK_HOOK = 6, /* a thread stayed in a hook (value: its key) */
  RP_STOP_EXEC = 7        /* the process exec'd another program */
};

/* Event kind codes: identical to racepredict::trace::EventKind. */
enum rp_kind {
  RP_BEGIN,
  RP_END,
  RP_FORK,
  RP_JOIN,
  RP_ACQUIRE,
  RP_RELEASE,
  RP_RACQUIRE,
  RP_TRYFAIL,
  RP_WAIT,
  RP_SIGNAL,
  RP_BROADCAST,
  RP_BARRIER,
  RP_SEMINIT,
  RP_SEMPOST,
  RP_SEMWAIT,
  RP_READ,
  RP_WRITE,
  RP_ATOMIC_READ,
  RP_ATOMIC_WRITE,
  RP_ATOMIC_RMW,
  RP_BRANCH,
  RP_ALLOC,
  RP_FREE,
  RP_CUSTOM,
  RP_SEND,
  RP_RECV
};

/* Name spaces: identical to racepredict::trace::NameSpace. */
enum rp_namespace {
  RP_NS_THREAD,
  RP_NS_LOCATION,
  RP_NS_LOCK,
  RP_NS_COND,
  RP_NS_BARRIER,
  RP_NS_SEM,
  RP_NS_CUSTOM,
  RP_NS_CHANNEL
};

#endif
