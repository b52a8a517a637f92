// What the pass emits for an instrumentation spec (custom_events.spec):
// one __racepredict_custom(desc, a0..a3, loc) call per program point, with
// the source location id filled in by the instrumentation pass.
// (clang-format off: the CHECK lines are longer than 80 columns.)
// clang-format off
struct file {
  int fd;
};
struct file *open_file(const char *name);
int read_file(struct file *f, long *out);
void close_file(struct file *f);
int counter;

// Descriptors: name, argument count, per-argument kind. read's second
// argument is *#1 on a long*: RP_ARG_DEREF (2) | 8 bytes << 4 = 0x82; its
// third is the literal `lit`, a symbol (1).
// CHECK: @[[READ:__racepredict_ev[.0-9]*]] = internal global {{.*}} i32 4, [4 x i8] c"\00\82\01\00" }

// The body events frame the body; the counter's read and write are events
// with the value read, the size, and (for the write) a literal, the value
// written and the address.
// CHECK-LABEL: define{{.*}} void @increment
// CHECK: call void @__racepredict_custom({{.*}}, i64 0, i64 0, i64 0, i64 0, i32 %{{.*}})
// CHECK: call void @__racepredict_custom({{.*}}, i64 %{{.*}}, i64 4, i64 0, i64 0, i32 %{{.*}})
// CHECK: call void @__racepredict_custom({{.*}}, i64 ptrtoint ({{.*}}@__racepredict_ev_sym{{.*}}), i64 %{{.*}}, i64 ptrtoint (i32* @counter to i64), i64 0, i32 %{{.*}})
// CHECK: call void @__racepredict_custom({{.*}}, i64 0, i64 0, i64 0, i64 0, i32 %{{.*}})
// CHECK-NEXT: call void @__racepredict_func_exit()
// CHECK-NEXT: ret void
// O0-LABEL: define{{.*}} void @increment
// O0: call void @__racepredict_custom(
// O0: call void @__racepredict_custom(
// O0: call void @__racepredict_custom(
// O0: call void @__racepredict_custom(
// O0: ret void
void increment(void) { counter++; }

// "after call" follows the call, "before call" precedes it; two "after"
// entries of one call fire in spec order (readret, then read_done).
// CHECK-LABEL: define{{.*}} void @use_files
// CHECK: [[F:%[0-9]+]] = call %struct.file* @open_file(
// CHECK-NEXT: [[FI:%[0-9]+]] = ptrtoint %struct.file* [[F]] to i64
// CHECK: call void @__racepredict_custom({{.*}}, i64 [[FI]], i64 0, i64 0, i64 0, i32
// CHECK: call void @__racepredict_custom({{.*}}@[[READ]] {{.*}}, i64 [[FI]], i64 %{{.*}}, i64 ptrtoint ({{.*}}@__racepredict_ev_sym{{.*}}), i64 -3, i32
// CHECK: [[R:%[0-9]+]] = call i32 @read_file(
// CHECK-NEXT: [[RI:%[0-9]+]] = sext i32 [[R]] to i64
// CHECK: call void @__racepredict_custom({{.*}}, i64 [[RI]], i64 0, i64 0, i64 0, i32
// CHECK: call void @__racepredict_custom({{.*}}, i64 0, i64 0, i64 0, i64 0, i32
// CHECK: call void @__racepredict_custom({{.*}}, i64 [[FI]], i64 0, i64 0, i64 0, i32
// CHECK: store i32 {{.*}} @__racepredict_callsite
// CHECK-NEXT: call void @close_file(
// O0-LABEL: define{{.*}} void @use_files
// O0: call %struct.file* @open_file(
// O0-NEXT: ptrtoint
// O0: call void @__racepredict_custom(
void use_files(void) {
  long buf = 0;
  struct file *f = open_file("a");
  read_file(f, &buf);
  close_file(f);
}

// The source-line form: before the first instruction of line 69.
// CHECK-LABEL: define{{.*}} i32 @line_event
// CHECK: call void @__racepredict_custom({{.*}}, i64 0, i64 0, i64 0, i64 0, i32
// CHECK: ret i32
// O0-LABEL: define{{.*}} i32 @line_event
// O0: call void @__racepredict_custom(
int line_event(int x) {
  return x * 3;
}
