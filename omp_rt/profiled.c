/*
 * profiled.c: OMP_SCHEDULE=profiled, a block schedule whose blocks follow
 * the measured speed of the nodes.
 *
 * Loops are grouped by iteration space (first value, step, count): the
 * loops of a program that run over the same space usually touch the same
 * data by the same index (a stencil's copy and update sweeps), and on a
 * DSM they must keep the same blocks, or every node would work on rows
 * whose pages another node just wrote.  So a site here is an iteration
 * space, whatever call sites run over it; the profiler still reports each
 * call site.  Each execution of a profiled loop gives every node one
 * contiguous block; the node measures
 * the time from taking its block to asking for the next one (its compute
 * time, without the barrier that follows).  The timings ride on the next
 * DSM barrier (dsm_barrier_extra), so every node receives every node's
 * timing of an execution at the same barrier and updates the same table
 * in the same way: the blocks stay identical on all nodes without any
 * message of their own.
 *
 * A node's time is its compute time: the time it spent in page faults is
 * left out.  Fault time depends on where pages are homed, not on how fast
 * the node is, and it follows the blocks: counting it would move
 * iterations to a node, make it fetch their pages, and move them back.
 * Placing pages is home migration's job: with OMPDSM_MIGRATE on (first,
 * every...), a repartition also asks for a migration two counted barriers
 * later, once the moved iterations have faulted their pages where they
 * now run.
 *
 * Repartitioning: after `warmup` executions (the first ones fault pages
 * in), when in `hold` consecutive executions some node's time deviates
 * from the mean by more than alpha, the blocks move part of the way
 * towards a split in proportion to the speeds measured over those
 * executions (iterations per second), in multiples of `min` iterations.  Between repartitions the blocks stay put, so noise
 * does not make them thrash; moving at most halfway, and half as far again
 * each time a boundary turns back, damps the rest.  On a DSM this matters: iterations that change node
 * bring their pages' faults with them, so the first executions after a
 * change are slower than the speed they will settle at, and they are not
 * measured (`warmup` again).
 *
 * Sites are numbered in the order the program first meets them, which is
 * the same on every node (all threads meet every worksharing loop).  The
 * timings of the loops of one site add up: a site's execution is one loop
 * execution, whichever loop it was, and the speeds come from the sums over
 * the `hold` executions that triggered a repartition.
 */
#include "loop.h"
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../dsm/log.h"
#include "../dsm/stats.h"
#include "../migrate/migrate.h"

#include <stdlib.h>
#include <string.h>

struct omp_profiled_opts omp_profiled = { .warmup = 1, .alpha = 0.1, .hold = 3, .min = 1 };

struct site {
    struct omp_site_key key;
    uint64_t *bounds;           /* nodes + 1 iteration numbers */
    uint64_t started;           /* executions this node has started */
    uint64_t done;              /* executions whose timings every node has */
    uint64_t measure_from;      /* the first execution measured (after a warm-up) */
    unsigned window;            /* measured executions summed in win_* */
    double step;                /* how far blocks move towards the target */
    int *moved;                 /* per boundary: direction of its last move */
    int got;                    /* timings of execution `done` received */
    uint64_t *ns, *iters;       /* per node, for execution `done` */
    uint64_t *win_ns, *win_iters;   /* per node, summed over the window */
};

/* A timing, as it travels on a barrier. */
struct timing {
    uint32_t site;
    int32_t node;
    uint64_t exec, ns, iters;
};

static struct {
    struct site *v;
    size_t n;
    struct timing *out;         /* this node's timings not yet sent */
    size_t nout, capout;
    /* the execution this node is running */
    uint32_t site;
    uint64_t exec, t0, fault0;
} prof;

static uint64_t *node_array(void)
{
    uint64_t *a = calloc((size_t)omp_rt.nodes + 1, sizeof *a);
    if (!a)
        dsm_fatal("out of memory for the profiled schedule");
    return a;
}

static uint32_t site_of(const struct omp_site_key *k)
{
    for (size_t i = 0; i < prof.n; i++)
        if (!memcmp(&prof.v[i].key, k, sizeof *k))
            return (uint32_t)i;
    struct site *v = realloc(prof.v, (prof.n + 1) * sizeof *v);
    if (!v)
        dsm_fatal("out of memory for the profiled schedule");
    prof.v = v;
    struct site *s = &v[prof.n];
    memset(s, 0, sizeof *s);
    s->key = *k;
    s->bounds = node_array();
    s->measure_from = omp_profiled.warmup;
    s->step = 0.5;
    s->moved = calloc((size_t)omp_rt.nodes + 1, sizeof *s->moved);
    if (!s->moved)
        dsm_fatal("out of memory for the profiled schedule");
    s->ns = node_array();
    s->iters = node_array();
    s->win_ns = node_array();
    s->win_iters = node_array();
    for (int i = 0; i <= omp_rt.nodes; i++)     /* equal blocks, as static */
        s->bounds[i] = k->n * (uint64_t)i / (uint64_t)omp_rt.nodes;
    return (uint32_t)prof.n++;
}

/* ---- this node's execution ---------------------------------------------- */

void omp_profiled_begin(const struct omp_site_key *k, uint64_t *lo, uint64_t *hi)
{
    prof.site = site_of(k);
    struct site *s = &prof.v[prof.site];
    prof.exec = s->started++;
    *lo = s->bounds[omp_rt.node];
    *hi = s->bounds[omp_rt.node + 1];
    prof.t0 = dsm_now_ns();
    prof.fault0 = dsm_fault_time_ns();
}

void omp_profiled_end(uint64_t iters)
{
    if (prof.nout == prof.capout) {
        prof.capout = prof.capout ? 2 * prof.capout : 16;
        prof.out = realloc(prof.out, prof.capout * sizeof *prof.out);
        if (!prof.out)
            dsm_fatal("out of memory for loop timings");
    }
    uint64_t ns = dsm_now_ns() - prof.t0, faults = dsm_fault_time_ns() - prof.fault0;
    prof.out[prof.nout++] = (struct timing){ .site = prof.site, .node = omp_rt.node, .exec = prof.exec,
                                             .ns = ns > faults ? ns - faults : 1, .iters = iters };
}

/* ---- every node: the timings of every node ------------------------------- */

/* New blocks part of the way (step, at most half) from the current ones
 * towards a split in proportion to the speeds measured over the window, in
 * multiples of min iterations, each at least min long when there are
 * enough iterations.  (A node that had no iterations has no speed: its
 * block shrinks towards the minimum.)  Returns whether a block changed. */
static bool repartition(struct site *s)
{
    int nodes = omp_rt.nodes;
    double speed[nodes], total = 0;
    for (int i = 0; i < nodes; i++) {
        speed[i] = (s->win_iters[i] && s->win_ns[i]) ? (double)s->win_iters[i] / (double)s->win_ns[i] : 0;
        total += speed[i];
    }
    if (total <= 0)
        return false;
    uint64_t n = s->key.n, g = omp_profiled.min;
    uint64_t granules = (n + g - 1) / g, floor_each = granules >= (uint64_t)nodes ? 1 : 0;
    double acc = 0;
    bool flipped = false, changed = false;
    s->bounds[0] = 0;
    for (int i = 1; i < nodes; i++) {
        acc += speed[i - 1];
        double target = acc / total * (double)granules, now = (double)s->bounds[i] / (double)g;
        int dir = target > now ? 1 : target < now ? -1 : 0;
        flipped |= dir && dir == -s->moved[i];
        s->moved[i] = dir;
        uint64_t k = (uint64_t)(now + s->step * (target - now) + 0.5);
        uint64_t lo = s->bounds[i - 1] / g + floor_each, hi = granules - floor_each * (uint64_t)(nodes - i);
        k = k < lo ? lo : k > hi ? hi : k;
        uint64_t b = k * g < n ? k * g : n;
        changed |= b != s->bounds[i];
        s->bounds[i] = b;
    }
    s->bounds[nodes] = n;
    /* A boundary that turns back means the last step overshot (noise, or
     * the pages the moved iterations drag along): take smaller steps. */
    s->step = flipped ? (s->step > 1.0 / 16 ? s->step / 2 : s->step) : (s->step < 0.5 ? s->step * 2 : 0.5);
    return changed;
}

/* The largest deviation of a node's time from the mean time, relative. */
static double deviation(const uint64_t *ns, int nodes)
{
    double mean = 0, dev = 0;
    for (int i = 0; i < nodes; i++)
        mean += (double)ns[i] / nodes;
    for (int i = 0; i < nodes && mean > 0; i++) {
        double d = ((double)ns[i] - mean) / mean;
        dev = d > dev ? d : -d > dev ? -d : dev;
    }
    return dev;
}

static void clear_window(struct site *s)
{
    s->window = 0;
    memset(s->win_ns, 0, (size_t)omp_rt.nodes * sizeof *s->win_ns);
    memset(s->win_iters, 0, (size_t)omp_rt.nodes * sizeof *s->win_iters);
}

/* The blocks move when, in `hold` consecutive measured executions, some
 * node's time was off the mean by more than alpha; an execution within
 * alpha starts the count again. */
static void settle_execution(struct site *s)
{
    int nodes = omp_rt.nodes;
    s->done++;
    s->got = 0;
    if (s->done <= s->measure_from)
        return;
    if (deviation(s->ns, nodes) <= omp_profiled.alpha) {
        clear_window(s);
        return;
    }
    for (int i = 0; i < nodes; i++) {
        s->win_ns[i] += s->ns[i];
        s->win_iters[i] += s->iters[i];
    }
    if (++s->window < omp_profiled.hold)
        return;
    if (repartition(s)) {
        s->measure_from = s->done + omp_profiled.warmup;
        /* Let the homes of the pages that changed node follow, once the
         * new blocks have run (and faulted) twice. */
        mig_request(2);
    }
    clear_window(s);
}

static int cmp_timing(const void *a, const void *b)
{
    const struct timing *x = a, *y = b;
    if (x->site != y->site)
        return (x->site > y->site) - (x->site < y->site);
    if (x->exec != y->exec)
        return (x->exec > y->exec) - (x->exec < y->exec);
    return (x->node > y->node) - (x->node < y->node);
}

static void consume(const void *data, size_t len)
{
    size_t n = len / sizeof(struct timing);
    struct timing *t = malloc(len + 1);
    if (!t || len % sizeof *t)
        dsm_fatal("malformed loop timings on a barrier (%zu bytes)", len);
    memcpy(t, data, len);
    qsort(t, n, sizeof *t, cmp_timing);
    for (size_t i = 0; i < n; i++) {
        if (t[i].site >= prof.n || t[i].node < 0 || t[i].node >= omp_rt.nodes)
            dsm_fatal("loop timing of node %d for an unknown loop site %u", t[i].node, t[i].site);
        struct site *s = &prof.v[t[i].site];
        if (t[i].exec != s->done)
            dsm_fatal("internal: loop site %u: timing of execution %lu while collecting %lu", t[i].site,
                      (unsigned long)t[i].exec, (unsigned long)s->done);
        s->ns[t[i].node] = t[i].ns;
        s->iters[t[i].node] = t[i].iters;
        if (++s->got == omp_rt.nodes)
            settle_execution(s);
    }
    free(t);
}

static void *provide(size_t *len)
{
    *len = prof.nout * sizeof *prof.out;
    if (!prof.nout)
        return NULL;
    void *p = prof.out;
    prof.out = NULL;
    prof.nout = prof.capout = 0;
    return p;
}

void omp_profiled_init(void)
{
    dsm_barrier_extra(provide, consume);
}
