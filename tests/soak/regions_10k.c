/*
 * regions_10k: 10,000 consecutive parallel regions, each depending on the
 * shared results of the one before, give the sequential result, and the
 * memory of every node stays flat while they run.
 *
 * Region r adds a little to every element of a shared array and sums it
 * (a reduction), in one of four forms, r % 4:
 *   0  parallel for, schedule(static) (computed inline by GCC)
 *   1  parallel for, schedule(dynamic) (the combined entry point)
 *   2  parallel sections, one quarter of the array per section
 *   3  parallel, with a guided loop, a single that writes a second shared
 *      array, and a block each thread allocates and fills, which the
 *      initial thread checks and frees after the region (on ompdsm, most
 *      are frees of blocks in other nodes' arenas)
 * and the initial thread folds each region's sum into a checksum.  Every
 * thousandth region (always of form 3) every node also samples its
 * resident memory (memsample.h).  The output does not depend on the
 * number of threads.
 */
#include "memsample.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define REGIONS 10000
#define N 1024
#define NB 61

static long a[N], b[NB], bad_blocks;
static long *blocks[MAX_THREADS];

static long add(int lo, int hi, int r)
{
    long s = 0;
    for (int i = lo; i < hi; i++) {
        a[i] = a[i] + ((i ^ r) & 7);
        s += a[i];
    }
    return s;
}

/* Form 3: the threads' blocks, checked and freed by the initial thread;
 * the number of blocks missing or holding wrong values. */
static long take_blocks(int r, int threads)
{
    long bad = 0;
    for (int t = 0; t < threads && t < MAX_THREADS; t++) {
        long *p = blocks[t];
        if (!p) {
            bad++;
            continue;
        }
        for (int k = 0; k < 8; k++)
            bad += p[k] != r + k;
        free(p);
        blocks[t] = NULL;
    }
    return bad;
}

static long region(int r)
{
    long s = 0;
    switch (r % 4) {
    case 0:
#pragma omp parallel for schedule(static) reduction(+:s)
        for (int i = 0; i < N; i++) {
            a[i] = a[i] + ((i ^ r) & 7);
            s += a[i];
        }
        return s;
    case 1:
#pragma omp parallel for schedule(dynamic, 64) reduction(+:s)
        for (int i = 0; i < N; i++) {
            a[i] = a[i] + ((i ^ r) & 7);
            s += a[i];
        }
        return s;
    case 2:
#pragma omp parallel sections reduction(+:s)
        {
#pragma omp section
            s += add(0, N / 4, r);
#pragma omp section
            s += add(N / 4, N / 2, r);
#pragma omp section
            s += add(N / 2, 3 * N / 4, r);
#pragma omp section
            s += add(3 * N / 4, N, r);
        }
        return s;
    default:
#pragma omp parallel reduction(+:s)
        {
#pragma omp for schedule(guided)
            for (int i = 0; i < N; i++) {
                a[i] = a[i] + ((i ^ r) & 7);
                s += a[i];
            }
#pragma omp single
            b[r % NB] = b[r % NB] + a[r % N];
            int t = omp_get_thread_num();
            if (t < MAX_THREADS) {
                long *p = malloc(8 * sizeof *p);
                if (p)
                    for (int k = 0; k < 8; k++)
                        p[k] = r + k;
                blocks[t] = p;
            }
            if ((r + 1) % (REGIONS / SAMPLES) == 0)
                mem_sample(r / (REGIONS / SAMPLES));
        }
        bad_blocks += take_blocks(r, omp_get_max_threads());
        return s;
    }
}

int main(void)
{
    unsigned long checksum = 0;
    double t0 = omp_get_wtime();
    for (int r = 0; r < REGIONS; r++)
        checksum = checksum * 31 + (unsigned long)region(r);
    double seconds = omp_get_wtime() - t0;

    long weighted = 0, bsum = 0;
    for (int i = 0; i < N; i++)
        weighted += a[i] * (i + 1);
    for (int i = 0; i < NB; i++)
        bsum += b[i];
    printf("regions: %d\n", REGIONS);
    printf("checksum: %016lx\n", checksum);
    printf("a[0] = %ld a[%d] = %ld weighted = %ld\n", a[0], N - 1, a[N - 1], weighted);
    printf("b sum = %ld\n", bsum);
    printf("bad blocks: %ld\n", bad_blocks);
    mem_report(seconds);
    return 0;
}
