/*
 * ahead_writes_seen: a heap array the master initialised (so one node is
 * home of all of it) is read whole by every thread, then each thread
 * writes a block of pages that nobody wrote before, front to back, and
 * after a barrier every thread checks every word of every block.  Every
 * third page of a block is written with the value it already held.  The
 * writer takes a write fault on the first pages of its block and makes the
 * next ones writable ahead of their writes (write-ahead); such a page is
 * announced at the barrier only if it changed, and a node that holds a
 * copy from the read must drop it then.  A copy kept shows as a stale
 * word.  The output does not depend on the team.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 24, MAX_THREADS = 16, BLOCK_PAGES = 12, WORDS_PER_PAGE = 512 };
enum { BLOCK = BLOCK_PAGES * WORDS_PER_PAGE };

/* The value word i of the array holds once round r is over. */
static long value(long i, int r, int nthreads)
{
    long block = i / BLOCK, page = i / WORDS_PER_PAGE % BLOCK_PAGES;
    if (block >= (long)r * nthreads || page % 3 == 2)
        return i;
    return 1000000L * (block / nthreads + 1) + i;
}

int main(void)
{
    long words = (long)ROUNDS * MAX_THREADS * BLOCK;
    long *a = malloc(sizeof *a * words);
    if (!a)
        return 1;
    for (long i = 0; i < words; i++)
        a[i] = i;
    long wrong = 0, sum = 0;
#pragma omp parallel reduction(+ : wrong, sum)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int r = 1; r <= ROUNDS && n <= MAX_THREADS; r++) {
            /* The blocks of this round and the next: a node's first copy
             * of a page is dropped at its next barrier anyway (it was not
             * registered at the home yet), its second one is kept. */
            long ahead = (long)(r < ROUNDS ? r + 1 : r) * n * BLOCK;
            for (long i = 0; i < ahead; i += WORDS_PER_PAGE / 4)
                sum += a[i];
#pragma omp barrier
            long first = ((long)(r - 1) * n + t) * BLOCK;
            for (long i = first; i < first + BLOCK; i++)
                a[i] = value(i, r, n);
#pragma omp barrier
            for (long i = 0; i < (long)r * n * BLOCK; i++)
                wrong += a[i] != value(i, r, n);
#pragma omp barrier
        }
    }
    printf("%d rounds of a block of %d pages per thread, %ld stale words seen\n", ROUNDS, BLOCK_PAGES, wrong);
    free(a);
    return sum < 0;
}
