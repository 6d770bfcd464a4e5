/* env: OMPDSM_MIGRATE=off */
/*
 * write_sweeps: arrays that each thread updates in place, page after page,
 * at every step (read an element, then write it), with every page homed at
 * node 0 (the master allocates and fills them; home migration is off), so
 * the other nodes write remote pages in sweeps and take write-ahead: the
 * pages after a written one become writable with it, twinned, when this
 * node wrote them at a recent release.  Each thread's block ends in the
 * middle of a page and right before another thread's, and the arrays are
 * back to back, so a sweep's write-ahead may run into pages that another
 * node writes, or does not write at all in this step (the odd steps leave
 * the second array alone).  Between the steps the master updates the
 * whole of the first array in place too, so the other nodes' copies are
 * dropped and the next sweep fetches them again (read-only, then written).
 * Every write must reach the home exactly once, and no node may lose a
 * write of another: the sums after each step, taken by the master, are
 * those of libgomp.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N (64 * 1024 + 300)     /* doubles: about 128 pages of 4 KiB each */
#define STEPS 40

int main(void)
{
    double *a = malloc(2 * N * sizeof *a), *b = a + N;
    if (!a)
        return 1;
    for (long i = 0; i < 2 * N; i++)
        a[i] = (double)(i % 1000);
    double check = 0;
    for (int s = 1; s <= STEPS; s++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < N; i++)
            a[i] = a[i] * 0.5 + s;
        if (s % 2 == 0) {
#pragma omp parallel for schedule(static)
            for (long i = 0; i < N; i++)
                b[i] += a[N - 1 - i];
        }
        double sa = 0, sb = 0;
        for (long i = 0; i < N; i++) {
            a[i] -= 0.25;
            sa += a[i];
            sb += b[i];
        }
        check += sa - sb / 1000;
        if (s % 10 == 0)
            printf("step %d: sum a %.6f, sum b %.6f\n", s, sa, sb);
    }
    printf("check %.6f\n", check);
    free(a);
    return 0;
}
