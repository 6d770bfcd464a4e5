/* env: OMP_SCHEDULE=profiled,warmup=0,alpha=0,hold=1 */
/*
 * profiled_stencil: schedule(runtime) loops under the profiled schedule with
 * alpha=0 and hold=1, so that the blocks are recomputed after nearly every
 * execution from noisy timings: whatever the blocks, every row is computed
 * exactly once per sweep.  A 2-D stencil with uneven work per row (the
 * deeper rows cost more) and a sum reduction per sweep; integer arithmetic,
 * so the output equals libgomp's exactly.
 */
#include <omp.h>
#include <stdio.h>

#define R 120
#define C 257
#define SWEEPS 30

static long a[R][C], b[R][C];

int main(void)
{
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            a[i][j] = (i * 7 + j * 3) % 101;
    for (int s = 0; s < SWEEPS; s++) {
        long total = 0;
#pragma omp parallel
        {
#pragma omp for schedule(runtime) reduction(+ : total)
            for (int i = 1; i < R - 1; i++)
                for (int j = 1; j < C - 1; j++) {
                    long v = a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1];
                    for (int k = 0; k < i / 20; k++)       /* uneven work */
                        v = (v * 3 + k) % 1000003;
                    b[i][j] = v % 1000;
                    total += b[i][j];
                }
#pragma omp for schedule(runtime)
            for (int i = 1; i < R - 1; i++)
                for (int j = 1; j < C - 1; j++)
                    a[i][j] = b[i][j];
        }
        if (s % 5 == 4)
            printf("sweep %d total %ld\n", s, total);
    }
    unsigned long h = 0;    /* unsigned: the hash wraps around */
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            h = h * 31 + (unsigned long)a[i][j];
    printf("hash %lu\n", h);
    return 0;
}
