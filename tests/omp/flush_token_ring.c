/*
 * flush_token_ring: threads pass a token round a ring through plain shared
 * variables and `#pragma omp flush`, with no atomic, lock or barrier: each
 * waits until the token names it, checks the data its predecessor wrote,
 * writes its own, flushes, and hands the token on.  This is the
 * point-to-point pattern of pipelined solvers; it needs flush to make one
 * node's writes visible to another.  A waiter gives up after 20 seconds, so
 * a flush that does not work fails instead of hanging.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 50
#define WORDS 3000       /* the data spans pages */

int token;
int data[WORDS];
int hops;

int main(void)
{
    int errors = 0, timeouts = 0;
    for (int i = 0; i < WORDS; i++)
        data[i] = i;
#pragma omp parallel reduction(+ : errors, timeouts)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = omp_get_wtime();
            int t;
            for (;;) {
#pragma omp flush
                t = token;
                if (t == me)
                    break;
                if (omp_get_wtime() - t0 > 20.0)
                    break;
            }
            if (t != me) {
                timeouts++;
                break;
            }
            int expect = r * n + me;       /* hops made before this one */
            if (hops != expect)
                errors++;
            for (int i = 0; i < WORDS; i++)
                if (data[i] != expect * WORDS + i)
                    errors++;
            for (int i = 0; i < WORDS; i++)
                data[i] = (expect + 1) * WORDS + i;
            hops = expect + 1;
#pragma omp flush
            token = (me + 1) % n;
#pragma omp flush
        }
    }
    printf("hops %d errors %d timeouts %d\n", hops, errors, timeouts);
    return 0;
}
