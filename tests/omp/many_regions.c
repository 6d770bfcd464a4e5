/*
 * many_regions: 200 consecutive parallel regions (100 rounds of two), each
 * depending on the previous one's results through shared memory (an array
 * rotated by one element per round), give the sequential result: nothing
 * is lost or stale between regions.
 */
#include <omp.h>
#include <stdio.h>

#define N 256

int main(void)
{
    static long a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = i;
    for (int r = 0; r < 100; r++) {
#pragma omp parallel for
        for (int i = 0; i < N; i++)
            b[i] = a[(i + 1) % N] + (r % 3);
#pragma omp parallel for
        for (int i = 0; i < N; i++)
            a[i] = b[i];
    }
    long s = 0;
    for (int i = 0; i < N; i++)
        s += a[i] * (i + 1);
    printf("a[0] = %ld a[255] = %ld weighted = %ld\n", a[0], a[N - 1], s);
    return 0;
}
