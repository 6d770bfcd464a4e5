/*
 * histogram_atomic: many threads increment the bins of a shared histogram
 * with atomic updates (int bins and long weighted bins); no increment is
 * lost, so the histogram equals the sequential one.
 */
#include <omp.h>
#include <stdio.h>

#define N 20000
#define BINS 32

int main(void)
{
    static int hist[BINS];
    static long whist[BINS];

#pragma omp parallel for schedule(dynamic, 64)
    for (int i = 0; i < N; i++) {
        unsigned h = (unsigned)i * 2654435761u;
        int bin = (h >> 16) % BINS;
#pragma omp atomic
        hist[bin]++;
#pragma omp atomic
        whist[bin] += i % 100;
    }
    long total = 0;
    for (int b = 0; b < BINS; b++) {
        printf("bin %2d: %d %ld\n", b, hist[b], whist[b]);
        total += hist[b];
    }
    printf("total = %ld\n", total);
    return 0;
}
