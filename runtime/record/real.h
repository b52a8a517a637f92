//===- record/real.h - The libc functions behind the interceptors --------===//
//
// The runtime defines pthread_* and malloc & co. in the executable, which
// interposes libc's definitions for every caller. The originals are found
// with dlsym(RTLD_NEXT) on first use; the heap goes straight to glibc's
// __libc_* entry points so that dlsym's own allocations cannot recurse.
//
#pragma once

#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
}

namespace racepredict::rt {

/// Resolves `name` in the libraries after the executable (versioned when
/// `version` is set, for the pthread_cond_* family whose unversioned lookup
/// may find the pre-2.3.2 compatibility symbols); fatal if absent.
void *resolveReal(const char *name, const char *version);

#define RP_REAL(ret, name, params)                                             \
  inline ret(*real_##name()) params {                                          \
    static ret(*fn) params;                                                    \
    auto f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);                           \
    if (__builtin_expect(!f, 0)) {                                             \
      f = reinterpret_cast<ret(*) params>(resolveReal(#name, RP_VER_##name));  \
      __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                              \
    }                                                                          \
    return f;                                                                  \
  }
#define RP_VER_DEFAULT nullptr
#include "real.inc"
#undef RP_REAL

} // namespace racepredict::rt
