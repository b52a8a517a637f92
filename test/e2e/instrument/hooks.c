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
// CHECK-NEXT: load i64, i64* @__racepredict_read_seq
// CHECK: call void @__racepredict_branch_deps(
void branch_on_global(void) {
  if (g == 3)
    external();
}

// A loop counter is private and read-free: its decision records nothing
// unless branch_deps=all asks for the plain rule (branch_private), at -O1
// (a phi) and at -O0 (a private stack slot).
// CHECK-LABEL: define{{.*}} void @counted_loop
// CHECK-NOT: call void @__racepredict_branch(
// CHECK: call void @__racepredict_branch_private(
// CHECK-NOT: call void @__racepredict_branch(
// O0-LABEL: define{{.*}} void @counted_loop
// O0-NOT: call void @__racepredict_branch(
// O0: call void @__racepredict_branch_private(
// O0-NOT: call void @__racepredict_branch(
void counted_loop(void) {
  for (int i = 0; i < 10; i++)
    external();
}

// A loop whose counter also carries a shared read (phi fed by a load)
// cannot name the read instance: plain rule.
// CHECK-LABEL: define{{.*}} void @loop_on_shared_sum
// CHECK: call void @__racepredict_branch(
// O0-LABEL: define{{.*}} void @loop_on_shared_sum
// O0: call void @__racepredict_branch(
void loop_on_shared_sum(void) {
  for (int s = 0; s < 100; s += g)
    external();
}

// Call stacks: entry and exit, and the call site stored before a call.
// CHECK-LABEL: define{{.*}} void @calls_external
// CHECK: call void @__racepredict_func_enter()
// CHECK: store i32 {{.*}} @__racepredict_callsite
// CHECK-NEXT: call void @external()
// CHECK: call void @__racepredict_func_exit()
// CHECK-NEXT: ret void
void calls_external(void) { external(); }

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
// O0: call void @__racepredict_store_deps4({{.*}}, i32 0)
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
// CHECK: call void @__racepredict_store_deps4({{.*}}, i32 1, i32 {{.*}}, i32 0)
// CHECK: call i32 @__racepredict_pthread_mutex_unlock(
void locked(void) {
  pthread_mutex_lock(&m);
  g = 1;
  pthread_mutex_unlock(&m);
}

// Which mutex is locked depends on a read of g: the call gets a decision on
// its object, like an address-dependent access.
pthread_mutex_t locks[4];
// CHECK-LABEL: define{{.*}} void @lock_chosen_by_read
// CHECK: call i32 @__racepredict_load4(
// CHECK: call void @__racepredict_branch_deps(
// CHECK: call i32 @__racepredict_pthread_mutex_lock(
void lock_chosen_by_read(void) {
  pthread_mutex_lock(&locks[g & 3]);
  pthread_mutex_unlock(&locks[g & 3]);
}

// A decision on private values only costs a load of the runtime's flag;
// branch_private is called only under branch_deps=all.
// CHECK-LABEL: define{{.*}} void @guarded_private
// CHECK: load i8, i8* @__racepredict_plain_branches
// CHECK: br i1 {{.*}}, label %[[CALL:[0-9]+]], label
// CHECK: [[CALL]]:
// CHECK-NOT: call
// CHECK: call void @__racepredict_branch_private(
void guarded_private(int n) {
  for (int i = 0; i < 10; i++)
    external();
}

// branch_deps is called only when the site's read instance changed since
// its last call in this invocation: a cache per site, compared inline.
// CHECK-LABEL: define{{.*}} void @cached_deps
// CHECK: [[SEQ:%[0-9]+]] = load i64, i64* @__racepredict_read_seq
// CHECK: [[LAST:%[0-9]+]] = load i64, i64* [[SLOT:%[0-9]+]]
// CHECK: icmp eq i64 [[SEQ]], [[LAST]]
// CHECK: store i64 [[SEQ]], i64* [[CACHE:%[0-9]+]]
// CHECK: call void @__racepredict_branch_deps(
int limit;
void cached_deps(void) {
  int n = limit;
  for (int i = 0; i < n; i++)
    external();
}

// A bound reloaded inside the loop reaches the loop branch through a phi
// (and, at -O1, a select) that carries one read instance either way: a
// parallel phi and select of seqs name it (no plain rule).
// CHECK-LABEL: define{{.*}} void @reloaded_bound
// CHECK: phi i64
// CHECK: [[RELOAD:%[0-9]+]] = load i64, i64* @__racepredict_read_seq
// CHECK: select i1 {{%[0-9]+}}, i64 [[RELOAD]], i64
// CHECK-NOT: call void @__racepredict_branch(
// CHECK: call void @__racepredict_branch_deps(
// CHECK-NOT: call void @__racepredict_branch(
// CHECK-LABEL: define{{.*}} void @address_from_args
void reloaded_bound(void) {
  int n = limit;
  for (int i = 0; i < n; i++) {
    external();
    if ((i & 7) == 0)
      n = limit;
  }
}

// An address computed from arguments depends on the caller's reads: one
// plain branch at entry stands for them; the access's own decision is then
// read-free (guarded branch_private), not a plain branch before it.
// CHECK: call void @__racepredict_func_enter()
// CHECK-NOT: call
// CHECK: call void @__racepredict_branch(
// CHECK-NOT: call void @__racepredict_branch(
// CHECK: call void @__racepredict_branch_private(
// CHECK: call void @__racepredict_store_deps8({{.*}}, i64 1, {{.*}}, i32 0)
void address_from_args(long *p, long i) { p[i] = 1; }

// A call's result is fixed by the reads before the call returned: one plain
// branch right after the call stands for them, and the access through the
// returned pointer gets a read-free decision (guarded branch_private).
long *make(void);
// CHECK-LABEL: define{{.*}} void @address_from_call
// CHECK: call i64* @make()
// CHECK-NOT: call
// CHECK: call void @__racepredict_branch(
// CHECK-NOT: call void @__racepredict_branch(
// CHECK: call void @__racepredict_branch_private(
// CHECK: call void @__racepredict_store_deps8({{.*}}, i64 1, {{.*}}, i32 0)
void address_from_call(void) { make()[3] = 1; }

// The store's address is the load's (one GEP): its decision repeats the
// dominating one and is not recorded again.
long arr[16];
// CHECK-LABEL: define{{.*}} void @repeated_address
// CHECK: call void @__racepredict_branch_deps(
// CHECK: call i64 @__racepredict_load8(
// CHECK-NOT: call void @__racepredict_branch
// CHECK: call void @__racepredict_store_deps8({{.*}}, i32 1)
void repeated_address(void) { arr[g & 15] = arr[g & 15] + 1; }

// A store's value depends on the reads it is computed from (issue 20): the
// load's seq goes into the dependence array; a constant has none; a call's
// result would need every read before the call: a plain store.
int ext_value(void);
int h, k, r;
// CHECK-LABEL: define{{.*}} void @store_dependences
// CHECK: call i32 @__racepredict_load4(
// CHECK-NEXT: [[SEQ:%.*]] = load i64, i64* @__racepredict_read_seq
// CHECK: store i64 [[SEQ]], i64* [[SLOT:%.*]], align
// CHECK: call void @__racepredict_store_deps4({{.*}}@h{{.*}}, i32 1)
// CHECK: call void @__racepredict_store_deps4({{.*}}@k{{.*}}, i32 5, {{.*}}, i32 0)
// CHECK: call i32 @ext_value()
// CHECK: call void @__racepredict_store4({{.*}}@r
void store_dependences(void) {
  h = g + 1;
  k = 5;
  r = ext_value();
}

// A branch on pthread_mutex_lock's result (an error check) depends on no
// read: every schedule performs the same lock (issue 20's assert form).
// CHECK-LABEL: define{{.*}} void @checked_lock
// CHECK-NOT: call void @__racepredict_branch(
// CHECK: call i32 @__racepredict_pthread_mutex_lock(
// CHECK-NOT: call void @__racepredict_branch(
// CHECK: ret void
void checked_lock(void) {
  if (pthread_mutex_lock(&m) != 0)
    external();
  g = 2;
  pthread_mutex_unlock(&m);
}

// CHECK: define internal void @racepredict.module_ctor()
// CHECK-NEXT: call void @__racepredict_init(
