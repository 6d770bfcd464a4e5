/*
 * task_depend_undeferred: an undeferred task (if(0)) with a depend clause
 * waits for the sibling it depends on and is then run by its creator, at
 * once, and by no one else: it must not also be queued when that sibling
 * completes (another thread would run it a second time, without its data).
 * It must see what the sibling wrote, wherever the sibling ran.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define N 64
#define ROUNDS 30

int main(void)
{
    static long x[N], y[N];
    static int runs[N];
    int wrong = 0;
#pragma omp parallel
#pragma omp single
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++) {
#pragma omp task depend(out: x[i]) firstprivate(i, r)
            {
                struct timespec ts = { 0, 200 * 1000 };
                nanosleep(&ts, NULL);
                x[i] = i + r;
            }
#pragma omp task if(0) depend(in: x[i]) firstprivate(i)
            {
                y[i] = 2 * x[i];
                runs[i]++;
            }
            wrong += y[i] != 2L * (i + r);
        }
#pragma omp taskwait
    }
    int not_once = 0;
    for (int i = 0; i < N; i++)
        not_once += runs[i] != ROUNDS;
    printf("undeferred tasks that missed what they depend on: %d\n", wrong);
    printf("undeferred tasks not run exactly once a round: %d\n", not_once);
    return 0;
}
