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
 * execution, whichever loop it was, and the speeds come from the medians over
 * the `hold` executions that triggered a repartition.
 */
#include "loop.h"
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../dsm/log.h"
#include "../dsm/stats.h"
#include "../migrate/migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct omp_profiled_opts omp_profiled = { .warmup = 1, .alpha = 0.1, .hold = 3, .min = 1 };

struct site {
    struct omp_site_key key;
    uint64_t *bounds;           /* nodes + 1 iteration numbers */
    uint64_t started;           /* executions this node has started */
    uint64_t done;              /* executions whose timings every node has */
    uint64_t measure_from;      /* the first execution measured (after a warm-up) */
    unsigned window;            /* measured executions in win_speed */
    int odd;                    /* the node off the mean in them (deviation()) */
    double step;                /* how far blocks move towards the target */
    int *moved;                 /* per boundary: direction of its last move */
    int got;                    /* timings of execution `done` received */
    uint64_t *ns, *iters;       /* per node, for execution `done` */
    double *win_speed;          /* [window][node]: speed / mean speed */
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
    s->win_speed = calloc((size_t)omp_profiled.hold * (size_t)omp_rt.nodes, sizeof *s->win_speed);
    if (!s->win_speed)
        dsm_fatal("out of memory for the profiled schedule");
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

/* Records the speeds of the nodes in the execution just settled, each
 * relative to their mean, as the window's next row. */
static void record_speeds(struct site *s)
{
    int nodes = omp_rt.nodes;
    double *row = &s->win_speed[(size_t)s->window * (size_t)nodes], mean = 0;
    for (int i = 0; i < nodes; i++) {
        row[i] = s->ns[i] ? (double)s->iters[i] / (double)s->ns[i] : 0;
        mean += row[i] / nodes;
    }
    for (int i = 0; i < nodes; i++)
        row[i] = mean > 0 ? row[i] / mean : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A node's speed over the window: the median of its relative speeds, so
 * that one execution disturbed by something else (a page storm, the node
 * descheduled for a while) does not decide the blocks. */
static double median_speed(const struct site *s, int node)
{
    double v[omp_profiled.hold];
    for (unsigned k = 0; k < s->window; k++)
        v[k] = s->win_speed[(size_t)k * (size_t)omp_rt.nodes + (size_t)node];
    qsort(v, s->window, sizeof *v, cmp_double);
    return s->window % 2 ? v[s->window / 2] : (v[s->window / 2 - 1] + v[s->window / 2]) / 2;
}

/* New blocks part of the way (step, at most half) from the current ones
 * towards a split in proportion to the speeds measured over the window (the
 * medians of the executions' relative speeds), in
 * multiples of min iterations, each at least min long when there are
 * enough iterations.  (A node that had no iterations has no speed: its
 * block shrinks towards the minimum.)  A move smaller than an eighth of
 * alpha of a block is not made: it would gain less than the noise of the
 * times, and on a DSM every move costs page traffic.  Returns whether the
 * blocks changed. */
static bool repartition(struct site *s)
{
    int nodes = omp_rt.nodes;
    double speed[nodes], total = 0;
    for (int i = 0; i < nodes; i++) {
        speed[i] = median_speed(s, i);
        total += speed[i];
    }
    if (total <= 0)
        return false;
    uint64_t n = s->key.n, g = omp_profiled.min;
    uint64_t granules = (n + g - 1) / g, floor_each = granules >= (uint64_t)nodes ? 1 : 0;
    uint64_t bounds[nodes + 1], largest = 0;
    int dirs[nodes + 1];
    double acc = 0;
    bounds[0] = 0;
    for (int i = 1; i < nodes; i++) {
        acc += speed[i - 1];
        double target = acc / total * (double)granules, now = (double)s->bounds[i] / (double)g;
        dirs[i] = target > now ? 1 : target < now ? -1 : 0;
        uint64_t k = (uint64_t)(now + s->step * (target - now) + 0.5);
        uint64_t lo = bounds[i - 1] / g + floor_each, hi = granules - floor_each * (uint64_t)(nodes - i);
        k = k < lo ? lo : k > hi ? hi : k;
        bounds[i] = k * g < n ? k * g : n;
        uint64_t d = bounds[i] > s->bounds[i] ? bounds[i] - s->bounds[i] : s->bounds[i] - bounds[i];
        largest = d > largest ? d : largest;
    }
    bounds[nodes] = n;
    double dead = omp_profiled.alpha / 8 * (double)n / nodes;
    if (largest == 0 || (double)largest < dead)
        return false;
    /* A boundary that turns back means the last step overshot (noise, or
     * the pages the moved iterations drag along): take smaller steps. */
    bool flipped = false;
    for (int i = 1; i < nodes; i++) {
        flipped |= dirs[i] && dirs[i] == -s->moved[i];
        s->moved[i] = dirs[i];
    }
    memcpy(s->bounds, bounds, sizeof bounds);
    s->step = flipped ? (s->step > 1.0 / 16 ? s->step / 2 : s->step) : (s->step < 0.5 ? s->step * 2 : 0.5);
    return true;
}

/* The node whose time is furthest from the mean time: its relative
 * deviation, and in *who the node, negated minus one if it was faster. */
static double deviation(const uint64_t *ns, int nodes, int *who)
{
    double mean = 0, dev = 0;
    for (int i = 0; i < nodes; i++)
        mean += (double)ns[i] / nodes;
    *who = 0;
    for (int i = 0; i < nodes && mean > 0; i++) {
        double d = ((double)ns[i] - mean) / mean;
        if (d > dev || -d > dev) {
            dev = d > 0 ? d : -d;
            *who = d > 0 ? i : -i - 1;
        }
    }
    return dev;
}

static void clear_window(struct site *s)
{
    s->window = 0;
}

/* The blocks move when, in `hold` consecutive measured executions, the
 * same node's time was off the mean by more than alpha, in the same
 * direction; an execution within alpha, or another node off, starts the
 * count again.  Noise makes a different node the odd one out from one
 * execution to the next; a slower (or faster) node stays the odd one. */
static void settle_execution(struct site *s)
{
    int nodes = omp_rt.nodes;
    s->done++;
    s->got = 0;
    if (s->done <= s->measure_from)
        return;
    int who;
    if (deviation(s->ns, nodes, &who) <= omp_profiled.alpha) {
        clear_window(s);
        return;
    }
    if (s->window > 0 && who != s->odd)
        clear_window(s);
    s->odd = who;
    record_speeds(s);
    if (++s->window < omp_profiled.hold)
        return;
    if (repartition(s)) {
        /* Let the homes of the pages that changed node follow, once the
         * new blocks have run (and faulted) twice.  Until the migration
         * and the execution after it (which fetches what moved) are over,
         * times say more about traffic than about speed. */
        s->measure_from = s->done + omp_profiled.warmup + (mig_request(2) ? 3 : 0);
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
