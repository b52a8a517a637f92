/*===- record/real_c.h - The real libc function, for the C interposers ---===*/
/*
 * RP_REAL_C(var, ret, name, params) declares `var`, the libc function `name`
 * behind the executable's own definition, found with dlsym(RTLD_NEXT) on
 * first use and kept in a static (blocking_calls.c, fd_interpose.c).
 */
#ifndef RACEPREDICT_RECORD_REAL_C_H
#define RACEPREDICT_RECORD_REAL_C_H

void *__racepredict_real(const char *name);

#define RP_REAL_C(var, ret, name, params)                                      \
  static ret(*var##Slot) params;                                               \
  ret(*var) params = __atomic_load_n(&var##Slot, __ATOMIC_ACQUIRE);            \
  if (__builtin_expect(!var, 0)) {                                             \
    var = (ret(*) params)__racepredict_real(#name);                            \
    __atomic_store_n(&var##Slot, var, __ATOMIC_RELEASE);                       \
  }

#endif
