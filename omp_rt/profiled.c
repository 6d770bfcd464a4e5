/*
 * profiled.c: OMP_SCHEDULE=profiled, a block schedule whose blocks follow
 * the measured speed of the nodes.
 *
 * Loops are grouped by the rows they run over: loops with the same step
 * over nearly the same indices (joins()) usually touch the same data by
 * the same index (a stencil's copy over rows 0..N-1 and its update over
 * rows 1..N-2), and on a DSM they must keep the same blocks, or every
 * node would work on rows whose pages another node just wrote.  So a site
 * here is a group of loops, whatever call sites and parallel regions they
 * are in, and its block boundaries are the program's indices: each node
 * runs the same rows in every loop of the site.  The profiler still
 * reports each call site.  Each execution of a profiled loop gives every
 * node one contiguous block; the node measures the time from taking its
 * block to asking for the next one (its compute time, without the barrier
 * that follows).  The timings ride on the next
 * DSM barrier (dsm_barrier_extra), so every node receives every node's
 * timing of an execution at the same barrier and updates the same table
 * in the same way: the blocks stay identical on all nodes without any
 * message of their own.
 *
 * A node's time is the wall-clock time of its block, page faults
 * included.  Leaving fault time out would be wrong twice over: a node
 * that shares its CPU (or is held to a quota) loses the CPU inside faults
 * too, as it waits for a page, so its slowness would partly vanish from
 * the figures; and the faults that do not follow speed, those of
 * iterations that just changed node, fall in the executions right after a
 * change, which are not measured.  Placing pages is home migration's job:
 * with OMPDSM_MIGRATE on (first, every...), a repartition also asks for a
 * migration after each of the next executions (one per loop of the site),
 * once the moved iterations have faulted their pages where they now run.
 *
 * Repartitioning: after `warmup` executions (the first ones fault pages
 * in; so does each loop's first after a change of blocks or homes, which
 * is not measured either), the last executions on the current blocks (up
 * to WINDOW, at least `hold`) are kept in a ring.  When, at `hold`
 * consecutive executions, the same node's time summed over the ring is off
 * the mean by more than alpha, the blocks may move towards a split in
 * proportion to speed (iterations per second, both summed over the ring),
 * in multiples of `min` iterations.  Sums, not one execution's figures: a
 * node that shares its CPU runs in turns, so one short execution may catch
 * it at full speed and the next at a third.  Which speeds: those over the
 * whole ring, or those of one of the site's loops; the loops share the
 * blocks but not always the nodes' relative speeds (one node may be the
 * slower on a stencil's copy and not on its update), so each candidate
 * split is judged by the time the ring's executions would have taken on
 * it, each loop's execution lasting as long as its slowest node
 * (repartition()).  A move is made only if the best candidate saves alpha
 * of that time.
 *
 * Moves go halfway; a site's first move goes all the way to the split
 * measured if that promises to save twice alpha (the equal blocks it
 * starts from were a guess, not a measurement, and every move costs page
 * traffic, so a large imbalance is best corrected at once), and waits for
 * half a ring.  A boundary that turns back within its last move means
 * that move overshot (noise, or a node whose speed depends on its load,
 * as under a CPU quota): the step halves again and the threshold doubles
 * (up to 4 alpha); after CALM executions without a change they come back
 * halfway.  So blocks cannot thrash.  A change of load is followed as the
 * first move is (repartition(), speeds_changed()).  On a DSM every
 * move costs page traffic (the iterations that change node bring their
 * pages' faults, twins and diffs with them until the homes follow), so
 * moves smaller than half the threshold of a block are not made, and the
 * executions right after a change are not measured (`warmup` again, and
 * the migration), nor are those right after a home migration that moved
 * enough pages to matter (migration_matters()).
 *
 * A change is judged by the first executions measured after it: if they
 * cost more than the last ones before it, those that showed the deviation
 * (each loop's executions at their slowest node), by more than alpha, the
 * blocks go back and the threshold doubles (judge()).  The speeds
 * a change follows are not always the nodes' own: nodes that share a CPU
 * (more threads than CPUs) speed up when the neighbour gets less work, so
 * the node given more looks faster still, and the blocks would run away
 * from the balance.  Where nodes share CPUs (placement.c, worked out at
 * start), a change is judged against every execution before it, and any
 * boundary that turns back counts as an overshoot; elsewhere the last
 * executions alone, so that a node that became slower (which makes every
 * execution after it cost more, whatever the blocks) is followed.
 *
 * Sites are numbered in the order the program first meets them, which is
 * the same on every node (all threads meet every worksharing loop); a
 * site's loops in the order their timings arrive, the same on every node
 * too (loop_of()).  The timings of the loops of one site add up: a site's
 * execution is one loop execution, whichever loop it was.
 */
#include "loop.h"
#include "omp_rt.h"
#include "profile_file.h"

#include "../dsm/dsm.h"
#include "../migrate/migrate.h"
#include "../net/boot.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct omp_profiled_opts omp_profiled = { .warmup = 1, .alpha = 0.1, .hold = 3, .min = 1 };

/* Executions a speed is measured over (at least `hold`), and executions
 * without a change after which a raised threshold comes down again. */
enum { WINDOW = 16, CALM = 64 };

/* What a page that a migration moved may cost the nodes before it
 * settles, in ns: a fault or two (migration_matters()). */
#define MOVED_PAGE_NS 10000.0

/* The threshold of a site settled at equal blocks (try_equal()), in units
 * of alpha: above the deviations that its moves could not turn into gains,
 * below a node at half speed (a deviation of 1/3 from the mean). */
#define SETTLED 3

/* A deviation that equal nodes do not show even for a few executions, in
 * units of alpha: of two nodes, one at 60 % of the other's speed or less
 * is off the mean by a quarter or more (at half speed, by a third); two
 * equal nodes 25 % apart, by a ninth. */
#define CLEAR 2.5

/* The loops (call sites) of one site told apart, at most this many; more
 * share the last one's figures. */
enum { LOOPS = 8 };

struct site {
    uint64_t base, incr;        /* the program's index of iteration 0, its step */
    uint64_t n;                 /* iterations 0 .. n-1: every loop's range together */
    int nodes;                  /* the team's threads: nodes 0 .. nodes-1 */
    uint64_t *bounds;           /* nodes + 1 iteration numbers */
    uint64_t started;           /* executions this node has started */
    uint64_t done;              /* executions whose timings every node has */
    uint64_t measure_from;      /* the first execution measured (after a warm-up) */
    unsigned streak;            /* executions in a row with node `odd` off the mean */
    int odd;                    /* that node (deviation()) */
    double step;                /* how far blocks move towards the target */
    double alpha;               /* the threshold now: omp_profiled.alpha, more after turns */
    uint64_t calm_since;        /* the execution of the last change or threshold decay */
    uint64_t pages_moved;       /* pages migrated when it was last settled (mig_pages_moved) */
    unsigned migrate_left;      /* migrations still to ask for after a change */
    bool jumped;                /* the last move went all the way (the first move) */
    bool trial;                 /* the change being judged is a return to equal blocks */
    bool settled;               /* equal blocks did as well: the threshold stays raised */
    unsigned changes, undone;   /* changes of the blocks; of them, undone (for OMPDSM_STATS) */
    unsigned shifts;            /* changes of the nodes' speeds seen (speeds_changed()) */
    unsigned shifts_moved;      /* `shifts` at the last move */
    uint64_t *before;           /* the blocks before the last change, while it is judged */
    double before_cost[LOOPS];  /* the cost of an execution of each loop on them */
    unsigned before_count[LOOPS];
    int64_t *moved;             /* per boundary: its last move, in iterations (0: none) */
    int got;                    /* timings of execution `done` received */
    uint64_t *ns, *iters;       /* per node, for execution `done` */
    unsigned window, filled, next; /* the ring of the last measured executions */
    uint64_t *win_ns, *win_iters;  /* [window][node] */
    uint8_t *win_loop;             /* [window]: which loop */
    struct loop {
        uintptr_t where;           /* call site */
        uint64_t start, len;       /* its first index and its iterations */
    } loops[LOOPS];
    unsigned nloops, loop;         /* how many; the loop of execution `done` */
    unsigned runs[LOOPS];          /* each loop's executions since the blocks or homes last changed */
    uint8_t measured;              /* the loops (bits, LOOPS of them) measured since then */
    /* The measured executions since the blocks last changed, per loop
     * and node ([loop][node]): times and iterations summed, for the saved
     * profile; and those before the change, for a loop and node with none
     * since (a change at the end of the run). */
    uint64_t *tot_ns, *tot_iters, *prev_ns, *prev_iters, execs[LOOPS];
    /* Started from a saved profile: each loop's time per iteration there
     * ([loop][node], 0: unknown), and over the executions on the blocks
     * it gave, the time it predicted and the time measured, per node. */
    double *saved_cost, *pred_ns, *meas_ns;
};

/* A timing, as it travels on a barrier. */
struct timing {
    uint32_t site;
    int32_t node;
    int32_t team, pad;          /* the team's size: the sites of its table */
    uint64_t where, start, len; /* the loop (struct loop) */
    uint64_t exec, ns, iters;
};

/* Sites are kept per team size: a team of k threads runs on nodes
 * 0 .. k-1, which all meet every execution of that team's loops and see
 * every timing of it (the team's barriers carry them), so each table is
 * numbered and updated alike on the nodes of its team; a node outside a
 * team ignores its timings (they may pass a home migration's barriers,
 * which every node takes part in). */
struct table {
    struct site *v;
    size_t n;
};

static struct {
    struct table *tables;       /* [team size] */
    uint32_t team;              /* of the execution this node is running */
    struct timing *out;         /* this node's timings not yet sent */
    size_t nout, capout;
    /* the execution this node is running */
    uint32_t site;
    struct loop loop;
    uint64_t exec, t0;
    bool cpus_shared;           /* some CPU runs threads of several nodes (placement.c) */
    struct saved_profile saved; /* OMPDSM_PROFILE's, while its sites match this run's */
    bool use_saved;
} prof;

static uint64_t *node_array(void)
{
    return xcalloc((size_t)omp_rt.nodes + 1, sizeof(uint64_t));
}

/* Loops join a site when they run over nearly the same iterations: the
 * same step, their first indices a whole number of steps apart, and the
 * iterations they share at least NEAR of those either covers.  A
 * stencil's copy over rows 0..N-1 and its update over rows 1..N-2 then
 * share their blocks' boundaries, so each node keeps its rows in both; a
 * loop over half the rows does not join (its blocks would all fall to one
 * side of the boundaries). */
#define NEAR 0.9

/* Where the loop over k starts in site s's iterations, if it joins the
 * site: *off (negative: before the site's first). */
static bool joins(const struct site *s, const struct omp_site_key *k, int64_t *off)
{
    if (k->incr != s->incr || !k->n)
        return false;
    int64_t d = (int64_t)(k->start - s->base), step = (int64_t)s->incr;
    if (d % step)
        return false;
    *off = d / step;
    int64_t lo = *off > 0 ? *off : 0, hi = *off + (int64_t)k->n < (int64_t)s->n ? *off + (int64_t)k->n : (int64_t)s->n;
    int64_t lo_all = *off < 0 ? *off : 0, hi_all = *off + (int64_t)k->n > (int64_t)s->n ? *off + (int64_t)k->n : (int64_t)s->n;
    return hi > lo && (double)(hi - lo) >= NEAR * (double)(hi_all - lo_all);
}

/* The site takes in iterations from `off` (negative: before its first)
 * for `len`: its range grows, the boundaries inside it stay on the same
 * program indices. */
static void widen(struct site *s, int64_t off, uint64_t len)
{
    if (off < 0) {
        uint64_t by = (uint64_t)-off;
        s->base -= by * s->incr;
        s->n += by;
        for (int i = 1; i < s->nodes; i++)
            s->bounds[i] += by;
        off = 0;
    }
    if ((uint64_t)off + len > s->n)
        s->n = (uint64_t)off + len;
    s->bounds[s->nodes] = s->n;
}

static struct site *new_site(struct table *t, int nodes, const struct omp_site_key *k)
{
    struct site *v = xrealloc(t->v, (t->n + 1) * sizeof *v);
    t->v = v;
    struct site *s = &v[t->n++];
    memset(s, 0, sizeof *s);
    s->base = k->start;
    s->incr = k->incr;
    s->n = k->n;
    s->nodes = nodes;
    s->bounds = node_array();
    s->measure_from = omp_profiled.warmup;
    s->step = 0.5;
    s->alpha = omp_profiled.alpha;
    s->moved = xcalloc((size_t)s->nodes + 1, sizeof *s->moved);
    s->ns = node_array();
    s->iters = node_array();
    s->window = omp_profiled.hold > WINDOW ? omp_profiled.hold : WINDOW;
    s->win_ns = xcalloc((size_t)s->window * (size_t)s->nodes, sizeof *s->win_ns);
    s->win_iters = xcalloc((size_t)s->window * (size_t)s->nodes, sizeof *s->win_iters);
    s->win_loop = xcalloc(s->window, sizeof *s->win_loop);
    s->tot_ns = xcalloc(LOOPS * (size_t)nodes, sizeof *s->tot_ns);
    s->tot_iters = xcalloc(LOOPS * (size_t)nodes, sizeof *s->tot_iters);
    s->prev_ns = xcalloc(LOOPS * (size_t)nodes, sizeof *s->prev_ns);
    s->prev_iters = xcalloc(LOOPS * (size_t)nodes, sizeof *s->prev_iters);
    for (int i = 0; i <= s->nodes; i++)     /* equal blocks, as static */
        s->bounds[i] = k->n * (uint64_t)i / (uint64_t)s->nodes;
    return s;
}

static void start_from_saved(struct site *s, size_t team, size_t index, const struct omp_site_key *k);

/* The site of the loop over k: the first it joins, else a new one. */
static uint32_t site_of(struct table *t, int nodes, const struct omp_site_key *k)
{
    int64_t off;
    for (size_t i = 0; i < t->n; i++) {
        if (joins(&t->v[i], k, &off)) {
            widen(&t->v[i], off, k->n);
            return (uint32_t)i;
        }
    }
    struct site *s = new_site(t, nodes, k);
    if (prof.use_saved)
        start_from_saved(s, (size_t)(t - prof.tables), t->n - 1, k);
    return (uint32_t)(t->n - 1);
}

/* Iterations of loop l of site s that node i runs on boundaries b. */
static void clip(const struct site *s, const struct loop *l, const uint64_t *b, int i, uint64_t *lo, uint64_t *hi)
{
    uint64_t off = (uint64_t)((int64_t)(l->start - s->base) / (int64_t)s->incr), end = off + l->len;
    *lo = b[i] < off ? 0 : b[i] > end ? l->len : b[i] - off;
    *hi = b[i + 1] < off ? 0 : b[i + 1] > end ? l->len : b[i + 1] - off;
}

/* ---- this node's execution ---------------------------------------------- */

void omp_profiled_begin(const struct omp_site_key *k, uintptr_t where, uint64_t *lo, uint64_t *hi)
{
    prof.team = (uint32_t)omp_rt.team_nodes;
    struct table *t = &prof.tables[prof.team];
    prof.site = site_of(t, (int)prof.team, k);
    struct site *s = &t->v[prof.site];
    prof.loop = (struct loop){ .where = where, .start = k->start, .len = k->n };
    prof.exec = s->started++;
    clip(s, &prof.loop, s->bounds, omp_rt.node, lo, hi);
    prof.t0 = dsm_now_ns();
}

void omp_profiled_end(uint64_t iters)
{
    prof.out = xgrow(prof.out, &prof.capout, prof.nout + 1, sizeof *prof.out);
    uint64_t ns = dsm_now_ns() - prof.t0;
    prof.out[prof.nout++] = (struct timing){ .site = prof.site, .node = omp_rt.node, .team = (int32_t)prof.team,
                                             .where = prof.loop.where, .start = prof.loop.start,
                                             .len = prof.loop.len, .exec = prof.exec,
                                             .ns = ns ? ns : 1, .iters = iters };
}

/* ---- every node: the timings of every node ------------------------------- */

/* A loop's number in its site.  Loops are numbered as the timings arrive,
 * which every node receives alike, not as this node meets them: nodes may
 * reach one loop through different call sites (the compiler may copy a
 * call into two paths, and thread-dependent code picks one), and every
 * node must keep the same loops to take the same decisions. */
static uint32_t loop_of(struct site *s, const struct loop *l)
{
    for (unsigned i = 0; i < s->nloops; i++)
        if (!memcmp(&s->loops[i], l, sizeof *l))
            return i;
    if (s->nloops == LOOPS)
        return LOOPS - 1;
    s->loops[s->nloops] = *l;
    return s->nloops++;
}

/* Adds the execution just settled to the ring of measured executions. */
static void record(struct site *s)
{
    for (int i = 0; i < s->nodes; i++) {
        size_t at = (size_t)s->loop * (size_t)s->nodes + (size_t)i;
        s->tot_ns[at] += s->ns[i];
        s->tot_iters[at] += s->iters[i];
        if (s->saved_cost && !s->changes && s->saved_cost[at] > 0) {
            s->pred_ns[i] += (double)s->iters[i] * s->saved_cost[at];
            s->meas_ns[i] += (double)s->ns[i];
        }
    }
    s->execs[s->loop]++;
    size_t row = (size_t)s->next * (size_t)s->nodes;
    memcpy(&s->win_ns[row], s->ns, (size_t)s->nodes * sizeof *s->ns);
    memcpy(&s->win_iters[row], s->iters, (size_t)s->nodes * sizeof *s->iters);
    s->win_loop[s->next] = (uint8_t)s->loop;
    s->next = (s->next + 1) % s->window;
    s->filled += s->filled < s->window;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (n > 0), which it sorts. */
static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The time of the ring's slot k at its slowest node. */
static uint64_t slot_worst(const struct site *s, unsigned k)
{
    uint64_t w = 0;
    for (int i = 0; i < s->nodes; i++) {
        uint64_t t = s->win_ns[(size_t)k * (size_t)s->nodes + (size_t)i];
        w = t > w ? t : w;
    }
    return w;
}

/* What an execution of each loop cost over the ring's last `last`
 * executions, the time of its slowest node (a barrier ends it): the median
 * over that loop's executions, cost[l] in ns, count[l] executions.  The
 * median, not the mean: a change is judged on a few executions, and one
 * that the machine held up (both nodes twice as slow as the ones around
 * it) would undo a change that served. */
static void execution_costs(const struct site *s, unsigned last, double *cost, unsigned *count)
{
    double worst[LOOPS][s->window];
    for (unsigned l = 0; l < LOOPS; l++)
        cost[l] = count[l] = 0;
    for (unsigned j = 0; j < last && j < s->filled; j++) {
        unsigned k = (s->next + s->window - 1 - j) % s->window, l = s->win_loop[k];
        worst[l][count[l]++] = (double)slot_worst(s, k);
    }
    for (unsigned l = 0; l < LOOPS; l++)
        if (count[l])
            cost[l] = median(worst[l], count[l]);
}

/* An execution the machine held up: its slowest node took more than
 * HELD_UP times the median of its loop's executions in the ring (at least
 * 3 of them).  Where CPUs are virtual or shared, one execution in ten or
 * twenty takes several times as long as those around it, at one node or
 * both (a stalled virtual CPU, a burst of another job); summed into the
 * ring's times, one such execution made a node look a third slower for
 * the whole ring, and the blocks moved for it and came back.  A node that
 * really became slower is slower at every execution after: its
 * executions are held up only until they are half the ring's, and a
 * node at half speed is not held up at all. */
#define HELD_UP 3.0

/* A node's time and iterations summed over the ring's executions of loop
 * `loop` (-1: of every loop), but those held up; returns how many
 * executions that was. */
static unsigned ring_totals(const struct site *s, int node, int loop, uint64_t *ns, uint64_t *iters)
{
    double median_of[LOOPS];
    unsigned in_ring[LOOPS], n = 0;
    execution_costs(s, s->filled, median_of, in_ring);
    *ns = *iters = 0;
    for (unsigned k = 0; k < s->filled; k++) {
        unsigned l = s->win_loop[k];
        if (loop >= 0 && l != (unsigned)loop)
            continue;
        if (in_ring[l] >= 3 && (double)slot_worst(s, k) > HELD_UP * median_of[l])
            continue;       /* held up */
        *ns += s->win_ns[(size_t)k * (size_t)s->nodes + (size_t)node];
        *iters += s->win_iters[(size_t)k * (size_t)s->nodes + (size_t)node];
        n++;
    }
    return n;
}

/* A node's speed over the ring: its iterations per nanosecond. */
static double window_speed(const struct site *s, int node)
{
    uint64_t ns, iters;
    ring_totals(s, node, -1, &ns, &iters);
    return ns ? (double)iters / (double)ns : 0;
}

/* Each loop's cost per iteration on each node over the ring, cost[loop *
 * nodes + node] in ns, and how many of the ring's executions each loop
 * had.  A node that had no iteration of a loop is taken to be as slow as
 * the slowest node that had some. */
static void loop_costs(const struct site *s, double *cost, unsigned *count)
{
    int nodes = s->nodes;
    for (unsigned l = 0; l < s->nloops; l++) {
        double worst = 0, *c = &cost[l * (unsigned)nodes];
        for (int i = 0; i < nodes; i++) {
            uint64_t ns, iters;
            count[l] = ring_totals(s, i, (int)l, &ns, &iters);
            c[i] = iters ? (double)ns / (double)iters : -1;
            worst = c[i] > worst ? c[i] : worst;
        }
        for (int i = 0; i < nodes; i++)
            if (c[i] < 0)
                c[i] = worst;
    }
}

/* The time the ring's executions would take on blocks `bounds`: each
 * execution of a loop lasts as long as its slowest node (a barrier ends
 * it).  The loops of a site share the blocks (see the top of the file)
 * but not always the nodes' relative speeds: on a stencil's copy and
 * update, one node may be the slower one on one loop and not on the other,
 * and a split balanced on their summed times can be worse than equal
 * blocks. */
static double predicted(const struct site *s, const double *cost, const unsigned *count, const uint64_t *bounds)
{
    int nodes = s->nodes;
    double total = 0;
    for (unsigned l = 0; l < s->nloops; l++) {
        double worst = 0;
        for (int i = 0; i < nodes; i++) {
            uint64_t lo, hi;
            clip(s, &s->loops[l], bounds, i, &lo, &hi);
            double t = (double)(hi - lo) * cost[l * (unsigned)nodes + (unsigned)i];
            worst = t > worst ? t : worst;
        }
        total += count[l] * worst;
    }
    return total;
}

/* Blocks in proportion to `speed` (per node), in granules of g
 * iterations, at least one each when there are enough: target[i] is where
 * boundary i would go, in granules.  Returns false without speeds. */
static bool proportional(const struct site *s, const double *speed, double *target)
{
    int nodes = s->nodes;
    double total = 0, acc = 0;
    for (int i = 0; i < nodes; i++)
        total += speed[i];
    if (total <= 0)
        return false;
    uint64_t g = omp_profiled.min, granules = (s->n + g - 1) / g;
    for (int i = 1; i < nodes; i++) {
        acc += speed[i - 1];
        target[i] = acc / total * (double)granules;
    }
    return true;
}

/* Boundaries `step` of the way from the current ones to `target`, in
 * whole granules, each block at least one granule when there are enough;
 * returns the largest move, in iterations. */
static uint64_t bounds_towards(const struct site *s, const double *target, double step, uint64_t *bounds)
{
    int nodes = s->nodes;
    uint64_t n = s->n, g = omp_profiled.min;
    uint64_t granules = (n + g - 1) / g, floor_each = granules >= (uint64_t)nodes ? 1 : 0, largest = 0;
    bounds[0] = 0;
    for (int i = 1; i < nodes; i++) {
        double now = (double)s->bounds[i] / (double)g;
        uint64_t k = (uint64_t)(now + step * (target[i] - now) + 0.5);
        uint64_t lo = bounds[i - 1] / g + floor_each, hi = granules - floor_each * (uint64_t)(nodes - i);
        k = k < lo ? lo : k > hi ? hi : k;
        bounds[i] = k * g < n ? k * g : n;
        uint64_t d = bounds[i] > s->bounds[i] ? bounds[i] - s->bounds[i] : s->bounds[i] - bounds[i];
        largest = d > largest ? d : largest;
    }
    bounds[nodes] = n;
    return largest;
}

/* The split, among those in proportion to each loop's speeds and to the
 * speeds over the whole ring, that costs (per loop per node, and loop
 * executions count) predict to be fastest: in best (boundaries, in
 * granules) if it beats *best_t, which becomes its time. */
static void best_split(const struct site *s, const double *cost, const unsigned *count, double *best,
                       double *best_t)
{
    int nodes = s->nodes;
    double speed[nodes], target[nodes + 1];
    uint64_t bounds[nodes + 1];
    for (unsigned c = 0; c <= s->nloops; c++) {
        for (int i = 0; i < nodes; i++) {
            double per = c < s->nloops ? cost[c * (unsigned)nodes + (unsigned)i] : 0;
            speed[i] = c < s->nloops ? (per > 0 ? 1 / per : 0) : window_speed(s, i);
        }
        if (!proportional(s, speed, target))
            continue;
        bounds_towards(s, target, 1.0, bounds);
        double t = predicted(s, cost, count, bounds);
        if (t < *best_t) {
            *best_t = t;
            memcpy(best, target, sizeof target);
        }
    }
}

/* New blocks part of the way (step) from the current ones towards a split
 * in proportion to measured speed: the speeds over the whole ring, or
 * those of one of the site's loops, whichever split the costs measured
 * per loop predict to be fastest (predicted()).  No move is made unless
 * that split promises to save alpha of the time, or when the blocks
 * would move by less than alpha/2 of a block: on a DSM every move costs
 * page traffic.  (A node that had no iterations of a loop counts as the
 * slowest node on it; one with none at all has no speed over the whole
 * ring, and that candidate shrinks its block towards the minimum.)
 * Returns whether the blocks changed. */
static bool repartition(struct site *s)
{
    int nodes = s->nodes;
    double cost[LOOPS * (unsigned)nodes], best[nodes + 1];
    unsigned count[LOOPS];
    uint64_t bounds[nodes + 1];
    loop_costs(s, cost, count);
    double now_t = predicted(s, cost, count, s->bounds), best_t = now_t;
    best_split(s, cost, count, best, &best_t);
    if (best_t >= now_t * (1 - s->alpha))
        return false;
    /* A boundary that turns back to a point within its last step means
     * that step overshot (noise, or a node whose speed depends on its
     * load, as under a CPU quota): this step and the next are half as
     * long, and the next move needs twice the deviation
     * (settle_execution() lowers it again after a calm spell).  Except
     * where nodes share CPUs, whose speeds depend on the blocks
     * themselves, a move follows a change of load, and goes all the way
     * to the split measured if that promises twice the threshold, when
     * the ring saw the nodes' speeds change since the last move
     * (speeds_changed()) and each boundary turns back further than it
     * came (a node freed of a load it had), or undoes most of a move that
     * went all the way (the load that move followed ended), or goes on the
     * way such a move went (its split was measured over executions partly
     * before the change, and fell short).  Without such a change, a turn
     * back is the nodes' costs answering the move (NAS CG on equal nodes
     * went 7000 -> 5541 -> 8151 rows).  The first move goes all the way
     * too: the equal blocks were a guess, and each move costs page
     * traffic. */
    bool flipped = false, first = true, follows = !prof.cpus_shared && s->shifts != s->shifts_moved;
    for (int i = 1; i < nodes; i++) {
        double now = (double)s->bounds[i] / (double)omp_profiled.min;
        double back = (best[i] - now) * (double)omp_profiled.min;
        double went = (double)llabs(s->moved[i]);
        int dir = best[i] > now ? 1 : best[i] < now ? -1 : 0;
        bool reversed = dir * s->moved[i] < 0;
        bool within = (back < 0 ? -back : back) <= went;
        flipped |= reversed && (within || prof.cpus_shared);
        first &= s->moved[i] == 0;
        bool most = (back < 0 ? -back : back) >= went * 3 / 4;
        follows &= reversed ? !within || (s->jumped && most) : s->jumped || s->moved[i] == 0;
    }
    double step = flipped && !s->jumped && s->step > 1.0 / 16 ? s->step / 2 : s->step;
    double reach = (first || follows) && best_t < now_t * (1 - 2 * s->alpha) ? 1.0 : step;
    uint64_t largest = bounds_towards(s, best, reach, bounds);
    if (largest == 0 || (double)largest < s->alpha / 2 * (double)s->n / nodes)
        return false;
    for (int i = 1; i < nodes; i++)
        s->moved[i] = (int64_t)bounds[i] - (int64_t)s->bounds[i];
    memcpy(s->bounds, bounds, sizeof bounds);
    s->step = step;
    /* Turning back after the first move, which went all the way, is no
     * sign of noise (so neither the step nor the threshold change for it):
     * a node whose speed depends on its load (a CPU quota) speeds up on
     * the smaller block it was given. */
    if (flipped && !s->jumped && s->alpha < 4 * omp_profiled.alpha)
        s->alpha *= 2;
    s->jumped = reach == 1.0;
    s->shifts_moved = s->shifts;
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

/* The threshold a raised one comes back to: alpha, or SETTLED alpha at a
 * site settled at equal blocks. */
static double alpha_floor(const struct site *s)
{
    return s->settled ? SETTLED * omp_profiled.alpha : omp_profiled.alpha;
}

/* The row of the ring's k-th oldest execution kept. */
static size_t ring_row(const struct site *s, unsigned k)
{
    return (size_t)((s->next + s->window - s->filled + k) % s->window) * (size_t)s->nodes;
}

/* Each node's share of the time of the ring's executions k in [from, to)
 * (0: the oldest kept). */
static void shares(const struct site *s, unsigned from, unsigned to, double *share)
{
    double total = 0;
    for (int i = 0; i < s->nodes; i++) {
        share[i] = 0;
        for (unsigned k = from; k < to; k++)
            share[i] += (double)s->win_ns[ring_row(s, k) + (size_t)i];
        total += share[i];
    }
    for (int i = 0; i < s->nodes && total > 0; i++)
        share[i] /= total;
}

/* Whether the nodes' speeds changed within the ring: a node's share of the
 * time over the last `recent` executions differs from its share over the
 * ones before by more than twice the base threshold, relatively (a load
 * that starts or ends on one node: a node freed of a half-speed load goes
 * from half the time to a third).  The ring then still holds many
 * executions at the old speeds, and the sums over it would take as many
 * executions to show the new ones (measured: 16 to 26 executions after a
 * load ended, with the blocks where the load had put them).  Returns the
 * node whose share changed most, -1 if none changed that much. */
static int speeds_changed(const struct site *s, unsigned recent)
{
    if (s->filled < 2 * recent)
        return -1;
    double before[s->nodes], now[s->nodes], most = 2 * omp_profiled.alpha;
    shares(s, 0, s->filled - recent, before);
    shares(s, s->filled - recent, s->filled, now);
    int who = -1;
    for (int i = 0; i < s->nodes; i++) {
        double d = before[i] > 0 ? (now[i] - before[i]) / before[i] : 0;
        d = d < 0 ? -d : d;
        if (d > most) {
            most = d;
            who = i;
        }
    }
    return who;
}

/* How many of the ring's last `recent` executions ran at the new speeds.
 * A change is seen as soon as the recent share crosses the threshold, so
 * the oldest of them may still have run at the old speeds, and a split
 * measured over them falls short.  Each recent execution's share of
 * `node`'s time is taken relative to that node's share in the same loop
 * before (1: unchanged), and the executions are cut where the two groups,
 * the older ones counted as 1 and the newer ones, are furthest apart
 * (the largest between-group sum of squares); at least the newest is
 * kept. */
static unsigned new_speeds(const struct site *s, unsigned recent, int node)
{
    unsigned old = s->filled - recent;
    double mine[LOOPS] = { 0 }, all[LOOPS] = { 0 }, x[recent];
    for (unsigned k = 0; k < s->filled; k++) {
        size_t at = ring_row(s, k);
        unsigned l = s->win_loop[at / (size_t)s->nodes];
        double sum = 0;
        for (int i = 0; i < s->nodes; i++)
            sum += (double)s->win_ns[at + (size_t)i];
        double share = sum > 0 ? (double)s->win_ns[at + (size_t)node] / sum : 0;
        if (k < old) {
            mine[l] += share;
            all[l] += 1;
        } else {
            x[k - old] = mine[l] > 0 ? share * all[l] / mine[l] : 1;
        }
    }
    double tail = 0, best = -1;
    unsigned keep = 1;
    for (unsigned k = 0; k < recent; k++)
        tail += x[k];
    double head = old;     /* the older executions' sum, 1 each */
    for (unsigned k = 0; k < recent; k++) {
        double na = old + k, nb = recent - k;
        double gap = head / na - tail / nb;
        double ss = na * nb / (na + nb) * gap * gap;
        if (ss > best) {
            best = ss;
            keep = recent - k;
        }
        head += x[k];
        tail -= x[k];
    }
    return keep;
}

/* Keeps only the ring's last `recent` executions, and starts the threshold,
 * the step and the boundaries' last moves afresh: raised and shortened by
 * the turns of the old speeds, they would hold the blocks back from the
 * new ones; the next move is a first one, which goes all the way to the
 * split measured if that promises twice the threshold. */
static void keep_recent(struct site *s, unsigned recent)
{
    size_t row = (size_t)s->nodes;
    uint64_t ns[recent * row], iters[recent * row];
    uint8_t loop[recent];
    for (unsigned k = 0; k < recent; k++) {
        size_t at = ring_row(s, s->filled - recent + k);
        memcpy(&ns[k * row], &s->win_ns[at], row * sizeof *ns);
        memcpy(&iters[k * row], &s->win_iters[at], row * sizeof *iters);
        loop[k] = s->win_loop[at / row];
    }
    memcpy(s->win_ns, ns, sizeof ns);
    memcpy(s->win_iters, iters, sizeof iters);
    memcpy(s->win_loop, loop, sizeof loop);
    s->filled = recent;
    s->next = recent % s->window;
    s->alpha = alpha_floor(s);
    s->step = 0.5;
    s->calm_since = s->done;
    s->shifts++;
    memset(s->moved, 0, ((size_t)s->nodes + 1) * sizeof *s->moved);
}

/* The blocks or the homes changed: the ring starts again, and each loop's
 * next execution is a warm-up. */
static void restart_measuring(struct site *s)
{
    s->filled = s->next = 0;
    memset(s->runs, 0, sizeof s->runs);
    s->measured = 0;
}

/* After the blocks changed.  Let the homes of the pages that changed node
 * follow as soon as the new blocks have run (and faulted, read-ahead
 * included): a migration after each of the next executions, one per loop
 * of the site, as the loops may use different arrays (a stencil's update
 * reads them all, its copy only two).  Waiting longer costs more: each
 * execution until then fetches those pages again, as the copies a node
 * fetched before it registered as their sharer are dropped at its next
 * barrier (dsm/flush.c).  Until the migrations and the execution after
 * them are over, times say more about traffic than about speed; the ring
 * starts again. */
static void changed(struct site *s)
{
    bool migrating = mig_request(1, true);
    s->migrate_left = migrating ? s->nloops - 1 : 0;
    s->measure_from = s->done + omp_profiled.warmup + (migrating ? 1 + s->nloops : 0);
    restart_measuring(s);
    s->calm_since = s->done;
    /* The saved profile's costs are those of the blocks at exit, or of
     * the last blocks measured. */
    for (size_t at = 0; at < LOOPS * (size_t)s->nodes; at++) {
        if (s->tot_iters[at]) {
            s->prev_ns[at] = s->tot_ns[at];
            s->prev_iters[at] = s->tot_iters[at];
        }
        s->tot_ns[at] = s->tot_iters[at] = 0;
    }
}

/* Equal blocks, as static's, made a change judged like any other: a site
 * whose changes keep being undone has costs the blocks do not explain (a
 * node slower on one loop and faster on another, fault and diff traffic
 * that moves with the rows), and then moving iterations costs more than
 * it saves.  If equal blocks are not worse than where the moves led, the
 * site settles there (settle_execution() keeps its threshold raised);
 * if they are, they are undone like any change. */
static void try_equal(struct site *s)
{
    /* Judged against the blocks just restored, whose costs are still
     * before_cost: the executions the undone change was judged against. */
    s->before = node_array();
    memcpy(s->before, s->bounds, ((size_t)s->nodes + 1) * sizeof *s->before);
    for (int i = 0; i <= s->nodes; i++) {
        uint64_t b = s->n * (uint64_t)i / (uint64_t)s->nodes;
        if (i > 0 && i < s->nodes)
            s->moved[i] = (int64_t)b - (int64_t)s->bounds[i];
        s->bounds[i] = b;
    }
    s->trial = true;
    s->changes++;
}

/* The first executions measured on new blocks judge the change: if they
 * cost more than the executions it is judged against (settle_execution()
 * chose them; each loop's executions at its slowest node, weighted as
 * those), by more than alpha, the blocks go back, and the next change
 * needs twice the deviation.  The speeds the
 * change followed were not the nodes' own: nodes that share a CPU (more
 * nodes than CPUs) speed up when their neighbour gets less work, so the
 * node given more looks faster still, and the blocks would run away.
 * Until every loop judged has run `hold` times on the new blocks (as
 * often as before, if fewer) the verdict is pending, and no other change
 * is made.  A site that a move from equal
 * blocks did not improve, or that a return to them did not make worse,
 * settles there (its threshold stays raised). */
enum verdict { PENDING, KEPT, UNDONE };

/* Whether boundaries b are static's: equal blocks. */
static bool equal_blocks(const struct site *s, const uint64_t *b)
{
    for (int i = 1; i < s->nodes; i++)
        if (b[i] != s->n * (uint64_t)i / (uint64_t)s->nodes)
            return false;
    return true;
}

static void settle_at_equal(struct site *s)
{
    s->settled = true;
    if (s->alpha < SETTLED * omp_profiled.alpha)
        s->alpha = SETTLED * omp_profiled.alpha;
}

static enum verdict judge(struct site *s)
{
    double cost[LOOPS], before = 0, after = 0;
    unsigned count[LOOPS];
    execution_costs(s, s->filled, cost, count);
    for (unsigned l = 0; l < LOOPS; l++) {
        /* A full ring judges with what it holds: loops that run unevenly
         * may never gather `hold` executions each in it. */
        unsigned enough = s->before_count[l] < omp_profiled.hold ? s->before_count[l] : omp_profiled.hold;
        if (count[l] < enough && (s->filled < s->window || !count[l]))
            return PENDING;         /* not every loop measured enough yet */
        before += s->before_cost[l] * s->before_count[l];
        after += cost[l] * s->before_count[l];
    }
    uint64_t *old = s->before;
    s->before = NULL;
    /* A settled site moves away from equal blocks only for a real gain:
     * its deviations come from costs the blocks do not explain. */
    double keep = s->settled && !s->trial ? 1 - omp_profiled.alpha / 2 : 1 + omp_profiled.alpha;
    if (after <= before * keep) {
        free(old);
        if (s->trial)
            settle_at_equal(s);
        s->trial = false;
        return KEPT;
    }
    for (int i = 1; i < s->nodes; i++)
        s->moved[i] = (int64_t)old[i] - (int64_t)s->bounds[i];
    memcpy(s->bounds, old, ((size_t)s->nodes + 1) * sizeof *old);
    free(old);
    s->alpha = s->alpha * 2 < 4 * omp_profiled.alpha ? s->alpha * 2 : 4 * omp_profiled.alpha;
    s->step = s->step / 2 > 1.0 / 16 ? s->step / 2 : 1.0 / 16;
    s->jumped = false;
    s->undone++;
    s->trial = false;
    /* Back at equal blocks, a move from them did worse: settled. */
    if (equal_blocks(s, s->bounds))
        settle_at_equal(s);
    if (s->undone % 2 == 0 && !s->settled)
        try_equal(s);
    changed(s);
    return UNDONE;
}

/* Whether every loop of the site that ran since the blocks or homes last
 * changed has been measured since: a decision taken on the short loops
 * alone (a vector update) may ruin the long one (the product they serve),
 * whose first execution after the change was a warm-up. */
static bool all_measured(const struct site *s)
{
    for (unsigned l = 0; l < s->nloops; l++)
        if (s->runs[l] && !(s->measured & (1u << l)))
            return false;
    return true;
}

/* Whether a migration that moved `pages` pages disturbs the measurements:
 * each page moved may cost a node a fault or two before it settles (6-15
 * us here), which matters only if they add up to half the threshold of
 * the execution (the slowest node's time).  A migration that corrects a
 * few pages at the edge of a block (a sweep's last read-ahead) is no
 * reason to start measuring again: it held a slowed node's first move
 * back by eight executions of the textbook Jacobi. */
static bool migration_matters(const struct site *s, uint64_t pages)
{
    uint64_t slowest = 0;
    for (int i = 0; i < s->nodes; i++)
        slowest = s->ns[i] > slowest ? s->ns[i] : slowest;
    return (double)pages * MOVED_PAGE_NS > omp_profiled.alpha / 2 * (double)slowest;
}

/* The blocks move when, at `hold` consecutive executions, the same node's
 * time over the ring (the last executions, on the current blocks) was off
 * the mean by more than alpha, in the same direction.  Times over several
 * executions, not one execution's: a node that shares its CPU runs in
 * slices, and one execution may catch it in a slice or between two; the
 * two loops of a stencil step, short and long, may even show opposite
 * nodes as the slow one.  An execution within alpha, or another node off,
 * starts the count again. */
static void settle_execution(struct site *s)
{
    int nodes = s->nodes;
    s->done++;
    s->got = 0;
    if (s->migrate_left && mig_request(1, false))
        s->migrate_left--;
    uint64_t moved = mig_pages_moved();
    if (moved != s->pages_moved && migration_matters(s, moved - s->pages_moved)) {
        /* Homes moved since the last execution: the first executions
         * after it run on freshly placed pages (and on the other nodes'
         * freshly placed pages), which says nothing about speed. */
        s->measure_from = s->done + omp_profiled.warmup + 2;
        restart_measuring(s);
        s->streak = 0;
    }
    s->pages_moved = moved;
    /* Each loop of the site faults its own arrays in: its first
     * executions after a change are not measured either. */
    unsigned runs = s->runs[s->loop];
    s->runs[s->loop] += runs < omp_profiled.warmup;
    if (s->done <= s->measure_from || runs < omp_profiled.warmup)
        return;
    record(s);
    s->measured |= (uint8_t)(1u << s->loop);
    if (s->filled < omp_profiled.hold || !all_measured(s))
        return;
    if (s->before && judge(s) != KEPT)
        return;
    unsigned lately = omp_profiled.hold * (s->nloops ? s->nloops : 1);
    int changed_node = lately < s->window / 2 ? speeds_changed(s, lately) : -1;
    if (changed_node >= 0) {
        keep_recent(s, new_speeds(s, lately, changed_node));
        if (s->filled < omp_profiled.hold)
            return;
    }
    uint64_t sum[nodes], iters;
    for (int i = 0; i < nodes; i++)
        ring_totals(s, i, -1, &sum[i], &iters);
    /* After CALM executions without a change, a raised threshold and a
     * shortened step come back halfway towards their start. */
    if (s->done - s->calm_since >= CALM) {
        s->calm_since = s->done;
        double floor = alpha_floor(s);
        s->alpha = s->alpha / 2 > floor ? s->alpha / 2 : floor;
        s->step = s->step * 2 < 0.5 ? s->step * 2 : 0.5;
    }
    int who;
    double dev = deviation(sum, nodes, &who);
    if (dev <= s->alpha) {
        s->streak = 0;
        return;
    }
    /* Blocks that never moved wait for half a ring, unless the speeds
     * changed or the deviation stays CLEAR for `hold` executions: equal
     * nodes here run 10-20 % apart for a few executions at a time, one
     * node and then the other (and up to 25 % when the machine is busy),
     * and their first executions measured, up to 40 %, but not three in
     * a row. */
    if (!s->changes && !s->shifts && s->filled < s->window / 2 && dev <= CLEAR * s->alpha) {
        s->streak = 0;
        return;
    }
    if (s->streak > 0 && who != s->odd)
        s->streak = 0;
    s->odd = who;
    if (++s->streak < omp_profiled.hold)
        return;
    s->streak = 0;
    uint64_t old[nodes + 1];
    memcpy(old, s->bounds, sizeof old);
    if (repartition(s)) {
        /* The ring still holds the executions on the old blocks.  The
         * change is judged against the last of them, those that showed
         * the deviation (up to `hold` of each loop): older ones may
         * have run before the load changed, and a node that became slower
         * makes every execution after it cost more, whatever the blocks.
         * Where nodes share CPUs it is judged against them all, as their
         * deviations are their neighbours' doing as much as their own. */
        s->before = s->before ? s->before : node_array();
        memcpy(s->before, old, sizeof old);
        unsigned recent = omp_profiled.hold * (s->nloops ? s->nloops : 1);
        execution_costs(s, prof.cpus_shared ? s->filled : recent, s->before_cost, s->before_count);
        s->changes++;
        changed(s);
    }
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
    if (len % sizeof(struct timing))
        dsm_fatal("malformed loop timings on a barrier (%zu bytes)", len);
    struct timing *t = xmemdup(data, len);
    qsort(t, n, sizeof *t, cmp_timing);
    for (size_t i = 0; i < n; i++) {
        if (t[i].team < 1 || t[i].team > omp_rt.nodes)
            dsm_fatal("loop timing of node %d for a team of %d threads", t[i].node, t[i].team);
        if (omp_rt.node >= t[i].team)
            continue;
        struct table *tb = &prof.tables[t[i].team];
        if (t[i].site >= tb->n || t[i].node < 0 || t[i].node >= t[i].team)
            dsm_fatal("loop timing of node %d for an unknown loop site %u", t[i].node, t[i].site);
        struct site *s = &tb->v[t[i].site];
        if (t[i].exec != s->done)
            dsm_fatal("internal: loop site %u: timing of execution %lu while collecting %lu", t[i].site,
                      (unsigned long)t[i].exec, (unsigned long)s->done);
        struct loop l = { .where = t[i].where, .start = t[i].start, .len = t[i].len };
        uint32_t loop = loop_of(s, &l);
        if (s->got == 0)
            s->loop = loop;     /* node 0's, if the nodes' call sites differ */
        s->ns[t[i].node] = t[i].ns;
        s->iters[t[i].node] = t[i].iters;
        if (++s->got == s->nodes)
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

/* One line per iteration space of one team size. */
static void report_table(const struct table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct site *s = &t->v[i];
        fprintf(stderr, "%12lu %ld %ld: %u, %u%s;", (unsigned long)s->n, (long)s->base, (long)s->incr, s->changes,
                s->undone, s->settled ? "*" : "");
        for (int n = 0; n < s->nodes; n++)
            fprintf(stderr, " %lu", (unsigned long)(s->bounds[n + 1] - s->bounds[n]));
        fputc('\n', stderr);
        for (int n = 0; s->pred_ns && n < s->nodes; n++)
            if (s->meas_ns[n] > 0)
                fprintf(stderr, "%12s node %d on the saved profile's blocks: predicted %.4f s, measured %.4f s "
                        "(error %+.1f%%)\n", "", n, s->pred_ns[n] * 1e-9, s->meas_ns[n] * 1e-9,
                        100 * (s->pred_ns[n] - s->meas_ns[n]) / s->meas_ns[n]);
    }
}

/* Node 0, after the statistics table (every node of a team holds its blocks):
 * one line per iteration space, its changes and its blocks now. */
static void report(void)
{
    size_t n = 0;
    for (int k = 0; k <= omp_rt.nodes; k++)
        n += prof.tables[k].n;
    if (!n)
        return;
    fprintf(stderr, "profiled iteration spaces (iterations start step: changes, undone (* settled at equal blocks); block per node)\n");
    for (int k = 0; k <= omp_rt.nodes; k++)
        report_table(&prof.tables[k]);
}

/* ---- the saved profile (OMPDSM_PROFILE=FILE) ----------------------------- */

/* A note from node 0 that the profile is not used, and why. */
static void drop_saved(const char *why)
{
    if (omp_rt.node == 0)
        dsm_warn("OMPDSM_PROFILE=%s: %s; starting without it", omp_profiled.file, why);
    profile_free(&prof.saved);
    prof.use_saved = false;
}

/* The index-th saved site of a team of `team` threads, or NULL. */
static struct saved_site *saved_site(size_t team, size_t index)
{
    for (size_t k = 0; k < prof.saved.nsites; k++)
        if ((size_t)prof.saved.sites[k].team == team && index-- == 0)
            return &prof.saved.sites[k];
    return NULL;
}

/* A new site, the index-th of its team, starts from its saved
 * counterpart's blocks: where the last run's schedule settled, with every
 * safeguard against noise it has (a split computed from the saved costs
 * alone would follow the few executions since the last change).  The
 * saved costs predict each node's time on them, which OMPDSM_STATS
 * compares with the time measured.  Sites are met in the same order in
 * every run of the same program on the same input; one that differs
 * (another input) means the profile is not this run's. */
static void start_from_saved(struct site *s, size_t team, size_t index, const struct omp_site_key *k)
{
    struct saved_site *v = saved_site(team, index);
    bool same_loop = false;
    for (unsigned l = 0; v && l < v->nloops; l++)
        same_loop |= v->loops[l].start == (int64_t)k->start && v->loops[l].len == k->n;
    if (!v || v->incr != (int64_t)k->incr || !same_loop || v->nloops > LOOPS) {
        drop_saved("its loops are not this run's (another input, or another team size)");
        return;
    }
    int nodes = s->nodes;
    s->base = (uint64_t)v->base;
    s->n = v->n;
    s->nloops = v->nloops;
    s->saved_cost = xcalloc(LOOPS * (size_t)nodes, sizeof *s->saved_cost);
    s->pred_ns = xcalloc((size_t)nodes, sizeof *s->pred_ns);
    s->meas_ns = xcalloc((size_t)nodes, sizeof *s->meas_ns);
    for (unsigned l = 0; l < v->nloops; l++) {
        struct saved_loop *sl = &v->loops[l];
        s->loops[l] = (struct loop){ .where = omp_rt.exe_base + (uintptr_t)sl->where, .start = (uint64_t)sl->start,
                                     .len = sl->len };
        for (int i = 0; i < nodes; i++)
            s->saved_cost[l * (unsigned)nodes + (unsigned)i] = sl->cost[i];
    }
    for (int i = 1; i < nodes; i++) {
        int64_t b = (v->bounds[i] - v->base) / v->incr;
        s->bounds[i] = b < 0 ? 0 : (uint64_t)b > s->n ? s->n : (uint64_t)b;
        s->bounds[i] = s->bounds[i] < s->bounds[i - 1] ? s->bounds[i - 1] : s->bounds[i];
    }
    s->bounds[nodes] = s->n;
}

/* Every node, at start: node 0 reads the file and every node parses the
 * same text, so all take the same decisions. */
static void load_saved(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = omp_rt.node == 0 ? fopen(omp_profiled.file, "r") : NULL;
    if (f) {
        char buf[65536];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
            text = xrealloc(text, len + got);
            memcpy(text + len, buf, got);
            len += got;
        }
        fclose(f);
    }
    size_t lens[omp_rt.nodes];
    char *all = boot_allgather(BOOT_TAG_PROFILE, text, len, lens);
    free(text);
    char why[128];
    if (!lens[0]) {
        free(all);
        return;             /* no profile yet: this run writes it */
    }
    prof.use_saved = profile_parse(all, lens[0], &prof.saved, why, sizeof why);
    free(all);
    if (!prof.use_saved)
        drop_saved(why);
    else if (strcmp(prof.saved.program, dsm_program_id()))
        drop_saved("it was written by another program, or another build of it");
    else if (prof.saved.nodes != omp_rt.nodes)
        drop_saved("it was written by a run on another number of nodes");
}

/* The blocks a site's profile keeps: the current ones, unless a change
 * made at the program's last barriers never ran (nothing measured on it):
 * then the blocks before it, which the saved costs measured.  A change
 * decided on the last few executions, which a hiccup of the machine may
 * have slowed, is not what the next run should start from unjudged (a
 * slowed node once ended a run with three times the rows of the fast
 * one). */
static const uint64_t *saved_blocks(const struct site *s)
{
    if (!s->before)
        return s->bounds;
    for (size_t at = 0; at < (size_t)s->nloops * (size_t)s->nodes; at++)
        if (s->tot_iters[at])
            return s->bounds;
    return s->before;
}

/* Node 0, at exit: every site's loops, their costs per iteration over the
 * run (or the saved ones, for a node that ran none of a loop) and the
 * blocks at exit (saved_blocks), written to a new file renamed over FILE. */
void omp_profiled_save(void)
{
    if (!omp_profiled.file || omp_rt.node != 0)
        return;
    struct saved_profile p = { .nodes = omp_rt.nodes };
    snprintf(p.program, sizeof p.program, "%s", dsm_program_id());
    for (int team = 1; team <= omp_rt.nodes; team++) {
        for (size_t k = 0; k < prof.tables[team].n; k++) {
            const struct site *s = &prof.tables[team].v[k];
            struct saved_site v = { .team = team, .base = (int64_t)s->base, .incr = (int64_t)s->incr, .n = s->n,
                                    .nloops = s->nloops };
            v.bounds = xcalloc((size_t)team + 1, sizeof *v.bounds);
            v.loops = xcalloc(s->nloops + 1, sizeof *v.loops);
            const uint64_t *b = saved_blocks(s);
            for (int i = 0; i <= team; i++)
                v.bounds[i] = (int64_t)s->base + (int64_t)b[i] * (int64_t)s->incr;
            for (unsigned l = 0; l < s->nloops; l++) {
                struct saved_loop *sl = &v.loops[l];
                *sl = (struct saved_loop){ .where = s->loops[l].where - omp_rt.exe_base,
                                           .start = (int64_t)s->loops[l].start, .len = s->loops[l].len,
                                           .execs = s->execs[l], .cost = xcalloc((size_t)team, sizeof *sl->cost) };
                for (int i = 0; i < team; i++) {
                    size_t at = l * (size_t)team + (size_t)i;
                    sl->cost[i] = s->tot_iters[at]    ? (double)s->tot_ns[at] / (double)s->tot_iters[at]
                                  : s->prev_iters[at] ? (double)s->prev_ns[at] / (double)s->prev_iters[at]
                                  : s->saved_cost     ? s->saved_cost[at]
                                                      : 0;
                }
            }
            p.sites = xrealloc(p.sites, (p.nsites + 1) * sizeof *p.sites);
            p.sites[p.nsites++] = v;
        }
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", omp_profiled.file, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (f)
        profile_write(f, &p);
    if (!f || fclose(f) || rename(tmp, omp_profiled.file)) {
        dsm_warn("OMPDSM_PROFILE=%s: cannot write the profile: %s", omp_profiled.file, strerror(errno));
        unlink(tmp);
    }
    profile_free(&p);
}

void omp_profiled_init(void)
{
    prof.tables = xcalloc((size_t)omp_rt.nodes + 1, sizeof *prof.tables);
    prof.cpus_shared = omp_placement_cpus_shared();
    if (omp_profiled.file)
        load_saved();
    dsm_barrier_extra(provide, consume);
    if (dsm_cfg.stats)
        dsm_stats_on_report(report);
}
