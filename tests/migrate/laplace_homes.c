/*
 * Home migration puts Laplace's pages where they are worked on.
 *
 * Two (N+2) x (N+2) grids of doubles in shared memory with cyclic homes
 * (run with OMPDSM_HOME=cyclic), rows split in contiguous blocks across the
 * nodes as a static schedule would.  After one Jacobi iteration every node has faulted on its
 * own rows; one migration must then move almost every page whose home is not
 * the node working on it: at least 99% of them at 2 nodes and 95% beyond
 * (pages shared by two blocks stay, as their home writes them).  The grid
 * after ITER iterations, migration included, must be bit for bit the grid
 * node 0 computes alone in private memory.
 *
 *   laplace_homes [N] [ITER]        (defaults 1024, 10)
 */
#include "../dsm/check.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static int n_, iters;

#define AT(g, i, j) ((g)[(size_t)(i) * (size_t)(n_ + 2) + (size_t)(j)])

static void rows_of(int node, int nodes, int *lo, int *hi)
{
    *lo = 1 + (int)((long)n_ * node / nodes);
    *hi = 1 + (int)((long)n_ * (node + 1) / nodes);
}

static void init(double *u, double *uu, int lo, int hi)
{
    for (int i = lo; i < hi; i++)
        for (int j = 0; j <= n_ + 1; j++)
            AT(u, i, j) = AT(uu, i, j) = (j == 0 || j == n_ + 1) ? 1.0 : 0.0;
}

static void copy(double *u, double *uu, int lo, int hi)
{
    for (int i = lo; i < hi; i++)
        for (int j = 1; j <= n_; j++)
            AT(uu, i, j) = AT(u, i, j);
}

static void update(double *u, const double *uu, int lo, int hi)
{
    for (int i = lo; i < hi; i++)
        for (int j = 1; j <= n_; j++)
            AT(u, i, j) = (AT(uu, i - 1, j) + AT(uu, i + 1, j) + AT(uu, i, j - 1) + AT(uu, i, j + 1)) / 4.0;
}

/* The node that writes every byte of the page at p, or -1 if several do
 * (or none: the boundary rows, which nobody writes after init). */
static int worker_of(const double *g, const char *p, int nodes)
{
    size_t ps = ompdsm_page_size(), row = (size_t)(n_ + 2) * sizeof(double);
    size_t first = (size_t)(p - (const char *)g), last = first + ps - 1;
    long r0 = (long)(first / row), r1 = (long)(last / row);
    int w = -2;
    for (int node = 0; node < nodes; node++) {
        int lo, hi;
        rows_of(node, nodes, &lo, &hi);
        bool mine = r0 >= lo && r1 < hi, some = r0 < hi && r1 >= lo;
        if (mine)
            w = node;
        else if (some)
            return -1;
    }
    return w < 0 ? -1 : w;
}

/* Counts the pages of both grids worked on by one node but homed elsewhere. */
static long misplaced(const double *u, const double *uu, int nodes, long *total)
{
    size_t ps = ompdsm_page_size(), bytes = (size_t)(n_ + 2) * (size_t)(n_ + 2) * sizeof(double);
    long bad = 0;
    *total = 0;
    for (const double *g = u; g; g = (g == u) ? uu : NULL)
        for (size_t off = 0; off + ps <= bytes; off += ps) {
            int w = worker_of(g, (const char *)g + off, nodes);
            if (w < 0)
                continue;
            (*total)++;
            bad += ompdsm_home_of((const char *)g + off) != w;
        }
    return bad;
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    n_ = argc > 1 ? atoi(argv[1]) : 1024;
    iters = argc > 2 ? atoi(argv[2]) : 10;
    int me = ompdsm_node(), nodes = ompdsm_nodes();
    size_t bytes = (size_t)(n_ + 2) * (size_t)(n_ + 2) * sizeof(double);
    size_t ps = ompdsm_page_size();
    /* Page-aligned grids, as laplace's global arrays would be. */
    double *u = ompdsm_alloc(bytes), *uu = ompdsm_alloc(bytes);
    CHECK(((uintptr_t)u | (uintptr_t)uu) % ps == 0, "grids not page aligned");
    int lo, hi;
    rows_of(me, nodes, &lo, &hi);
    if (me == 0)
        lo = 0;                 /* node 0 and the last node also own a boundary row */
    if (me == nodes - 1)
        hi = n_ + 2;
    init(u, uu, lo, hi);
    ompdsm_barrier();
    rows_of(me, nodes, &lo, &hi);

    long total, before = misplaced(u, uu, nodes, &total);
    for (int it = 0; it < iters; it++) {
        copy(u, uu, lo, hi);
        ompdsm_barrier();
        update(u, uu, lo, hi);
        if (it == 0) {
            ompdsm_barrier_migrate_home();
            long after = misplaced(u, uu, nodes, &total);
            double moved = before ? (double)(before - after) / (double)before : 1.0;
            if (me == 0)
                printf("laplace_homes: %d nodes, %ld pages worked by one node, %ld misplaced before, "
                       "%ld after: %.1f%% moved\n", nodes, total, before, after, 100.0 * moved);
            if (nodes > 1)
                CHECK(moved >= (nodes == 2 ? 0.99 : 0.95), "only %.1f%% of the misplaced pages moved",
                      100.0 * moved);
        } else {
            ompdsm_barrier();
        }
    }

    /* Node 0 computes the same grid alone, in private memory. */
    if (me == 0) {
        double *pu = malloc(bytes), *puu = malloc(bytes);
        CHECK(pu && puu, "out of memory");
        init(pu, puu, 0, n_ + 2);
        for (int it = 0; it < iters; it++) {
            copy(pu, puu, 1, n_ + 1);
            update(pu, puu, 1, n_ + 1);
        }
        CHECK(!memcmp(pu, u, bytes), "grid after migration differs from the sequential grid");
        printf("laplace_homes: %d iterations identical to the sequential computation\n", iters);
        free(pu);
        free(puu);
    }
    ompdsm_barrier();
    ompdsm_finalize();
    return 0;
}
