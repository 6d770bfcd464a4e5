/*
 * home_hot_pages: pages that their home writes at every step and other
 * nodes read, and write words of, in between.  The master allocates the
 * array (its pages are homed at node 0); at each step every thread writes
 * its own interleaved words of every page (false sharing: node 0's words
 * and the others' share each page), then, after the barrier, every thread
 * reads the whole array and checks what the others wrote.  At node 0 the
 * pages stay writable and are compared with a snapshot at each release
 * (hot at their home); the other nodes' diffs must reach both, so that
 * no write is lost and none is taken for node 0's.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS (8 * 1024)        /* 8 pages of 4 KiB */
#define STEPS 200

int main(void)
{
    long *a = calloc(WORDS, sizeof *a);
    if (!a)
        return 1;
    long bad = 0, sum = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int s = 1; s <= STEPS; s++) {
            for (int i = t; i < WORDS; i += n)
                a[i] = (long)s * 100000 + i;
#pragma omp barrier
            for (int i = 0; i < WORDS; i++)
                bad += a[i] != (long)s * 100000 + i;
#pragma omp barrier
        }
    }
    for (int i = 0; i < WORDS; i++)
        sum += a[i];
    printf("wrong words seen: %ld\nsum: %ld\n", bad, sum);
    free(a);
    return 0;
}
