// What the pass emits, checked on the IR (clang -O1 -S -emit-llvm).
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

int g;
atomic_int a;
char buf[64], src[64], zero[64];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void external(void);
void external_use(int *);

// The module registers its location table before the program's ctors.
// CHECK: @llvm.global_ctors = {{.*}} i32 0, void ()* @racepredict.module_ctor

// CHECK-LABEL: define{{.*}} void @branch_on_global
// CHECK: call i32 @__racepredict_load4(
// CHECK-NEXT: call i64 @__racepredict_last_read_seq()
// CHECK: call void @__racepredict_branch_deps(
void branch_on_global(void) {
  if (g == 3)
    external();
}

// A loop counter (a phi over constants and its own increments) carries no
// read: the loop condition records no branch at all.
// CHECK-LABEL: define{{.*}} void @counted_loop
// CHECK-NOT: call void @__racepredict_branch
// CHECK: ret void
void counted_loop(void) {
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&m);
    g++;
    pthread_mutex_unlock(&m);
  }
}

// A phi that carries an earlier read: the plain rule.
// CHECK-LABEL: define{{.*}} void @phi_carries_a_read
// CHECK: call void @__racepredict_branch(
// CHECK: ret void
void phi_carries_a_read(void) {
  int s = 0;
  for (int i = 0; i < 10; i++) {
    s += g;
    if (s > 10)
      external();
  }
}

// A local whose address does not escape is not instrumented (checked at
// -O0, where it still lives in memory); one passed away is, and comes to
// life with a stack_alloc.
// O0-LABEL: define{{.*}} i32 @private_local
// O0-NOT: __racepredict_load
// O0: ret i32
int private_local(int x) {
  int local = x;
  return local + 1;
}
// O0-LABEL: define{{.*}} void @escaping_local
// O0: call void @__racepredict_stack_alloc(
// O0: call void @__racepredict_store4(
void escaping_local(void) {
  int local = 1;
  external_use(&local);
}

// CHECK-LABEL: define{{.*}} void @atomics
// CHECK: call i32 @__racepredict_atomic_rmw4({{.*}}, i32 1, i32
// CHECK: call i32 @__racepredict_atomic_cas4(
// CHECK: call void @__racepredict_atomic_store4(
void atomics(void) {
  atomic_fetch_add(&a, 2);
  int expected = 0;
  atomic_compare_exchange_strong(&a, &expected, 5);
  atomic_store(&a, 7);
}

// CHECK-LABEL: define{{.*}} void @ranges
// CHECK: call void @__racepredict_memset(
// CHECK: call void @__racepredict_memcpy(
void ranges(void) {
  memset(zero, 1, sizeof zero);
  memcpy(buf, src, sizeof buf);
}

// CHECK-LABEL: define{{.*}} void @locked
// CHECK: call i32 @__racepredict_pthread_mutex_lock({{.*}}@m, i32
// CHECK: call void @__racepredict_store4(
// CHECK: call i32 @__racepredict_pthread_mutex_unlock(
void locked(void) {
  pthread_mutex_lock(&m);
  g = 1;
  pthread_mutex_unlock(&m);
}

// CHECK: define internal void @racepredict.module_ctor()
// CHECK-NEXT: call void @__racepredict_init(
