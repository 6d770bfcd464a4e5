/*
 * loops.c: per-loop-site statistics, and the collective report at exit.
 *
 * A site is a call site of the runtime's loop entry points (or the body of
 * a combined parallel loop).  Each node sums, per site, its executions,
 * iterations and time (with several threads per node, each thread's
 * execution counts), and keeps its last block; at exit node 0 gathers
 * the sums with a DSM barrier and prints one line per site and node when
 * OMPDSM_STATS is set.  The trace (trace.c) is written at the same point.
 */
#include "prof.h"
#include "trace.h"

#include "../dsm/dsm.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One node's totals for one site, as they travel to node 0. */
struct site_sum {
    uint64_t where;             /* offset in the executable */
    char kind[12];
    int32_t node;
    uint64_t calls, iters, ns, last_first, last_iters;
};

static struct {
    pthread_mutex_t mu;         /* the node's threads add to the sums */
    struct site_sum *v;
    size_t n;
    uintptr_t exe_base;
} sites = { .mu = PTHREAD_MUTEX_INITIALIZER };

static struct site_sum *site(uintptr_t where, const char *kind)
{
    uint64_t off = where - sites.exe_base;
    for (size_t i = 0; i < sites.n; i++)
        if (sites.v[i].where == off && !strcmp(sites.v[i].kind, kind))
            return &sites.v[i];
    struct site_sum *v = xrealloc(sites.v, (sites.n + 1) * sizeof *v);
    sites.v = v;
    struct site_sum *s = &v[sites.n++];
    memset(s, 0, sizeof *s);
    s->where = off;
    s->node = dsm.node;
    snprintf(s->kind, sizeof s->kind, "%s", kind);
    return s;
}

void prof_loop(uintptr_t where, const char *kind, uint64_t t0, uint64_t t1, uint64_t first, uint64_t iters)
{
    if (dsm_cfg.stats) {
        dsm_lock(&sites.mu);
        struct site_sum *s = site(where, kind);
        s->calls++;
        s->iters += iters;
        s->ns += t1 - t0;
        s->last_first = first;
        s->last_iters = iters;
        dsm_unlock(&sites.mu);
    }
    prof_trace_loop(where - sites.exe_base, kind, t0, t1, first, iters);
}

static int cmp_sum(const void *a, const void *b)
{
    const struct site_sum *x = a, *y = b;
    if (x->where != y->where)
        return (x->where > y->where) - (x->where < y->where);
    int k = strcmp(x->kind, y->kind);
    return k ? k : x->node - y->node;
}

static void print_sites(struct site_sum *all, size_t n)
{
    qsort(all, n, sizeof *all, cmp_sum);
    fprintf(stderr, "ompdsm loop sites (site = offset in the executable: addr2line -f -e PROGRAM OFFSET)\n");
    fprintf(stderr, "%12s %-9s %5s %8s %12s %10s %12s %12s\n", "site", "schedule", "node", "calls", "mean-block",
            "time-s", "last-first", "last-block");
    for (size_t i = 0; i < n; i++) {
        struct site_sum *s = &all[i];
        bool first = !i || s->where != all[i - 1].where || strcmp(s->kind, all[i - 1].kind);
        char name[24] = "";
        if (first)
            snprintf(name, sizeof name, "0x%lx", (unsigned long)s->where);
        fprintf(stderr, "%12s %-9s %5d %8lu %12.1f %10.4f %12lu %12lu\n", name, first ? s->kind : "", s->node,
                (unsigned long)s->calls, s->calls ? (double)s->iters / (double)s->calls : 0.0, (double)s->ns * 1e-9,
                (unsigned long)s->last_first, (unsigned long)s->last_iters);
    }
}

void prof_init(uintptr_t exe_base)
{
    sites.exe_base = exe_base;
    prof_trace_init();
}

void prof_report(void)
{
    if (dsm_cfg.stats) {
        size_t len;
        struct site_sum *all = dsm_barrier_gather(sites.v, sites.n * sizeof *sites.v, &len);
        if (dsm.node == 0 && len)
            print_sites(all, len / sizeof *all);
        free(all);
    }
    prof_trace_write();
}
