/*
 * A `parallel for` without a schedule clause, as most programs write it:
 * GCC computes the static blocks inline and calls no GOMP_loop function,
 * so the runtime sees a region with no loop in it.  The master
 * initialises the grid, then every iteration updates it row by row.
 *
 * With the default home migration (OMPDSM_MIGRATE unset: auto), the pages
 * must end up homed at the node that works on them, as they do for a loop
 * that the runtime schedules.  The end of a region with no loop used to be
 * no migration point at all: every page stayed with node 0, which had
 * allocated it, and the other nodes sent diffs of every row at every
 * iteration (the textbook Jacobi written so took 4.8 s at 2 nodes, 0.84 s
 * at one).
 *
 * The same grid is then updated by a single region that runs every
 * iteration inside it, each a `#pragma omp for` without a schedule clause:
 * its end is the only call to the runtime (GOMP_barrier), and the pages
 * must have followed their writers before the region ends (checked by the
 * master inside it, after the last loop).
 *
 * The output is libgomp's: the checksum, and "homes follow the work: yes"
 * twice.
 * Under ompdsm, the verdict compares the home of each page of the grid
 * (ompdsm_home_of) with the node whose thread wrote its row (ompdsm_node,
 * recorded by the loop): at least 90 % must match.  libgomp has neither
 * function (weak references: NULL there), and the verdict is then yes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int ompdsm_home_of(const void *addr) __attribute__((weak));
int ompdsm_node(void) __attribute__((weak));
size_t ompdsm_page_size(void) __attribute__((weak));

enum { ROWS = 512, COLS = 1024, ITERS = 6 };    /* a row: 8 KiB */

static int my_node(void)
{
    return ompdsm_node ? ompdsm_node() : 0;
}

/* How many pages lying within one row are homed at the row's writer, of
 * how many such pages. */
static void homes(const double *g, const int *writer, long *match, long *total)
{
    *match = *total = 0;
    if (!ompdsm_home_of)
        return;
    size_t ps = ompdsm_page_size(), row = COLS * sizeof *g, bytes = (size_t)ROWS * row;
    uintptr_t base = (uintptr_t)g, first = (base + ps - 1) / ps * ps;
    for (uintptr_t p = first; p + ps <= base + bytes; p += ps) {
        size_t r0 = (p - base) / row, r1 = (p + ps - 1 - base) / row;
        if (r0 != r1)
            continue;
        ++*total;
        *match += ompdsm_home_of((const void *)p) == writer[r0];
    }
}

int main(void)
{
    double *g = malloc(sizeof(double) * ROWS * COLS);
    int *writer = malloc(sizeof(int) * ROWS);
    if (!g || !writer) {
        fprintf(stderr, "plain_for_homes: out of memory\n");
        return 1;
    }
    for (long i = 0; i < (long)ROWS * COLS; i++)
        g[i] = (double)(i % 7);
    for (int it = 0; it < ITERS; it++) {
#pragma omp parallel for
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLS; c++)
                g[(long)r * COLS + c] = 0.5 * g[(long)r * COLS + c] + (double)(r + c + it);
            writer[r] = my_node();
        }
    }
    long match, total;
    homes(g, writer, &match, &total);
    bool regions_ok = total == 0 || match * 10 >= total * 9;
    if (!regions_ok)
        fprintf(stderr, "plain_for_homes: regions: %ld of %ld pages homed where their row is written\n", match,
                total);

    /* The rows change hands: each node now writes the rows another had. */
    bool inside_ok = true;
#pragma omp parallel
    for (int it = 0; it < ITERS; it++) {
#pragma omp for
        for (int r = 0; r < ROWS; r++) {
            int s = (r + ROWS / 2) % ROWS;
            for (int c = 0; c < COLS; c++)
                g[(long)s * COLS + c] = 0.5 * g[(long)s * COLS + c] + (double)(s - c + it);
            writer[s] = my_node();
        }
#pragma omp master
        if (it == ITERS - 1) {
            homes(g, writer, &match, &total);
            inside_ok = total == 0 || match * 10 >= total * 9;
            if (!inside_ok)
                fprintf(stderr, "plain_for_homes: one region: %ld of %ld pages homed where their row is written\n",
                        match, total);
        }
    }

    double sum = 0.0;
    for (long i = 0; i < (long)ROWS * COLS; i++)
        sum += g[i];
    printf("checksum %.10e\n", sum);
    printf("homes follow the work (a region per loop): %s\n", regions_ok ? "yes" : "no");
    printf("homes follow the work (loops in one region): %s\n", inside_ok ? "yes" : "no");
    free(g);
    free(writer);
    return 0;
}
