/*
 * A release whose diffs for one home exceed a message (dsm/diff_out.c
 * sends them in chunks of at most 8 MB, in buffers shared with the
 * receives) must lose none of them, whether a barrier posts them or a
 * lock's release waits for them.
 *
 * The master sets up a 48 MB array, so every page starts written by node
 * 0; each step rewrites all of it with a `parallel for`, every other word
 * only in odd steps (a diff that is not the whole page).  Then every
 * thread adds its share into a 24 MB array inside a critical section, the
 * pages of which every thread writes in turn.  Unsigned arithmetic, sums
 * in a fixed order: the output does not depend on the number of threads.
 * Run over tcp too.
 */
#include <stdio.h>
#include <stdlib.h>

enum { N = 6 << 20, M = 6 << 20, STEPS = 4 };

static unsigned long sum(const unsigned long *x, long n)
{
    unsigned long s = 0;
    for (long j = 0; j < n; j++)
        s = s * 31 + x[j];
    return s;
}

static unsigned int sum32(const unsigned int *x, long n)
{
    unsigned int s = 0;
    for (long j = 0; j < n; j++)
        s = s * 31 + x[j];
    return s;
}

int main(void)
{
    unsigned long *a = malloc(N * sizeof *a);
    unsigned int *acc = malloc(M * sizeof *acc);
    if (!a || !acc)
        return 1;
    for (long j = 0; j < N; j++)
        a[j] = (unsigned long)j;
    for (long j = 0; j < M; j++)
        acc[j] = 0;
    for (unsigned long s = 1; s <= STEPS; s++) {
#pragma omp parallel for schedule(static)
        for (long j = 0; j < N; j++)
            if (s % 2 == 0 || j % 2 == 0)
                a[j] = a[j] * 5 + s;
        printf("step %lu: %lu\n", s, sum(a, N));
    }
#pragma omp parallel
    {
        unsigned int me = 0;
#pragma omp for schedule(static)
        for (long j = 0; j < N; j++)
            me += (unsigned int)a[j];
#pragma omp critical
        for (long j = 0; j < M; j++)
            acc[j] += me + (unsigned int)j;
    }
    /* Each thread added (its share + j) to acc[j]: acc[j] = total + T j,
     * whose value depends on T; what does not is acc[j] - acc[0], over j. */
    unsigned int total = acc[0];
    for (long j = 0; j < M; j++)
        acc[j] -= total;
    unsigned int t = M > 1 ? acc[1] : 0;
    for (long j = 0; j < M; j++)
        acc[j] = t ? acc[j] / t : acc[j];
    printf("shares: %u, stripes: %u\n", total, sum32(acc, M));
    free(a);
    free(acc);
    return 0;
}
