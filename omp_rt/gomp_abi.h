/*
 * gomp_abi.h: the compiler-facing interface: every GOMP_* entry point that
 * GCC 12 emits and ompdsm implements, in one place, with libgomp's
 * signatures.  Each is defined in the file of its construct.
 */
#ifndef OMP_RT_GOMP_ABI_H
#define OMP_RT_GOMP_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(default)

typedef unsigned long long gomp_ull;

/* parallel.c */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);
void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                            unsigned flags);

/* barrier.c */
void GOMP_barrier(void);

/* cancel.c */
bool GOMP_barrier_cancel(void);
bool GOMP_cancel(int which, bool do_cancel);
bool GOMP_cancellation_point(int which);

/* loop.c: for each schedule S in static, dynamic, guided, nonmonotonic_dynamic,
 * nonmonotonic_guided, ordered_static, ordered_dynamic, ordered_guided:
 *   bool GOMP_loop_S_start(long, long, long, long chunk, long *, long *);
 *   bool GOMP_loop_S_next(long *, long *);
 *   and the GOMP_loop_ull_S_* pair;
 * for R in runtime, nonmonotonic_runtime, maybe_nonmonotonic_runtime, ordered_runtime
 * the same without chunk; GOMP_parallel_loop_S / _R for the combined forms. */
bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart, long *iend,
                     uintptr_t *reductions, void **mem);
bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk, long *istart,
                             long *iend, uintptr_t *reductions, void **mem);
bool GOMP_loop_ull_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr, long sched, gomp_ull chunk,
                         gomp_ull *istart, gomp_ull *iend, uintptr_t *reductions, void **mem);
bool GOMP_loop_ull_ordered_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr, long sched,
                                 gomp_ull chunk, gomp_ull *istart, gomp_ull *iend, uintptr_t *reductions,
                                 void **mem);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
bool GOMP_loop_end_cancel(void);
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);
/* loop.c: doacross loops (ordered(n) with depend); GOMP_loop_doacross_S_start
 * for S in static, dynamic, guided (and ull), GOMP_loop_doacross_runtime_start
 * without the chunk */
bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk, long *istart, long *iend,
                              uintptr_t *reductions, void **mem);
bool GOMP_loop_ull_doacross_start(unsigned ncounts, gomp_ull *counts, long sched, gomp_ull chunk,
                                  gomp_ull *istart, gomp_ull *iend, uintptr_t *reductions, void **mem);
/* doacross.c */
void GOMP_doacross_post(long *counts);
void GOMP_doacross_wait(long first, ...);
void GOMP_doacross_ull_post(gomp_ull *counts);
void GOMP_doacross_ull_wait(gomp_ull first, ...);

/* sections.c */
unsigned GOMP_sections_start(unsigned count);
unsigned GOMP_sections_next(void);
void GOMP_sections_end(void);
void GOMP_sections_end_nowait(void);
bool GOMP_sections_end_cancel(void);

/* single.c */
bool GOMP_single_start(void);
void *GOMP_single_copy_start(void);
void GOMP_single_copy_end(void *data);

/* critical.c */
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);

/* task.c */
void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority, void *detach);
void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                   long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                   long end, long step);
void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                       long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                       gomp_ull start, gomp_ull end, gomp_ull step);
void GOMP_taskwait(void);
void GOMP_taskyield(void);
void GOMP_taskgroup_start(void);
void GOMP_taskgroup_end(void);
unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_taskgroup_reduction_register(uintptr_t *data);
void GOMP_taskgroup_reduction_unregister(uintptr_t *data);
void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs);
void GOMP_workshare_task_reduction_unregister(bool cancelled);
void GOMP_taskwait_depend(void **depend);
unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem);
void GOMP_scope_start(uintptr_t *reductions);
void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator);
void GOMP_free(void *ptr, uintptr_t allocator);
void GOMP_error(const char *msg, size_t msglen);

/* target.c: target constructs, on the host */
void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                     unsigned short *kinds, unsigned flags, void **depend, void **args);
void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum, void **hostaddrs,
                 size_t *sizes, unsigned char *kinds);
void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds);
void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                      unsigned char *kinds);
void GOMP_target_end_data(void);
void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds,
                            unsigned flags, void **depend);
void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                        unsigned char *kinds);
void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned short *kinds, unsigned flags, void **depend);
void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type,
                               const void *target_data);
void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type,
                                 const void *target_data);

/* teams.c */
void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit, unsigned flags);
bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit, bool first);
void GOMP_teams(unsigned num_teams, unsigned thread_limit);
void GOMP_warning(const char *msg, size_t msglen);

#pragma GCC visibility pop

#endif
