/*
 * omp_rt.h: the OpenMP runtime's internal state (prefix omp_rt / omp_).
 *
 * A node runs one or more OpenMP threads (OMPDSM_THREADS_PER_NODE, the
 * `threads` of struct omp_rt): node 0's first thread runs main() and is
 * the master; the other nodes' first threads wait in omp_rt_worker_loop()
 * for parallel regions, and a node's further threads wait in its pool
 * (pool.c).  The team of a region of k threads is split over the nodes as
 * evenly as possible and numbered node-major: node 0 holds threads
 * 0 .. t0-1, node 1 the next ones, and so on, so that consecutive threads,
 * and the static blocks they get, stay on one node; nodes without a thread
 * sit the region out (parallel.c).  A node's first thread of the team (its
 * leader) takes part in the DSM's barriers for the node.  A nested
 * parallel region runs with a team of one where nesting is off (libgomp's
 * default) and with a team of threads of the encountering thread's node
 * where it is on (nest.c).
 *
 * Worksharing constructs are numbered in the order a thread meets them in
 * its region (every thread meets the same constructs in the same order, as
 * OpenMP requires); the number names the construct in messages to node 0,
 * which hands out dynamic chunks, sections and ordered turns (ws.c).
 */
#ifndef OMP_RT_H
#define OMP_RT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum omp_sched {
    OMP_SCHED_STATIC = 1,
    OMP_SCHED_DYNAMIC = 2,
    OMP_SCHED_GUIDED = 3,
    OMP_SCHED_AUTO = 4,
    OMP_SCHED_PROFILED = 5,     /* ompdsm's own: blocks by measured speed (profiled.c) */
};

/* The options of OMP_SCHEDULE=profiled[,warmup=K][,alpha=A][,hold=H][,min=G]. */
struct omp_profiled_opts {
    unsigned warmup;            /* executions not measured */
    double alpha;               /* tolerated deviation from the mean time */
    unsigned hold;              /* consecutive deviating executions before repartitioning */
    uint64_t min;               /* block granularity, in iterations */
    const char *file;           /* OMPDSM_PROFILE: the saved profile, or NULL */
};
extern struct omp_profiled_opts omp_profiled;

/* Internal control variables, from the environment (env.c) and omp_set_*. */
/* Active levels of parallelism supported (omp_get_supported_active_levels). */
#define OMP_ACTIVE_LEVELS_MAX 255
/* Levels of OMP_NUM_THREADS's list kept (a deeper level keeps the last). */
#define OMP_NTHREADS_LEVELS 8

struct omp_icv {
    int nthreads;               /* OMP_NUM_THREADS first level, 0 = unset */
    int nthreads_list[OMP_NTHREADS_LEVELS];     /* its levels 2, 3, ... (0: none) */
    enum omp_sched sched;       /* OMP_SCHEDULE, for schedule(runtime) */
    long chunk;
    bool monotonic;             /* its monotonic: modifier */
    bool dynamic;
    long max_active_levels, thread_limit;
    int num_teams, teams_thread_limit;  /* OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT (0: unset) */
    int default_device;         /* OMP_DEFAULT_DEVICE, omp_set_default_device (target.c) */
    bool cancellation;          /* OMP_CANCELLATION (cancel.c) */
    bool display_affinity;      /* OMP_DISPLAY_AFFINITY (affinity.c) */
    bool affinity_format_set;   /* else OMP_AFFINITY_FORMAT's */
    char affinity_format[256];  /* omp_set_affinity_format's */
};

/* The node's part in the job and in the outermost region. */
/* The OpenMP threads a node runs at most. */
#define OMP_RT_NODE_THREADS_MAX 1024

struct omp_rt {
    int node, nodes;
    int threads;                /* OpenMP threads this node runs by default (placement.c); at
                                 * most dsm.app_threads, which a larger team raises */
    int team;                   /* threads of the outermost region (level 1); 1 outside */
    int team_nodes;             /* nodes with threads in it (0 .. team_nodes-1) */
    int local;                  /* this node's threads in it */
    int first;                  /* the thread number of the first of them */
    bool in_team;               /* in a region whose team other nodes run or sit out */
    uint64_t region;            /* parallel regions started so far */
    uintptr_t exe_base;         /* load address of the executable */
    size_t stack_size;          /* OMP_STACKSIZE in bytes, 0: unset (pool.c) */
};

/* The calling thread's place in the team of its innermost region. */
struct omp_thr {
    int size, num;              /* the team's size, this thread's number */
    int local;                  /* its index among its node's threads of the team (0: the leader) */
    int level;                  /* nesting depth of parallel regions */
    int active_level;           /* of them, those with teams of more than one thread */
    bool active;                /* inside a parallel region with > 1 thread */
    int nthreads;               /* the nthreads ICV of this thread's task in a region (omp_set_num_threads,
                                 * OMP_NUM_THREADS's list); 0: the node's, omp_icv.nthreads */
    uint64_t ws_seq;            /* worksharing constructs met in this region */
    int teams, team_num;        /* the enclosing teams construct's league (teams.c); teams 0: none */
    const struct omp_thr *up;   /* the encountering thread's place in the enclosing region, within level 1 */
    struct omp_nest *nest;      /* a nested team (nest.c) this thread is a member of, or NULL */
};

/* The even split of n items into `parts` contiguous parts, the first
 * n % parts of them one item larger (a static loop's blocks, a team's
 * threads over the nodes): the first item of part p (p = parts: n), and
 * the part that holds item v < n. */
static inline uint64_t omp_split_start(uint64_t p, uint64_t n, uint64_t parts)
{
    uint64_t q = n / parts, r = n % parts;
    return p * q + (p < r ? p : r);
}

static inline uint64_t omp_split_part(uint64_t v, uint64_t n, uint64_t parts)
{
    uint64_t q = n / parts, r = n % parts;
    return v < r * (q + 1) ? v / (q + 1) : r + (v - r * (q + 1)) / q;
}

extern struct omp_icv omp_icv;
extern struct omp_rt omp_rt;
extern __thread struct omp_thr omp_thr;

/* env.c */
void omp_env_load(void);
void omp_env_display(bool verbose);     /* OMP_DISPLAY_ENV's report, to stderr */
bool omp_parse_schedule(const char *v, enum omp_sched *kind, long *chunk, bool *monotonic);
const char *omp_sched_name(enum omp_sched kind);

/* ws_mem.c: what a worksharing loop or sections asks of the runtime for
 * its team as it starts (GOMP_loop_start's and GOMP_sections2_start's
 * reductions and mem, either NULL): the copies of its task reductions
 * (task_red.c) and the memory for a scan or lastprivate(conditional:)
 * (*mem: its size in, the memory out).  Every thread of the team calls it. */
void omp_ws_start_extras(uintptr_t *reductions, void **mem, const void *caller);

/* single.c: a value that thread 0 of the team makes (make(arg)) and every
 * thread gets, as for copyprivate; every thread of the team calls it. */
void *omp_rt_team_value(void *(*make)(void *arg), void *arg);

/* affinity.c: a thread has joined a team (OMP_DISPLAY_AFFINITY's report). */
void omp_affinity_team_joined(void);

/* placement.c */
void omp_placement_init(void);     /* sets omp_rt.threads where no variable did */
bool omp_placement_cpus_shared(void);

/* heap.c: the malloc family of the program, called with the caller's
 * address (the program's calls get shared memory).  Exported: in
 * AddressSanitizer builds the program's wrappers (wrap_main.c,
 * wrap_alloc.c) call them.  Each returns NULL (or an error) exactly where
 * the C library's does. */
void *omp_rt_malloc(size_t size, const void *caller);
void omp_rt_free(void *p);
void *omp_rt_calloc(size_t n, size_t size, const void *caller);
void *omp_rt_realloc(void *p, size_t size, const void *caller);
void *omp_rt_reallocarray(void *p, size_t n, size_t size, const void *caller);
void *omp_rt_memalign(size_t align, size_t size, const void *caller);
void *omp_rt_valloc(size_t size, const void *caller);
void *omp_rt_pvalloc(size_t size, const void *caller);
int omp_rt_posix_memalign(void **out, size_t align, size_t size, const void *caller);
size_t omp_rt_usable_size(void *p);
/* Whether a call from caller (a return address) is the program's: its
 * allocations are shared. */
bool omp_heap_for_program(const void *caller);

/* libc_alloc.c: the C library's definition of name, the next one after
 * libompdsm's (fatal if there is none), for the functions the runtime
 * stands in front of (here, files.c, shared_io.c, proc_state.c). */
void *omp_libc_fn(const char *name);
/* REAL(fn) declares real_fn, the C library's fn, looked up once. */
#define REAL(fn)                                 \
    static __typeof__(fn) *real_##fn;            \
    if (!real_##fn)                              \
        real_##fn = (__typeof__(fn) *)omp_libc_fn(#fn)
/* libc_alloc.c: C library functions that allocate for the program, called
 * with the caller's address (exported, as the malloc family). */
char *omp_rt_strdup(const char *s, const void *caller);
char *omp_rt_strndup(const char *s, size_t max, const void *caller);
int omp_rt_vasprintf(char **out, const char *fmt, va_list ap, const void *caller);
ssize_t omp_rt_getdelim(char **line, size_t *size, int delim, FILE *f, const void *caller);
char *omp_rt_realpath(const char *path, char *resolved, const void *caller);
char *omp_rt_getcwd(char *buf, size_t size, const void *caller);
char *omp_rt_get_current_dir_name(const void *caller);

/* maps.c: the program's mmap and its kin, called by wrappers linked into
 * the program (wrap_maps.c) with the caller's address (a return address):
 * its private mappings are blocks of the shared heap. */
void *omp_rt_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off, const void *caller);
int omp_rt_munmap(void *p, size_t len);
int omp_rt_msync(void *p, size_t len, int flags);
void *omp_rt_mremap(void *p, size_t old_len, size_t new_len, int flags, void *to, const void *caller);

/* fork.c: whether this process is a child the program forked (it takes no
 * part in the job); init notes the node's own process. */
bool omp_rt_forked_child(void);
void omp_fork_init(void);

/* The C library's report of a failed _FORTIFY_SOURCE check (the checked
 * forms of the calls shared_io.c and sys_out.c stand in front of). */
void __chk_fail(void) __attribute__((noreturn));

/* sys_out.c: the C library's getcwd into a buffer of the caller's, which
 * may be shared. */
char *omp_sys_getcwd(char *buf, size_t size);

/* shared_io.c: stdio's calls whose buffer may be shared memory (files.c
 * stands in front of them). */
size_t omp_shared_fread(void *p, size_t size, size_t n, FILE *f);
size_t omp_shared_fwrite(const void *p, size_t size, size_t n, FILE *f);
int omp_shared_fputs(const char *s, FILE *f);

/* parallel.c */
void omp_rt_register(void);          /* message handlers, before any region */
int omp_rt_worker_loop(void);         /* nodes other than 0: returns the exit status */
void omp_rt_broadcast_exit(int status);
int omp_rt_team_size(void);
int omp_rt_thread_num(void);
int omp_rt_max_threads(void);        /* the threads of all nodes by default */
long omp_rt_nthreads(void);          /* the nthreads ICV, or omp_rt_max_threads() if unset */
/* The nthreads ICV of a thread of a new team at `level`: OMP_NUM_THREADS's
 * list's for that level, else the encountering thread's (inherited). */
int omp_rt_nthreads_at(int level, int inherited);
/* k threads bounded by OMP_THREAD_LIMIT and OMP_RT_NODE_THREADS_MAX a node. */
long omp_rt_team_bound(long k);

/* tls_mirror.c: node 0's threadprivate variables at the addresses other
 * nodes follow (copyin, copyprivate).  init on every node at start-up, in
 * the same order of shared allocations; publish by node 0's thread 0
 * before a region or a copyprivate reaches the others, apply at the others
 * after. */
void omp_tls_mirror_init(void);
void omp_tls_mirror_publish(void);
void omp_tls_mirror_apply(void);
/* files.c: node 0's files written from other nodes.  init at start-up, on
 * every node, in the same order of shared allocations; publish by node
 * 0's thread 0 before a region reaches the others, apply at the others
 * after. */
void omp_files_init(void);
void omp_files_publish(void);
void omp_files_apply(void);
/* proc_state.c: node 0's working directory and environment, as its
 * program changed them, at the other nodes; init, publish and apply as
 * for files. */
void omp_proc_state_init(void);
void omp_proc_state_publish(void);
void omp_proc_state_apply(void);
/* Stops the job if f is node 0's and this is another node: fn (a read, a
 * seek ...) cannot be done with it here. */
void omp_files_refuse(const FILE *f, const char *fn);

/* entry.c: the floor of the program's frames on node 0's shared stack.
 * An entry point that may release memory starts with OMP_RT_ENTRY; the
 * runtime runs the program's code through omp_rt_call_user(_copy). */
const void *omp_rt_enter(const void *frame);
void omp_rt_leave(const void *const *outer);
#define OMP_RT_ENTRY                                                                  \
    const void *omp_rt_outer_floor_ __attribute__((cleanup(omp_rt_leave), unused)) = \
        omp_rt_enter(__builtin_frame_address(0))
void omp_rt_call_user(void (*fn)(void *), void *data);
void omp_rt_call_user_copy(void (*fn)(void *, void *), void *dst, void *src);

/* pool.c: the node's threads beyond its first.  omp_pool_run() has
 * threads 1 .. n-1 of the node run member(local, arg) while the caller
 * runs its own part of the region; each returns from member() only
 * through the barrier that ends the region.  omp_pool_barrier() is the barrier among
 * the node's threads of the team: every one arrives, the leader (local
 * thread 0) runs leader_work(arg) once all have, then all leave.  It is
 * the identity when the node runs one thread of the team.  omp_pool_value
 * is a word the leader's work may leave for the others to read after it. */
void omp_pool_run(int n, void (*member)(int local, void *arg), void *arg);
/* Starts a thread of the runtime's (the pool's, the first OpenMP thread of
 * a node other than 0): fatal if it cannot, naming `what`. */
void omp_thread_start(void *(*fn)(void *), void *arg, const char *what);
/* The same for a thread that runs the program's code (a member of a team):
 * it blocks the signals the program's first thread takes. */
void omp_app_thread_start(void *(*fn)(void *), void *arg, const char *what);
void omp_pool_barrier(void (*leader_work)(void *arg), void *arg);
extern void *omp_pool_value;
/* Wakes the node's threads that wait in a node barrier: a task is queued. */
void omp_pool_ring(void);
/* Returns once the node's other threads all wait for a region: before the
 * node leaves the job. */
void omp_pool_quiesce(void);

/* nest.c: a nested team of `size` threads of this node, the calling thread
 * its thread 0: each runs body(arg), then the barrier that ends the region;
 * returns when all are done.  In the team (omp_thr.nest set): its barrier,
 * and a value thread 0 gives (giver) the others at a barrier of the team
 * (copyprivate). */
void omp_nest_run(int size, void (*body)(void *arg), void *arg);
void omp_nest_barrier(void);
void *omp_nest_share(void *value, bool giver);

/* parallel.c: the team barrier (a DSM barrier among the nodes) that home
 * migration does not count: the end of sections. */
void omp_rt_barrier(void);
/* The barrier that ends a parallel region or a worksharing loop, and
 * `#pragma omp barrier` (barrier.c): these are the barriers OMPDSM_MIGRATE
 * counts.  loop: the call site of the worksharing loop it ends or of the
 * barrier, or the region's code (OMPDSM_MIGRATE=first migrates at the end
 * of each one's first execution), or 0. */
void omp_rt_end_barrier(uintptr_t loop);

/* cancel.c: whether the team may cancel (OMP_CANCELLATION=true, a team
 * of more than one); then each barrier that is a cancellation point is
 * omp_cancel_barrier, which says whether the region is cancelled, and
 * every thread calls omp_cancel_region_end before the barrier that ends
 * the region. */
bool omp_cancel_active(void);
bool omp_cancel_barrier(void);
/* Every team barrier counts (it ends the worksharing construct before it). */
void omp_cancel_passed_barrier(void);
void omp_cancel_region_end(void);
void omp_cancel_register(void);

/* ws.c: node 0's worksharing service. */
void omp_ws_register(void);
void omp_ws_reset(void);

/* heap.c: the shared heap (collective; before main runs) */
void omp_heap_init(void);

/* task.c: the task queue's message handlers (before any region), and the
 * wait of a task scheduling point that precedes every team barrier: this
 * node's tasks are all complete when it returns. */
void omp_task_register(void);
void omp_task_drain(void);
/* For a thread waiting in a node barrier: runs one task queued at this
 * node (true), if there is one; whether one is queued. */
bool omp_task_help(void);
bool omp_task_queued(void);
/* For the same thread: while its node waits in a barrier's release, runs
 * one task another node made (true), if it gets one; whether other nodes
 * have announced tasks in this interval. */
bool omp_task_steal_arrived(void);
bool omp_task_elsewhere(void);

/* flush.c: stops with a message if the CPU cannot save what a fence keeps live. */
void omp_rt_flush_check_cpu(void);
/* A flush (ompdsm_fence's work): across nodes in a region, a fence outside;
 * the one an atomic's memory order asks for (atomics.c) never sleeps for
 * news. */
void omp_rt_flush(void) __attribute__((used));
void omp_rt_flush_at_atomic(void);
/* exit.c: the end of the job when exit() is called inside a parallel
 * region (any node): every node writes out its output and leaves with the
 * status.  init takes the program's stdout and stderr. */
void omp_exit_init(FILE *out, FILE *err);
void omp_exit_register(void);
_Noreturn void omp_exit_job(int status);
/* A thread of a node other than 0 that calls exit(): node 0 runs it. */
_Noreturn void omp_exit_at_node0(int status);


#endif
