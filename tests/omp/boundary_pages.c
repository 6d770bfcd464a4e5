/*
 * Pages that a block boundary splits, written by two nodes at every step
 * (dsm/refresh.c): the copy at the node that is not the page's home stays
 * writable and is refreshed from the home at each barrier instead of
 * dropped, and the home keeps the page hot too.  No write may be lost and
 * no refreshed copy may be stale.
 *
 * Each step updates some of four vectors, whose length is no multiple of
 * a page, each with its own `parallel for`; a vector is written every
 * first, second, third or fourth step, so that copies stay hot while
 * idle for a few loops, and some cool and heat up again.  Each update
 * reads two other vectors at the neighbours of its element, across the
 * block boundaries, and a loop over a separate array puts barriers in
 * between.  Two vectors are globals, two the master allocated.  Unsigned
 * arithmetic (it wraps): the output does not depend on the number of
 * threads.
 * Run over tcp too.
 */
#include <stdio.h>
#include <stdlib.h>

enum { N = 14000 + 37, STEPS = 60 };

static unsigned long g0[N], g1[N];

static void update(unsigned long *x, const unsigned long *a, const unsigned long *b, unsigned long s)
{
#pragma omp parallel for
    for (long j = 0; j < N; j++)
        x[j] = x[j] * 3 + a[j == 0 ? N - 1 : j - 1] + b[j == N - 1 ? 0 : j + 1] + s;
}

static unsigned long sum(const unsigned long *x)
{
    unsigned long s = 0;
    for (long j = 0; j < N; j++)
        s = s * 31 + x[j];
    return s;
}

int main(void)
{
    unsigned long *h0 = calloc(N, sizeof *h0), *h1 = calloc(N, sizeof *h1), *w = calloc(N, sizeof *w);
    if (!h0 || !h1 || !w)
        return 1;
    unsigned long *v[4] = { g0, h0, g1, h1 };
    for (long j = 0; j < N; j++)
        v[j % 4][j] = (unsigned long)j;
    for (unsigned long s = 1; s <= STEPS; s++) {
        for (int k = 0; k < 4; k++) {
            if (s % (unsigned long)(k + 1) == 0)
                update(v[k], v[(k + 1) % 4], v[(k + 3) % 4], s);
#pragma omp parallel for
            for (long j = 0; j < N; j++)
                w[j] += s;
        }
    }
    for (int k = 0; k < 4; k++)
        printf("vector %d: %lu\n", k, sum(v[k]));
    printf("separate: %lu\n", sum(w));
    free(h0);
    free(h1);
    free(w);
    return 0;
}
