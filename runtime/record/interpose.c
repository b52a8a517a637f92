/*===- record/interpose.c - libc entry points defined in the executable ---===*/
/*
 * Calls that the pass did not rewrite (uninstrumented code: libstdc++'s
 * std::thread, std::condition_variable, operator new; libc itself calling
 * through the PLT) reach these definitions, because the executable's symbols
 * interpose libc's. The synchronisation calls forward to the hooks with the
 * call site through which instrumented code entered the uninstrumented code
 * (`t.join()`, `cv.wait(l)`: the last call site the thread's instrumented
 * code stored, stack_hooks.cpp; 0 outside any), so that reports and replay
 * steps name a line of the program. Allocations do the same (`new T` in
 * main: operator new's malloc is main's line), so that a report can name a
 * heap block by the line that allocated it.
 * Written in C so that the definitions need not repeat glibc's C++
 * exception specifications.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>

/* Prototypes of the hooks (they take the location as an extra argument). */
int __racepredict_pthread_create(pthread_t *, const pthread_attr_t *,
                                 void *(*)(void *), void *, uint32_t);
int __racepredict_pthread_join(pthread_t, void **, uint32_t);
int __racepredict_pthread_detach(pthread_t, uint32_t);
void __racepredict_pthread_exit(void *, uint32_t) __attribute__((noreturn));
int __racepredict_pthread_once(pthread_once_t *, void (*)(void), uint32_t);
int __racepredict_pthread_mutex_lock(pthread_mutex_t *, uint32_t);
int __racepredict_pthread_mutex_trylock(pthread_mutex_t *, uint32_t);
int __racepredict_pthread_mutex_timedlock(pthread_mutex_t *,
                                          const struct timespec *, uint32_t);
int __racepredict_pthread_mutex_unlock(pthread_mutex_t *, uint32_t);
int __racepredict_pthread_spin_lock(pthread_spinlock_t *, uint32_t);
int __racepredict_pthread_spin_trylock(pthread_spinlock_t *, uint32_t);
int __racepredict_pthread_spin_unlock(pthread_spinlock_t *, uint32_t);
int __racepredict_pthread_rwlock_rdlock(pthread_rwlock_t *, uint32_t);
int __racepredict_pthread_rwlock_tryrdlock(pthread_rwlock_t *, uint32_t);
int __racepredict_pthread_rwlock_timedrdlock(pthread_rwlock_t *,
                                             const struct timespec *, uint32_t);
int __racepredict_pthread_rwlock_wrlock(pthread_rwlock_t *, uint32_t);
int __racepredict_pthread_rwlock_trywrlock(pthread_rwlock_t *, uint32_t);
int __racepredict_pthread_rwlock_timedwrlock(pthread_rwlock_t *,
                                             const struct timespec *, uint32_t);
int __racepredict_pthread_rwlock_unlock(pthread_rwlock_t *, uint32_t);
int __racepredict_pthread_cond_wait(pthread_cond_t *, pthread_mutex_t *,
                                    uint32_t);
int __racepredict_pthread_cond_timedwait(pthread_cond_t *, pthread_mutex_t *,
                                         const struct timespec *, uint32_t);
int __racepredict_pthread_cond_clockwait(pthread_cond_t *, pthread_mutex_t *,
                                         clockid_t, const struct timespec *,
                                         uint32_t);
int __racepredict_pthread_cond_signal(pthread_cond_t *, uint32_t);
int __racepredict_pthread_cond_broadcast(pthread_cond_t *, uint32_t);
int __racepredict_pthread_barrier_init(pthread_barrier_t *,
                                       const pthread_barrierattr_t *, unsigned,
                                       uint32_t);
int __racepredict_pthread_barrier_destroy(pthread_barrier_t *, uint32_t);
int __racepredict_pthread_barrier_wait(pthread_barrier_t *, uint32_t);
int __racepredict_sem_init(sem_t *, int, unsigned, uint32_t);
int __racepredict_sem_post(sem_t *, uint32_t);
int __racepredict_sem_wait(sem_t *, uint32_t);
int __racepredict_sem_trywait(sem_t *, uint32_t);
int __racepredict_sem_timedwait(sem_t *, const struct timespec *, uint32_t);
/* The clock forms (glibc 2.30; libstdc++'s timed_mutex, shared_timed_mutex
 * and counting_semaphore use them). */
int __racepredict_pthread_mutex_clocklock(pthread_mutex_t *, clockid_t,
                                          const struct timespec *, uint32_t);
int __racepredict_pthread_rwlock_clockrdlock(pthread_rwlock_t *, clockid_t,
                                             const struct timespec *, uint32_t);
int __racepredict_pthread_rwlock_clockwrlock(pthread_rwlock_t *, clockid_t,
                                             const struct timespec *, uint32_t);
int __racepredict_sem_clockwait(sem_t *, clockid_t, const struct timespec *,
                                uint32_t);
void *__racepredict_malloc(size_t, uint32_t);
void *__racepredict_calloc(size_t, size_t, uint32_t);
void *__racepredict_realloc(void *, size_t, uint32_t);
void __racepredict_free(void *, uint32_t);
int __racepredict_posix_memalign(void **, size_t, size_t, uint32_t);
void *__racepredict_aligned_alloc(size_t, size_t, uint32_t);
void *__racepredict_memalign(size_t, size_t, uint32_t);
void *__racepredict_valloc(size_t, uint32_t);

/* libomp synchronises its own threads with these (the mutexes and condition
 * variables its workers sleep on, whether they do depending on timing):
 * such calls reach libc unrecorded; the OpenMP constructs themselves are
 * recorded (omp_hooks.cpp). */
int __racepredict_from_openmp(const void *ra);
#define RP_UNRECORDED_FROM_OPENMP(name, type, args)                            \
  do {                                                                         \
    if (__racepredict_from_openmp(__builtin_return_address(0))) {              \
      void *__racepredict_real_##name(void);                                   \
      return ((type)__racepredict_real_##name())args;                          \
    }                                                                          \
  } while (0)

extern __thread uint32_t __racepredict_callsite
    __attribute__((tls_model("initial-exec")));
/* The location of a call from uninstrumented code (see above). */
#define RP_SITE __racepredict_callsite

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *),
                   void *arg) {
  return __racepredict_pthread_create(t, a, f, arg, RP_SITE);
}
int pthread_join(pthread_t t, void **r) {
  return __racepredict_pthread_join(t, r, RP_SITE);
}
int pthread_detach(pthread_t t) {
  return __racepredict_pthread_detach(t, RP_SITE);
}
void pthread_exit(void *r) { __racepredict_pthread_exit(r, RP_SITE); }
int pthread_once(pthread_once_t *o, void (*f)(void)) {
  RP_UNRECORDED_FROM_OPENMP(pthread_once,
                            int (*)(pthread_once_t *, void (*)(void)), (o, f));
  return __racepredict_pthread_once(o, f, RP_SITE);
}

#define RP_ONE(name, T)                                                        \
  int name(T *x) {                                                             \
    RP_UNRECORDED_FROM_OPENMP(name, int (*)(T *), (x));                        \
    return __racepredict_##name(x, RP_SITE);                                   \
  }
RP_ONE(pthread_mutex_lock, pthread_mutex_t)
RP_ONE(pthread_mutex_trylock, pthread_mutex_t)
RP_ONE(pthread_mutex_unlock, pthread_mutex_t)
RP_ONE(pthread_spin_lock, pthread_spinlock_t)
RP_ONE(pthread_spin_trylock, pthread_spinlock_t)
RP_ONE(pthread_spin_unlock, pthread_spinlock_t)
RP_ONE(pthread_rwlock_rdlock, pthread_rwlock_t)
RP_ONE(pthread_rwlock_tryrdlock, pthread_rwlock_t)
RP_ONE(pthread_rwlock_wrlock, pthread_rwlock_t)
RP_ONE(pthread_rwlock_trywrlock, pthread_rwlock_t)
RP_ONE(pthread_rwlock_unlock, pthread_rwlock_t)
RP_ONE(pthread_cond_signal, pthread_cond_t)
RP_ONE(pthread_cond_broadcast, pthread_cond_t)
RP_ONE(pthread_barrier_destroy, pthread_barrier_t)
RP_ONE(pthread_barrier_wait, pthread_barrier_t)
RP_ONE(sem_post, sem_t)
RP_ONE(sem_wait, sem_t)
RP_ONE(sem_trywait, sem_t)
#undef RP_ONE

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(pthread_mutex_timedlock,
                            int (*)(pthread_mutex_t *, const struct timespec *),
                            (m, t));
  return __racepredict_pthread_mutex_timedlock(m, t, RP_SITE);
}
int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_rwlock_timedrdlock,
      int (*)(pthread_rwlock_t *, const struct timespec *), (l, t));
  return __racepredict_pthread_rwlock_timedrdlock(l, t, RP_SITE);
}
int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_rwlock_timedwrlock,
      int (*)(pthread_rwlock_t *, const struct timespec *), (l, t));
  return __racepredict_pthread_rwlock_timedwrlock(l, t, RP_SITE);
}
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_cond_wait, int (*)(pthread_cond_t *, pthread_mutex_t *), (c, m));
  return __racepredict_pthread_cond_wait(c, m, RP_SITE);
}
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                           const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_cond_timedwait,
      int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *),
      (c, m, t));
  return __racepredict_pthread_cond_timedwait(c, m, t, RP_SITE);
}
int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t k,
                           const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(pthread_cond_clockwait,
                            int (*)(pthread_cond_t *, pthread_mutex_t *,
                                    clockid_t, const struct timespec *),
                            (c, m, k, t));
  return __racepredict_pthread_cond_clockwait(c, m, k, t, RP_SITE);
}
int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a,
                         unsigned n) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_barrier_init,
      int (*)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned),
      (b, a, n));
  return __racepredict_pthread_barrier_init(b, a, n, RP_SITE);
}
int sem_init(sem_t *s, int p, unsigned v) {
  RP_UNRECORDED_FROM_OPENMP(sem_init, int (*)(sem_t *, int, unsigned),
                            (s, p, v));
  return __racepredict_sem_init(s, p, v, RP_SITE);
}
int sem_timedwait(sem_t *s, const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(sem_timedwait,
                            int (*)(sem_t *, const struct timespec *), (s, t));
  return __racepredict_sem_timedwait(s, t, RP_SITE);
}
int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t k,
                            const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_mutex_clocklock,
      int (*)(pthread_mutex_t *, clockid_t, const struct timespec *),
      (m, k, t));
  return __racepredict_pthread_mutex_clocklock(m, k, t, RP_SITE);
}
int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t k,
                               const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_rwlock_clockrdlock,
      int (*)(pthread_rwlock_t *, clockid_t, const struct timespec *),
      (l, k, t));
  return __racepredict_pthread_rwlock_clockrdlock(l, k, t, RP_SITE);
}
int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t k,
                               const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(
      pthread_rwlock_clockwrlock,
      int (*)(pthread_rwlock_t *, clockid_t, const struct timespec *),
      (l, k, t));
  return __racepredict_pthread_rwlock_clockwrlock(l, k, t, RP_SITE);
}
int sem_clockwait(sem_t *s, clockid_t k, const struct timespec *t) {
  RP_UNRECORDED_FROM_OPENMP(
      sem_clockwait, int (*)(sem_t *, clockid_t, const struct timespec *),
      (s, k, t));
  return __racepredict_sem_clockwait(s, k, t, RP_SITE);
}
void *malloc(size_t n) { return __racepredict_malloc(n, RP_SITE); }
void *calloc(size_t n, size_t s) { return __racepredict_calloc(n, s, RP_SITE); }
void *realloc(void *p, size_t n) {
  return __racepredict_realloc(p, n, RP_SITE);
}
void free(void *p) { __racepredict_free(p, 0); }
int posix_memalign(void **p, size_t a, size_t n) {
  return __racepredict_posix_memalign(p, a, n, 0);
}
void *aligned_alloc(size_t a, size_t n) {
  return __racepredict_aligned_alloc(a, n, 0);
}
void *memalign(size_t a, size_t n) { return __racepredict_memalign(a, n, 0); }
void *valloc(size_t n) { return __racepredict_valloc(n, 0); }
