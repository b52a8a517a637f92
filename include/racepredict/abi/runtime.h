/*===- abi/runtime.h - extern "C" declarations of the runtime's hooks ----===*/
/*
 * Generated from hooks.def; includes only <stdint.h> so that instrumented
 * C code and the LLVM pass can both use it.
 */
#ifndef RACEPREDICT_ABI_RUNTIME_H
#define RACEPREDICT_ABI_RUNTIME_H

#include <stdint.h>

/* Bump when hooks.def or the structures below change; __racepredict_init
 * rejects modules compiled against another version. */
#define RP_ABI_VERSION 6

typedef void __rp_void;
typedef uint8_t __rp_u8;
typedef uint16_t __rp_u16;
typedef uint32_t __rp_u32;
typedef uint64_t __rp_u64;
typedef void *__rp_ptr;

/* One source location of a module's location table (index = local id - 1).
 * inlined_at: the local id of the location this one was inlined into, 0 =
 * none. LLVM layout: { ptr, ptr, i32, i32, i32 }. */
struct __racepredict_source {
  const char *file;
  const char *function;
  uint32_t line;
  uint32_t column;
  uint32_t inlined_at;
};

/* A global variable, so that the trace can name its address.
 * LLVM layout: { ptr, ptr, i64 }. */
struct __racepredict_global {
  const void *addr;
  const char *name;
  uint64_t size;
};

/* What each module passes to __racepredict_init. The runtime stores the
 * module's first global source id - 1 into *src_base; the pass adds it to the
 * module-local id at every hook call.
 * LLVM layout: { i32, i32, ptr, ptr, i32, ptr }. */
struct __racepredict_module {
  uint32_t abi_version;
  uint32_t num_sources;
  const struct __racepredict_source *sources;
  const struct __racepredict_global *globals;
  uint32_t num_globals;
  uint32_t *src_base;
};

/* A name written to the trace (NAMES block, custom name space) the first
 * time the runtime records it; key is 0 until then. The pass emits these as
 * writable internal globals. LLVM layout: { ptr, i64 }. */
struct __racepredict_symbol {
  const char *name;
  uint64_t key;
};

/* How __racepredict_custom turns argument a_i into the recorded number:
 * kind[i] & 3 is RP_ARG_VALUE (a_i itself), RP_ARG_SYMBOL (a_i points to a
 * struct __racepredict_symbol: a literal of the spec) or RP_ARG_DEREF (a_i
 * is an address: follow (kind[i] >> 2 & 3) more pointers, then read
 * kind[i] >> 4 bytes, sign-extended; a null pointer reads as 0). */
enum __racepredict_arg_kind { RP_ARG_VALUE, RP_ARG_SYMBOL, RP_ARG_DEREF };

/* One entry of the instrumentation spec. LLVM layout:
 * { { ptr, i64 }, i32, [4 x i8] }. */
struct __racepredict_event_desc {
  struct __racepredict_symbol name;
  uint32_t nargs;
  uint8_t kind[4];
};

/* Operations of __racepredict_atomic_rmwN (LLVM's AtomicRMWInst order). */
enum __racepredict_rmw_op {
  RP_RMW_XCHG,
  RP_RMW_ADD,
  RP_RMW_SUB,
  RP_RMW_AND,
  RP_RMW_NAND,
  RP_RMW_OR,
  RP_RMW_XOR,
  RP_RMW_MAX,
  RP_RMW_MIN,
  RP_RMW_UMAX,
  RP_RMW_UMIN,
  RP_RMW_FADD,
  RP_RMW_FSUB
};

#ifdef __cplusplus
extern "C" {
#endif

/* The call site of the next function entry: instrumented code stores the
 * location id of each call here right before the call, and the callee's
 * __racepredict_func_enter pushes it onto the thread's shadow stack. */
extern __thread uint32_t __racepredict_callsite;

/* The seq of this thread's latest load hook's record (0: not recorded),
 * read by instrumented code right after a load a decision depends on. */
extern __thread uint64_t __racepredict_read_seq;

/* Nonzero when the run asked for RVPredict's plain rule
 * (RACEPREDICT_OPTIONS=branch_deps=all): instrumented code calls
 * __racepredict_branch_private only then. */
extern uint8_t __racepredict_plain_branches;

#define HOOK(name, ret, ...) ret __racepredict_##name(__VA_ARGS__);
#include "racepredict/abi/hooks.def"

#ifdef __cplusplus
}
#endif

#endif
