//===- record/real_c.cpp - The real libc functions, for the C interposers -===//
//
// interpose.c forwards to the hooks; when a call must reach libc unrecorded
// (libomp's own synchronisation, omp_hooks.cpp) it takes the function from
// here, bound as real.inc says (the versioned pthread_cond_* included).
//
#include "real.h"

#define RP_REAL(ret, name, params)                                             \
  extern "C" void *__racepredict_real_##name() {                               \
    return reinterpret_cast<void *>(racepredict::rt::real_##name());           \
  }
#include "real.inc"
