//===- record/init.cpp - Runtime start-up and module registration ---------===//
//
// Initialisation happens once, from the first module constructor the pass
// inserts (or the first hook that runs before it). Allocation hooks never
// initialise: glibc allocates before constructors run, and the recorder must
// not open files from inside malloc.
//
#include "real.h"
#include "state.h"

#include "../common/raw_io.h"

#include "racepredict/abi/runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

namespace racepredict::rt {
namespace {

/// Set while this thread initialises, so hooks reached from inside
/// initialisation (atexit may allocate) record nothing instead of
/// deadlocking on initLock.
RP_TLS bool tlsInInit;

/// Records the first event of a thread that was not created through the
/// pthread_create interceptor (the main thread, or threads created before
/// the runtime started).
ThreadState *attachThread() {
  uint32_t key = __atomic_fetch_add(&g.nextThreadKey, 1, __ATOMIC_RELAXED);
  ThreadState *ts = newThreadState(key, currentTid());
  tlsState = ts;
  recordSync(RP_BEGIN, 0, nullptr, 0, kRecThread);
  return ts;
}

/// Encodes a module's location table as SOURCES blocks of at most 64 KiB.
void writeSources(const __racepredict_module *m, uint32_t base) {
  const uint32_t cap = 1u << 16;
  auto *buf = static_cast<uint8_t *>(rawAlloc(cap));
  uint32_t len = 0;
  for (uint32_t i = 0; i < m->num_sources; ++i) {
    const __racepredict_source &s = m->sources[i];
    const char *file = s.file ? s.file : "";
    const char *fn = s.function ? s.function : "";
    size_t fl = rawStrlen(file), nl = rawStrlen(fn);
    if (fl > 4096)
      fl = 4096; // keeps one entry well inside a block
    if (nl > 4096)
      nl = 4096;
    if (len + fl + nl + 64 > cap) {
      writeBlock(RP_BLOCK_SOURCES, buf, len);
      len = 0;
    }
    uint8_t *p = buf + len;
    p = putVarint(p, base + i + 1);
    p = putVarint(p, fl);
    for (size_t k = 0; k < fl; ++k)
      *p++ = static_cast<uint8_t>(file[k]);
    p = putVarint(p, s.line);
    p = putVarint(p, s.column);
    p = putVarint(p, nl);
    for (size_t k = 0; k < nl; ++k)
      *p++ = static_cast<uint8_t>(fn[k]);
    p = putVarint(p, s.inlined_at ? base + s.inlined_at : 0);
    len = static_cast<uint32_t>(p - buf);
  }
  if (len)
    writeBlock(RP_BLOCK_SOURCES, buf, len);
  rawFree(buf, cap);
}

/// Encodes a module's global variables as GLOBALS blocks (format.h), so
/// that the analyser can name addresses inside them.
void writeGlobals(const __racepredict_module *m) {
  const uint32_t cap = 1u << 16;
  auto *buf = static_cast<uint8_t *>(rawAlloc(cap));
  uint32_t len = 0;
  for (uint32_t i = 0; i < m->num_globals; ++i) {
    const __racepredict_global &gv = m->globals[i];
    const char *name = gv.name ? gv.name : "";
    size_t nl = rawStrlen(name);
    if (nl == 0 || gv.size == 0)
      continue;
    if (nl > 4096)
      nl = 4096;
    if (len + nl + 32 > cap) {
      writeBlock(RP_BLOCK_GLOBALS, buf, len);
      len = 0;
    }
    uint8_t *p = buf + len;
    p = putVarint(p, reinterpret_cast<uintptr_t>(gv.addr));
    p = putVarint(p, gv.size);
    p = putVarint(p, nl);
    for (size_t k = 0; k < nl; ++k)
      *p++ = static_cast<uint8_t>(name[k]);
    len = static_cast<uint32_t>(p - buf);
  }
  if (len)
    writeBlock(RP_BLOCK_GLOBALS, buf, len);
  rawFree(buf, cap);
}

/// The registered modules, for a forked child's trace (rewriteModules).
constexpr unsigned kMaxModules = 1024;
struct Registered {
  const __racepredict_module *m;
  uint32_t base;
} gModules[kMaxModules];
uint32_t gNumModules;

void writeModule(const __racepredict_module *m, uint32_t base) {
  if (m->num_sources)
    writeSources(m, base);
  if (m->num_globals)
    writeGlobals(m);
}

} // namespace

void rewriteModules() {
  for (uint32_t i = 0; i < gNumModules && i < kMaxModules; ++i)
    writeModule(gModules[i].m, gModules[i].base);
}

void *resolveReal(const char *name, const char *version) {
  void *f = version ? dlvsym(RTLD_NEXT, name, version) : nullptr;
  if (!f)
    f = dlsym(RTLD_NEXT, name);
  if (!f) {
    RawBuf b;
    b.str("cannot find the libc function '").str(name).str("'");
    fatal(b.cstr());
  }
  return f;
}

bool ensureInit() {
  if (__atomic_load_n(&g.initialized, __ATOMIC_ACQUIRE))
    return true;
  if (tlsInInit)
    return false;
  spinLock(&g.initLock);
  if (!g.initialized) {
    tlsInInit = true;
    parseOptions(g.opts, getenv("RACEPREDICT_OPTIONS"));
    __racepredict_plain_branches = g.opts.plainBranches ? 1 : 0;
    if (g.opts.help) {
      printOptionHelp();
      _exit(0);
    }
    // A replay writes no trace unless asked to (trace=...).
    if (g.opts.replay[0] && !g.opts.trace[0])
      rawCopy(g.opts.trace, "/dev/null", sizeof g.opts.trace);
    char name[512];
    traceNameFor(name, sizeof name, 0);
    openTrace(name);
    g.pid = getpid();
    g.srcCount = 0;
    tokenInit();
    installExitHandlers();
    pthread_atfork(nullptr, nullptr, restartInChild);
    threadEndKeyInit();
    if (g.opts.replay[0])
      replayInit();
    g.startNs = nowNs();
    startRecordingWatchdog(true); // after replayInit: not in replay mode
    __atomic_store_n(&g.initialized, true, __ATOMIC_RELEASE);
    if (!tlsState)
      attachThread(); // the initialising thread is normally main: t0
    tlsInInit = false;
  }
  spinUnlock(&g.initLock);
  return true;
}

ThreadState *attachSlow() {
  if (tlsEnded || !ensureInit())
    return nullptr;
  if (tlsState)
    return tlsState;
  return attachThread();
}

} // namespace racepredict::rt

using namespace racepredict::rt;

extern "C" void __racepredict_init(void *module) {
  auto *m = static_cast<const __racepredict_module *>(module);
  if (m->abi_version != RP_ABI_VERSION)
    fatal("a module was compiled for another runtime ABI version; rebuild "
          "it with this racepredict-cc");
  if (!ensureInit())
    return;
  // Ids are handed out under srcLock, and the SOURCES block is written before
  // the module's code can use them, so every id an event names is defined
  // earlier in the file.
  spinLock(&g.srcLock);
  uint32_t base = g.srcCount;
  g.srcCount += m->num_sources;
  writeModule(m, base);
  if (gNumModules < kMaxModules)
    gModules[gNumModules++] = {m, base};
  replayRegisterModule(m, base);
  __atomic_store_n(m->src_base, base, __ATOMIC_RELEASE);
  spinUnlock(&g.srcLock);
}

uint8_t __racepredict_plain_branches;

extern "C" void *__racepredict_real(const char *name) {
  return resolveReal(name, nullptr);
}
