/*
 * dsm_micro: latencies of the DSM's basic operations, one figure per line
 * ("name microseconds"), printed by node 0.  Run under ompdsm-run with 2 or
 * more nodes and the default cyclic homes (page p lives at node p % N).
 *
 *   local_fault_us       first touch of a page this node is home of
 *                        (SIGSEGV + mprotect, no message)
 *   remote_read_fault_us read of a page homed at node 0, from node 1, the
 *                        first time (SIGSEGV + registering as a sharer at
 *                        the home + fetch + install)
 *   refetch_fault_us     the same read after the home wrote the page and a
 *                        barrier invalidated node 1's copy: the steady state
 *                        of an iterative program
 *   write_fault_ro_us    write to a page node 1 holds read-only (twin + RW)
 *   write_fault_inv_us   write to a page node 1 does not hold (fetch, twin, RW)
 *   barrier_us           an empty barrier across all nodes
 *
 * Only the measuring node works during a timed phase; the others sleep in
 * a barrier, as they would in a real program waiting for it.
 */
#include "ompdsm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { PAGES = 2000, BARRIERS = 2000 };

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* The i-th page homed at node `home` (cyclic homes). */
static volatile char *page(char *base, size_t ps, int nodes, int home, size_t i)
{
    return base + ((size_t)nodes * i + (size_t)home) * ps;
}

static double touch(char *base, size_t ps, int nodes, int home, size_t first, int write)
{
    double t0 = now_us();
    for (size_t i = first; i < first + PAGES; i++) {
        volatile char *p = page(base, ps, nodes, home, i);
        if (write)
            *p = (char)(i + 1);
        else
            (void)*p;
    }
    return (now_us() - t0) / PAGES;
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t ps = ompdsm_page_size();
    if (n < 2) {
        if (me == 0)
            fprintf(stderr, "dsm_micro: needs at least 2 nodes\n");
        ompdsm_finalize();
        return 2;
    }
    char *base = ompdsm_alloc((size_t)n * 3 * PAGES * ps);
    double local = 0, remote = 0, refetch = 0, wro = 0, winv = 0;

    /* Node 0 first-touches (and fills) three sets of its own pages. */
    if (me == 0) {
        local = touch(base, ps, n, 0, 0, 1);
        touch(base, ps, n, 0, PAGES, 1);
        touch(base, ps, n, 0, 2 * PAGES, 1);
    }
    ompdsm_barrier();
    if (me == 1)
        remote = touch(base, ps, n, 0, 0, 0);
    ompdsm_barrier();
    if (me == 0)
        touch(base, ps, n, 0, 0, 1);
    ompdsm_barrier();
    if (me == 1) {
        refetch = touch(base, ps, n, 0, 0, 0);
        wro = touch(base, ps, n, 0, 0, 1);
        winv = touch(base, ps, n, 0, PAGES, 1);
    }
    ompdsm_barrier();
    double t0 = now_us();
    for (int i = 0; i < BARRIERS; i++)
        ompdsm_barrier();
    double bar = (now_us() - t0) / BARRIERS;

    /* Node 1's figures reach node 0 through shared memory itself. */
    double *out = (double *)page(base, ps, n, 0, 2 * PAGES);
    if (me == 1) {
        out[0] = remote;
        out[1] = wro;
        out[2] = winv;
        out[3] = refetch;
    }
    ompdsm_barrier();
    if (me == 0) {
        printf("nodes %d\n", n);
        printf("local_fault_us %.2f\n", local);
        printf("remote_read_fault_us %.2f\n", out[0]);
        printf("refetch_fault_us %.2f\n", out[3]);
        printf("write_fault_ro_us %.2f\n", out[1]);
        printf("write_fault_inv_us %.2f\n", out[2]);
        printf("barrier_us %.2f\n", bar);
    }
    ompdsm_finalize();
    return 0;
}
