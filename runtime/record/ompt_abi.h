//===- record/ompt_abi.h - The OpenMP tools interface the recorder uses ---===//
//
// The few OMPT declarations omp_hooks.cpp needs, as the OpenMP 5.0
// specification defines them (§4.1 tool initialisation, §4.4 type
// definitions, §4.5 callback signatures); written here because the
// runtime is built with the system compiler, which does not ship
// omp-tools.h. Values are the specification's.
//
#pragma once

#include <stdint.h>

extern "C" {

typedef union ompt_data_t {
  uint64_t value;
  void *ptr;
} ompt_data_t;

typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup,
                                 int initial_device_num,
                                 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct ompt_start_tool_result_t {
  ompt_initialize_t initialize;
  ompt_finalize_t finalize;
  ompt_data_t tool_data;
} ompt_start_tool_result_t;

typedef void (*ompt_callback_t)(void);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);

enum {
  ompt_callback_parallel_begin = 3,
  ompt_callback_parallel_end = 4,
  ompt_callback_implicit_task = 7,
  ompt_callback_sync_region = 23,
};
enum { ompt_set_never = 1 }; // ompt_set_callback's "not registered"
enum { ompt_scope_begin = 1, ompt_scope_end = 2 };
enum {
  ompt_sync_region_barrier = 1,          // deprecated in 5.1
  ompt_sync_region_barrier_implicit = 2, // deprecated in 5.1
  ompt_sync_region_barrier_explicit = 3,
  ompt_sync_region_barrier_implementation = 4,
  ompt_sync_region_barrier_implicit_workshare = 8,
  ompt_sync_region_barrier_implicit_parallel = 9,
};
enum { ompt_task_initial = 1 };

typedef struct ompt_frame_t ompt_frame_t;
typedef void (*ompt_callback_parallel_begin_t)(
    ompt_data_t *encountering_task_data,
    const ompt_frame_t *encountering_task_frame, ompt_data_t *parallel_data,
    unsigned int requested_parallelism, int flags, const void *codeptr_ra);
typedef void (*ompt_callback_parallel_end_t)(
    ompt_data_t *parallel_data, ompt_data_t *encountering_task_data, int flags,
    const void *codeptr_ra);
typedef void (*ompt_callback_implicit_task_t)(int endpoint,
                                              ompt_data_t *parallel_data,
                                              ompt_data_t *task_data,
                                              unsigned int actual_parallelism,
                                              unsigned int index, int flags);
typedef void (*ompt_callback_sync_region_t)(int kind, int endpoint,
                                            ompt_data_t *parallel_data,
                                            ompt_data_t *task_data,
                                            const void *codeptr_ra);

/// The tool's entry point: libomp looks it up in the process at start-up.
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version);

} // extern "C"
