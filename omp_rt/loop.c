/*
 * loop.c: worksharing loops: the GOMP_loop_* and GOMP_parallel_loop_*
 * entry points, for long and unsigned long long iteration variables.
 *
 * GCC computes static schedules inline; it calls the runtime for dynamic,
 * guided and runtime schedules, ordered loops and combined constructs.
 * Here every schedule is reduced to chunks of iteration numbers:
 *   static (and auto)  computed locally from the thread number, as libgomp
 *                      does (blocks, or chunks dealt round-robin);
 *   dynamic            nonmonotonic (GCC's default): each node takes chunks
 *                      from its own range and steals from the others'
 *                      when out (steal.c); monotonic or ordered: as guided;
 *   guided             handed out by node 0 (ws.c), one message per chunk;
 *   runtime            whatever OMP_SCHEDULE / omp_set_schedule chose.
 *
 * ordered: a thread waits at node 0 for its iteration's turn, then takes a
 * DSM lock for the ordered part, so it sees the writes of the ordered part
 * before it (release consistency through the lock's write notices).
 */
#include "gomp_abi.h"
#include "loop.h"

#include "../dsm/dsm.h"
#include "../profiler/prof.h"
#include "../util/clock.h"
#include "../util/log.h"

#include <pthread.h>

#define GFS_MONOTONIC 0x80000000UL
/* Ours, beside the schedule kind: an entry point that lets chunks run in
 * any order per thread (GCC's nonmonotonic_* and maybe_nonmonotonic_*). */
#define NONMONOTONIC 0x40000000
#define API __attribute__((visibility("default")))
/* The call site of an entry point: with the bounds, it names a loop site
 * for the profiled schedule. */
#define WHERE ((uintptr_t)__builtin_return_address(0))

static __thread struct omp_loop_state cur;

void omp_loop_state_save(struct omp_loop_state *to)
{
    *to = cur;
}

void omp_loop_state_restore(const struct omp_loop_state *from)
{
    cur = *from;
}

static int resolve(int kind, long *chunk, bool *steal)
{
    bool any_order = kind & NONMONOTONIC;
    kind &= ~(int)(GFS_MONOTONIC | NONMONOTONIC);
    if (kind == 0) {             /* schedule(runtime) */
        kind = omp_icv.sched;
        *chunk = omp_icv.chunk;
        any_order &= !omp_icv.monotonic;
    }
    *steal = any_order && kind == OMP_SCHED_DYNAMIC;
    if (kind == OMP_SCHED_AUTO) {
        kind = OMP_SCHED_STATIC;
        *chunk = 0;
    }
    if (kind < OMP_SCHED_STATIC || (kind > OMP_SCHED_GUIDED && kind != OMP_SCHED_PROFILED))
        dsm_fatal("unknown loop schedule %d", kind);
    if (kind == OMP_SCHED_PROFILED)
        *chunk = 0;
    else if (kind != OMP_SCHED_STATIC && *chunk < 1)
        *chunk = 1;
    return kind;
}

void omp_loop_args_long(struct omp_loop_args *a, int kind, long start, long end, long incr, long chunk)
{
    *a = (struct omp_loop_args){ 0 };
    a->kind = resolve(kind, &chunk, &a->steal);
    a->chunk = chunk;
    a->ull = false;
    a->start = (uint64_t)start;
    a->incr = (uint64_t)incr;
    if (incr > 0)
        a->n = start < end ? ((uint64_t)end - (uint64_t)start + (uint64_t)incr - 1) / (uint64_t)incr : 0;
    else
        a->n = start > end ? ((uint64_t)start - (uint64_t)end - (uint64_t)incr - 1) / (0 - (uint64_t)incr) : 0;
}

void omp_loop_args_ull(struct omp_loop_args *a, int kind, bool up, unsigned long long start,
                       unsigned long long end, unsigned long long incr, unsigned long long chunk)
{
    long c = (long)chunk;
    *a = (struct omp_loop_args){ 0 };
    a->kind = resolve(kind, &c, &a->steal);
    a->chunk = c;
    a->ull = true;
    a->start = start;
    a->incr = incr;
    if (up)
        a->n = start < end ? (end - start + incr - 1) / incr : 0;
    else
        a->n = start > end ? (start - end + (0 - incr) - 1) / (0 - incr) : 0;
}

void omp_loop_init(const struct omp_loop_args *a)
{
    cur.a = *a;
    cur.seq = ++omp_thr.ws_seq;
    cur.dealt = 0;
    cur.next = 0;
    cur.doacross = false;
    cur.t0 = dsm_now_ns();
    cur.first = UINT64_MAX;
    cur.iters = 0;
    cur.reported = false;
}

/* Tells the profiler about this node's execution once it has run out of
 * iterations (sections, which have no call site of their own, are left out). */
static void account(bool more, uint64_t lo, uint64_t hi)
{
    if (more) {
        cur.first = lo < cur.first ? lo : cur.first;
        cur.iters += hi - lo;
    } else if (!cur.reported && cur.a.where) {
        cur.reported = true;
        prof_loop(cur.a.where, omp_sched_name(cur.a.kind), cur.t0, dsm_now_ns(),
                  cur.iters ? cur.first : 0, cur.iters);
    }
}

static bool static_next(uint64_t *lo, uint64_t *hi)
{
    uint64_t size = (uint64_t)omp_rt_team_size(), num = (uint64_t)omp_rt_thread_num(), n = cur.a.n;
    if (cur.a.chunk <= 0) {
        if (cur.dealt++)
            return false;
        *lo = omp_split_start(num, n, size);
        *hi = omp_split_start(num + 1, n, size);
    } else {
        uint64_t c = (uint64_t)cur.a.chunk, k = cur.dealt++ * size + num;
        if (k >= (n + c - 1) / c)
            return false;
        *lo = k * c;
        *hi = *lo + c < n ? *lo + c : n;
    }
    return *lo < *hi;
}

/* A profiled loop's block at this node, which the node's threads of the
 * team share: the first to start the loop asks the profiled schedule for
 * it (and starts the node's clock), each takes its static part, and the
 * last to finish its part stops the clock.  A thread that meets the next
 * profiled loop first (nowait) waits until every thread is done with this
 * one. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t region, seq;       /* the loop the block is of */
    uint64_t lo, hi;
    int ended;                  /* threads that finished their part */
} node_block = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void block_begin(const struct omp_site_key *k, uint64_t *lo, uint64_t *hi)
{
    int n = omp_rt.local;
    if (n == 1 || omp_thr.level != 1) {
        omp_profiled_begin(k, cur.a.where, lo, hi);
        return;
    }
    dsm_lock(&node_block.mu);
    /* The node's block of an earlier loop of this region: every thread must
     * have taken its part and finished it first. */
    while (node_block.region == omp_rt.region && node_block.seq != cur.seq && node_block.ended < n)
        pthread_cond_wait(&node_block.cv, &node_block.mu);
    if (node_block.region != omp_rt.region || node_block.seq != cur.seq) {
        omp_profiled_begin(k, cur.a.where, &node_block.lo, &node_block.hi);
        node_block.region = omp_rt.region;
        node_block.seq = cur.seq;
        node_block.ended = 0;
    }
    uint64_t len = node_block.hi - node_block.lo, i = (uint64_t)omp_thr.local;
    *lo = node_block.lo + omp_split_start(i, len, (uint64_t)n);
    *hi = node_block.lo + omp_split_start(i + 1, len, (uint64_t)n);
    dsm_unlock(&node_block.mu);
}

static void block_end(void)
{
    int n = omp_rt.local;
    if (n == 1 || omp_thr.level != 1) {
        omp_profiled_end(cur.block);
        return;
    }
    dsm_lock(&node_block.mu);
    if (++node_block.ended == n) {
        omp_profiled_end(node_block.hi - node_block.lo);
        pthread_cond_broadcast(&node_block.cv);
    }
    dsm_unlock(&node_block.mu);
}

/* One block per node, sized by the profiled schedule and split among the
 * node's threads; asking for the next block ends the timing of this one. */
static bool profiled_next(uint64_t *lo, uint64_t *hi)
{
    if (cur.dealt++ == 0) {
        struct omp_site_key k = { .start = cur.a.start, .incr = cur.a.incr, .n = cur.a.n };
        block_begin(&k, lo, hi);
        cur.timing = true;
        cur.block = *hi - *lo;
        if (*lo < *hi)
            return true;
    }
    if (cur.timing)
        block_end();
    cur.timing = false;
    *lo = *hi = cur.a.n;
    return false;
}

bool omp_loop_next(uint64_t *lo, uint64_t *hi)
{
    bool more;
    if (cur.a.kind == OMP_SCHED_PROFILED && omp_rt_team_size() > 1 && omp_rt.team_nodes > 1 && !omp_thr.nest) {
        more = profiled_next(lo, hi);
    } else if (cur.a.kind == OMP_SCHED_STATIC || cur.a.kind == OMP_SCHED_PROFILED) {
        more = static_next(lo, hi);
    } else if (omp_rt_team_size() == 1) {
        uint64_t c = (uint64_t)cur.a.chunk;
        *lo = cur.next;
        *hi = cur.a.n - *lo < c ? cur.a.n : *lo + c;
        cur.next = *hi;
        more = *lo < *hi;
    } else if (omp_thr.nest) {
        more = omp_nest_next(cur.seq, &cur.a, lo, hi);
    } else {
        struct omp_ws_ask ask = { .region = omp_rt.region, .seq = cur.seq, .n = cur.a.n,
                                  .chunk = cur.a.chunk, .kind = cur.a.kind, .nthreads = omp_rt_team_size(),
                                  .nodes = omp_rt.team_nodes };
        if (cur.a.steal) {
            more = omp_steal_next(&ask, lo, hi);
        } else {
            omp_ws_next(&ask, lo, hi);
            more = *lo < *hi;
        }
    }
    account(more, *lo, *hi);
    if (!more && cur.doacross) {
        cur.doacross = false;
        omp_doacross_end();
    }
    cur.chunk_lo = *lo;
    cur.ordered_done = 0;
    return more;
}

uintptr_t omp_loop_last_site(void)
{
    return omp_thr.ws_seq && cur.seq == omp_thr.ws_seq ? cur.a.where : 0;
}

uint64_t omp_loop_current(void)
{
    return cur.chunk_lo + cur.ordered_done;
}

/* ---- mapping iteration numbers back to the program's values ------------- */

static bool next_long(long *istart, long *iend)
{
    uint64_t lo, hi;
    if (!omp_loop_next(&lo, &hi))
        return false;
    *istart = (long)(cur.a.start + lo * cur.a.incr);
    *iend = (long)(cur.a.start + hi * cur.a.incr);
    return true;
}

static bool next_ull(unsigned long long *istart, unsigned long long *iend)
{
    uint64_t lo, hi;
    if (!omp_loop_next(&lo, &hi))
        return false;
    *istart = cur.a.start + lo * cur.a.incr;
    *iend = cur.a.start + hi * cur.a.incr;
    return true;
}

static bool start_long(uintptr_t where, int kind, long start, long end, long incr, long chunk, long *istart,
                       long *iend)
{
    struct omp_loop_args a;
    omp_loop_args_long(&a, kind, start, end, incr, chunk);
    a.where = where;
    omp_loop_init(&a);
    return istart ? next_long(istart, iend) : true;     /* none: GCC schedules it (task reductions, scan) */
}

static bool start_ull(uintptr_t where, int kind, bool up, unsigned long long start, unsigned long long end,
                      unsigned long long incr, unsigned long long chunk, unsigned long long *istart,
                      unsigned long long *iend)
{
    struct omp_loop_args a;
    omp_loop_args_ull(&a, kind, up, start, end, incr, chunk);
    a.where = where;
    omp_loop_init(&a);
    return istart ? next_ull(istart, iend) : true;
}

/* ---- the entry points ---------------------------------------------------- */

#define LOOP_LONG(name, kind)                                                                  \
    API bool GOMP_loop_##name##_start(long s, long e, long i, long c, long *is, long *ie)          \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return start_long(WHERE, kind, s, e, i, c, is, ie);                                        \
    }                                                                                          \
    API bool GOMP_loop_##name##_next(long *is, long *ie)                                           \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return next_long(is, ie);                                                              \
    }                                                                                          \
    API bool GOMP_loop_ull_##name##_start(bool up, unsigned long long s, unsigned long long e,      \
                                      unsigned long long i, unsigned long long c,              \
                                      unsigned long long *is, unsigned long long *ie)          \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return start_ull(WHERE, kind, up, s, e, i, c, is, ie);                                     \
    }                                                                                          \
    API bool GOMP_loop_ull_##name##_next(unsigned long long *is, unsigned long long *ie)           \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return next_ull(is, ie);                                                               \
    }

#define LOOP_RUNTIME(name, order)                                                              \
    API bool GOMP_loop_##name##_start(long s, long e, long i, long *is, long *ie)                  \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return start_long(WHERE, order, s, e, i, 0, is, ie);                                       \
    }                                                                                          \
    API bool GOMP_loop_##name##_next(long *is, long *ie)                                           \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return next_long(is, ie);                                                              \
    }                                                                                          \
    API bool GOMP_loop_ull_##name##_start(bool up, unsigned long long s, unsigned long long e,      \
                                      unsigned long long i, unsigned long long *is,            \
                                      unsigned long long *ie)                                  \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return start_ull(WHERE, order, up, s, e, i, 0, is, ie);                                    \
    }                                                                                          \
    API bool GOMP_loop_ull_##name##_next(unsigned long long *is, unsigned long long *ie)           \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        return next_ull(is, ie);                                                               \
    }

LOOP_LONG(static, OMP_SCHED_STATIC)
LOOP_LONG(dynamic, OMP_SCHED_DYNAMIC)
LOOP_LONG(guided, OMP_SCHED_GUIDED)
LOOP_LONG(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC | NONMONOTONIC)
LOOP_LONG(nonmonotonic_guided, OMP_SCHED_GUIDED | NONMONOTONIC)
LOOP_LONG(ordered_static, OMP_SCHED_STATIC)
LOOP_LONG(ordered_dynamic, OMP_SCHED_DYNAMIC)
LOOP_LONG(ordered_guided, OMP_SCHED_GUIDED)
LOOP_RUNTIME(runtime, 0)
LOOP_RUNTIME(nonmonotonic_runtime, NONMONOTONIC)
LOOP_RUNTIME(maybe_nonmonotonic_runtime, NONMONOTONIC)
LOOP_RUNTIME(ordered_runtime, 0)

/* reductions: reduction(task, ...) on the loop; mem: memory GCC asks of the
 * construct for a scan or a lastprivate(conditional:) (ws_mem.c). */
bool GOMP_loop_start(long s, long e, long i, long sched, long c, long *is, long *ie, uintptr_t *reductions,
                     void **mem)
{
    OMP_RT_ENTRY;
    omp_ws_start_extras(reductions, mem, __builtin_return_address(0));
    return start_long(WHERE, (int)sched | (sched & GFS_MONOTONIC ? 0 : NONMONOTONIC), s, e, i, c, is, ie);
}

bool GOMP_loop_ordered_start(long s, long e, long i, long sched, long c, long *is, long *ie,
                             uintptr_t *reductions, void **mem)
{
    OMP_RT_ENTRY;
    omp_ws_start_extras(reductions, mem, __builtin_return_address(0));
    return start_long(WHERE, (int)sched, s, e, i, c, is, ie);
}

bool GOMP_loop_ull_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i, long sched,
                         unsigned long long c, unsigned long long *is, unsigned long long *ie,
                         uintptr_t *reductions, void **mem)
{
    OMP_RT_ENTRY;
    omp_ws_start_extras(reductions, mem, __builtin_return_address(0));
    return start_ull(WHERE, (int)sched | (sched & GFS_MONOTONIC ? 0 : NONMONOTONIC), up, s, e, i, c, is, ie);
}

bool GOMP_loop_ull_ordered_start(bool up, unsigned long long s, unsigned long long e, unsigned long long i,
                                 long sched, unsigned long long c, unsigned long long *is,
                                 unsigned long long *ie, uintptr_t *reductions, void **mem)
{
    OMP_RT_ENTRY;
    omp_ws_start_extras(reductions, mem, __builtin_return_address(0));
    return start_ull(WHERE, (int)sched, up, s, e, i, c, is, ie);
}

void GOMP_loop_end(void)
{
    OMP_RT_ENTRY;
    omp_rt_end_barrier(cur.a.where);
}

void GOMP_loop_end_nowait(void)
{
}

bool GOMP_loop_end_cancel(void)
{
    OMP_RT_ENTRY;
    if (omp_cancel_active())
        return omp_cancel_barrier();
    omp_rt_end_barrier(cur.a.where);
    return false;
}

/* ---- doacross loops (ordered(n) with depend) ------------------------------ */

/* The first dimension's counts[0] iterations, shared out statically with
 * the chunk the schedule resolves to (doacross.c says why). */
static bool doacross_start(uintptr_t where, int kind, long chunk, unsigned dims, const uint64_t *counts,
                           uint64_t *lo, uint64_t *hi)
{
    bool steal;
    if (omp_thr.nest)
        dsm_fatal("a loop with ordered(n) and depend clauses (doacross) inside a nested parallel region is not "
                  "supported: ompdsm runs doacross loops in teams of the outermost level only");
    resolve(kind, &chunk, &steal);
    struct omp_loop_args a;
    omp_loop_args_ull(&a, OMP_SCHED_STATIC, true, 0, counts[0], 1, (unsigned long long)chunk);
    a.where = where;
    omp_loop_init(&a);
    omp_doacross_begin(cur.seq, dims, counts, chunk);
    cur.doacross = true;
    return omp_loop_next(lo, hi);
}

static bool doacross_long(uintptr_t where, int kind, long chunk, unsigned dims, const long *counts,
                          long *istart, long *iend)
{
    uint64_t c[dims ? dims : 1], lo, hi;
    for (unsigned d = 0; d < dims; d++)
        c[d] = counts[d] > 0 ? (uint64_t)counts[d] : 0;
    bool more = doacross_start(where, kind, chunk, dims, c, &lo, &hi);
    *istart = (long)lo;
    *iend = (long)hi;
    return more;
}

static bool doacross_ull(uintptr_t where, int kind, long chunk, unsigned dims, const unsigned long long *counts,
                         unsigned long long *istart, unsigned long long *iend)
{
    uint64_t c[dims ? dims : 1], lo, hi;
    for (unsigned d = 0; d < dims; d++)
        c[d] = counts[d];
    bool more = doacross_start(where, kind, chunk, dims, c, &lo, &hi);
    *istart = lo;
    *iend = hi;
    return more;
}

#define LOOP_DOACROSS(name, kind)                                                                   \
    API bool GOMP_loop_doacross_##name##_start(unsigned n, long *counts, long c, long *is, long *ie)  \
    {                                                                                               \
        OMP_RT_ENTRY;                                                                               \
        return doacross_long(WHERE, kind, c, n, counts, is, ie);                                    \
    }                                                                                               \
    API bool GOMP_loop_ull_doacross_##name##_start(unsigned n, unsigned long long *counts,         \
                                                   unsigned long long c, unsigned long long *is,    \
                                                   unsigned long long *ie)                          \
    {                                                                                               \
        OMP_RT_ENTRY;                                                                               \
        return doacross_ull(WHERE, kind, (long)c, n, counts, is, ie);                               \
    }

LOOP_DOACROSS(static, OMP_SCHED_STATIC)
LOOP_DOACROSS(dynamic, OMP_SCHED_DYNAMIC)
LOOP_DOACROSS(guided, OMP_SCHED_GUIDED)

API bool GOMP_loop_doacross_runtime_start(unsigned n, long *counts, long *is, long *ie)
{
    OMP_RT_ENTRY;
    return doacross_long(WHERE, 0, 0, n, counts, is, ie);
}

API bool GOMP_loop_ull_doacross_runtime_start(unsigned n, unsigned long long *counts, unsigned long long *is,
                                              unsigned long long *ie)
{
    OMP_RT_ENTRY;
    return doacross_ull(WHERE, 0, 0, n, counts, is, ie);
}

bool GOMP_loop_doacross_start(unsigned n, long *counts, long sched, long chunk, long *istart, long *iend,
                              uintptr_t *reductions, void **mem)
{
    OMP_RT_ENTRY;
    omp_ws_start_extras(reductions, mem, __builtin_return_address(0));
    return doacross_long(WHERE, (int)sched, chunk, n, counts, istart, iend);
}

bool GOMP_loop_ull_doacross_start(unsigned n, gomp_ull *counts, long sched, gomp_ull chunk, gomp_ull *istart,
                                  gomp_ull *iend, uintptr_t *reductions, void **mem)
{
    OMP_RT_ENTRY;
    omp_ws_start_extras(reductions, mem, __builtin_return_address(0));
    return doacross_ull(WHERE, (int)sched, (long)chunk, n, counts, istart, iend);
}

/* ---- combined parallel loops --------------------------------------------- */

static void parallel_long(void (*fn)(void *), void *data, unsigned nt, int kind, long s, long e, long i,
                          long c)
{
    struct omp_loop_args a;
    omp_loop_args_long(&a, kind, s, e, i, c);
    a.where = (uintptr_t)fn;    /* the outlined body names the construct */
    omp_rt_parallel_loop(fn, data, nt, &a);
}

#define PARALLEL_LOOP(name, kind)                                                              \
    API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned nt, long s, long e,  \
                                   long i, long c, unsigned flags)                             \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        (void)flags;                                                                           \
        parallel_long(fn, data, nt, kind, s, e, i, c);                                         \
    }

#define PARALLEL_LOOP_RUNTIME(name, order)                                                     \
    API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned nt, long s, long e,  \
                                   long i, unsigned flags)                                     \
    {                                                                                          \
        OMP_RT_ENTRY;                                                                          \
        (void)flags;                                                                           \
        parallel_long(fn, data, nt, order, s, e, i, 0);                                        \
    }

PARALLEL_LOOP(static, OMP_SCHED_STATIC)
PARALLEL_LOOP(dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(guided, OMP_SCHED_GUIDED)
PARALLEL_LOOP(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC | NONMONOTONIC)
PARALLEL_LOOP(nonmonotonic_guided, OMP_SCHED_GUIDED | NONMONOTONIC)
PARALLEL_LOOP_RUNTIME(runtime, 0)
PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime, NONMONOTONIC)
PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime, NONMONOTONIC)

/* ---- ordered --------------------------------------------------------------- */

/* The key of the current loop's ordered lock, in the DSM_LOCK_ORDERED space. */
static uint64_t ordered_lock_key(void)
{
    return (omp_rt.region << 20) ^ cur.seq;
}

void GOMP_ordered_start(void)
{
    OMP_RT_ENTRY;
    if (omp_rt_team_size() == 1)
        return;
    if (omp_thr.nest) {
        omp_nest_ordered_wait(cur.seq, omp_loop_current());
        return;
    }
    omp_ws_ordered_wait(cur.seq, omp_loop_current());
    dsm_lock_acquire(DSM_LOCK_ORDERED, ordered_lock_key());
}

void GOMP_ordered_end(void)
{
    OMP_RT_ENTRY;
    if (omp_rt_team_size() == 1)
        return;
    uint64_t next = omp_loop_current() + 1;
    cur.ordered_done++;
    if (omp_thr.nest) {
        omp_nest_ordered_done(cur.seq, next);
        return;
    }
    dsm_lock_release(DSM_LOCK_ORDERED, ordered_lock_key());
    omp_ws_ordered_done(cur.seq, next);
}
