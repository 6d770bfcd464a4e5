/*
 * Pages a node writes again and again stay writable across barriers (hot
 * pages, dsm/flush.c): their writes must still reach every other node at
 * every barrier, whether the writes are interleaved with other nodes'
 * (false sharing), come every few rounds (a page that cools and heats up
 * again), restore a value written earlier in the same interval, or land on
 * pages whose home migration moves meanwhile.
 *
 * Each round, thread t writes the elements i with i % nthreads == t of a
 * shared array (every page written by every thread), on some rounds only
 * every fourth page, and on some rounds writes a value and puts it back;
 * the last thread alone writes all of a second array, which the master
 * allocated (its pages are homed at node 0, so only their hot copies
 * carry the writes); after a barrier every thread checks every element.  The output is one
 * line per thread and does not depend on the number of threads.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 64 * 1024, ROUNDS = 60, PER_PAGE = 512 };

static long expected(long i, int round)
{
    return round % 3 == 2 && (i / PER_PAGE) % 4 != 0 ? round - 1 : round;
}

int main(void)
{
    long *a = calloc(N, sizeof *a);
    long *b = calloc(N, sizeof *b);
    long *c = calloc(N, sizeof *c);
    if (!a || !b || !c)
        return 1;
    int bad[256] = { 0 };
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int round = 1; round <= ROUNDS; round++) {
            for (long i = t; i < N; i += nt) {
                if (round % 3 == 2 && (i / PER_PAGE) % 4 != 0)
                    continue;                       /* this round: every fourth page only */
                a[i] = round;
                if (round % 5 == 0) {
                    long keep = b[i];
                    b[i] = -1;                      /* written and put back in one interval */
                    b[i] = keep;
                }
            }
            if (t == nt - 1)
                for (long i = 0; i < N; i++)
                    c[i] = round;
#pragma omp barrier
            for (long i = 0; i < N; i++) {
                if (a[i] != expected(i, round) || b[i] != 0 || c[i] != round)
                    bad[t]++;
            }
#pragma omp barrier
        }
    }
    int nt = 0;
#pragma omp parallel
#pragma omp master
    nt = omp_get_num_threads();
    long total = 0;
    for (int t = 0; t < nt; t++)
        total += bad[t];
    printf("hot pages: %d rounds, %ld wrong elements seen\n", ROUNDS, total);
    free(a);
    free(b);
    free(c);
    return total != 0;
}
