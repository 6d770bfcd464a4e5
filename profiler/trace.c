/*
 * trace.c: OMPDSM_TRACE=FILE, a Chrome trace-event file (JSON) that
 * Perfetto or chrome://tracing opens: one process per node, one complete
 * event ("ph":"X") per loop execution, barrier and home migration.
 *
 * Each node keeps its events in memory, with times relative to an origin
 * taken by every node right after a common barrier (prof_init).  At exit a
 * DSM barrier gathers them at node 0, which writes the file, one event per
 * line (profiler/plot-trace.sh reads it with awk).
 */
#include "prof.h"
#include "trace.h"

#include "../dsm/dsm.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_EVENTS = 1 << 22 };

struct event {
    uint64_t t0, t1;            /* ns since the origin */
    uint64_t site, first, count;
    int32_t node;
    uint16_t what;              /* enum prof_event */
    char kind[10];
};

static struct {
    pthread_mutex_t mu;         /* the node's threads add events */
    struct event *v;
    size_t n, cap;
    uint64_t origin;
    bool full;
} tr = { .mu = PTHREAD_MUTEX_INITIALIZER };

void prof_trace_init(void)
{
    tr.origin = dsm_now_ns();
}

bool prof_tracing(void)
{
    return dsm_cfg.trace != NULL;
}

static void add(struct event e)
{
    if (!dsm_cfg.trace)
        return;
    e.node = dsm.node;
    e.t0 -= e.t0 > tr.origin ? tr.origin : e.t0;
    e.t1 -= e.t1 > tr.origin ? tr.origin : e.t1;
    dsm_lock(&tr.mu);
    if (tr.n < MAX_EVENTS) {
        tr.v = xgrow(tr.v, &tr.cap, tr.n + 1, sizeof *tr.v);
        tr.v[tr.n++] = e;
    } else if (!tr.full) {
        dsm_warn("OMPDSM_TRACE: more than %d events; the rest are not recorded", MAX_EVENTS);
        tr.full = true;
    }
    dsm_unlock(&tr.mu);
}

void prof_trace_loop(uint64_t site, const char *kind, uint64_t t0, uint64_t t1, uint64_t first, uint64_t iters)
{
    struct event e = { .t0 = t0, .t1 = t1, .site = site, .first = first, .count = iters, .what = PROF_LOOP };
    snprintf(e.kind, sizeof e.kind, "%s", kind);
    add(e);
}

void prof_sync(enum prof_event what, uint64_t t0, uint64_t t1, uint64_t pages)
{
    add((struct event){ .t0 = t0, .t1 = t1, .count = pages, .what = (uint16_t)what });
}

static void write_event(FILE *f, const struct event *e, bool last)
{
    double ts = (double)e->t0 * 1e-3, dur = (double)(e->t1 - e->t0) * 1e-3;
    switch (e->what) {
    case PROF_LOOP:
        fprintf(f, "{\"name\":\"loop 0x%lx\",\"cat\":\"loop\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,"
                   "\"tid\":0,\"args\":{\"site\":\"0x%lx\",\"schedule\":\"%s\",\"first\":%lu,\"iterations\":%lu}}",
                (unsigned long)e->site, ts, dur, e->node, (unsigned long)e->site, e->kind,
                (unsigned long)e->first, (unsigned long)e->count);
        break;
    case PROF_BARRIER:
        fprintf(f, "{\"name\":\"barrier\",\"cat\":\"sync\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,"
                   "\"tid\":0}", ts, dur, e->node);
        break;
    case PROF_MIGRATION:
        fprintf(f, "{\"name\":\"home migration\",\"cat\":\"sync\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
                   "\"pid\":%d,\"tid\":0,\"args\":{\"pages_in\":%lu}}", ts, dur, e->node, (unsigned long)e->count);
        break;
    }
    fputs(last ? "\n" : ",\n", f);
}

static void write_file(const struct event *v, size_t n)
{
    FILE *f = fopen(dsm_cfg.trace, "w");
    if (!f) {
        dsm_warn("OMPDSM_TRACE: cannot write %s: %s", dsm_cfg.trace, strerror(errno));
        return;
    }
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    for (int node = 0; node < dsm.nodes; node++)
        fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"node %d\"}}%s\n", node,
                node, n ? "," : (node + 1 < dsm.nodes ? "," : ""));
    for (size_t i = 0; i < n; i++)
        write_event(f, &v[i], i + 1 == n);
    fprintf(f, "]}\n");
    if (fclose(f))
        dsm_warn("OMPDSM_TRACE: error writing %s: %s", dsm_cfg.trace, strerror(errno));
}

void prof_trace_write(void)
{
    if (!dsm_cfg.trace)
        return;
    size_t len;
    struct event *all = dsm_barrier_gather(tr.v, tr.n * sizeof *tr.v, &len);
    if (dsm.node == 0)
        write_file(all, len / sizeof *all);
    free(all);
    free(tr.v);
    tr.v = NULL;
    tr.n = tr.cap = 0;
}
