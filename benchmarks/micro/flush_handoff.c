/*
 * flush_handoff: the latency of passing a token between threads through a plain
 * shared variable and `#pragma omp flush`, the point-to-point pattern of
 * pipelined solvers.  Every thread waits until the token names it, then
 * hands it to the next thread; after ROUNDS hand-offs in all, each thread
 * checks the count of turns it saw.
 *
 *   flush_handoff [ROUNDS]        (default 10000)
 *
 * Prints the time per hand-off in microseconds and "ok" when every turn was
 * seen in order.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int token;              /* whose turn it is */
long turns;             /* hand-offs made so far */

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 10000;
    int bad = 0, threads = 1;
    double t0 = 0, t1 = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
        threads = n;
#pragma omp barrier
#pragma omp master
        t0 = omp_get_wtime();
        for (;;) {
            int t;
            long done;
            do {
#pragma omp flush
                t = token;
                done = turns;
            } while (t != me && done < rounds);
            if (done >= rounds)
                break;
            if (done % n != me)
                bad++;
            turns = done + 1;
#pragma omp flush
            token = (me + 1) % n;
#pragma omp flush
        }
#pragma omp barrier
#pragma omp master
        t1 = omp_get_wtime();
    }
    printf("threads %d hand-offs %ld time per hand-off %.3f us %s\n", threads, turns,
           (t1 - t0) * 1e6 / (double)rounds, bad == 0 && turns == rounds ? "ok" : "WRONG");
    return !(bad == 0 && turns == rounds);
}
