/*
 * task_data_reused: one thread creates many small tasks, round after
 * round, while the other threads (of every node) run them.  The data of a
 * task lives in memory freed when the task is done and soon reused for a
 * later task; a task must see its own data, never an earlier task's that
 * held the same place (it would run that task again and leave its own
 * undone), and the thread that waits for the tasks must see every result.
 */
#include <omp.h>
#include <stdio.h>

#define N 600
#define ROUNDS 40

static long expected(int i, int r)
{
    long v = 0;
    for (int k = 0; k <= i; k++)
        v += (long)k * k + r;
    return v;
}

int main(void)
{
    static long out[N], seen[N];
    static int runs[N];
    int bad_rounds = 0, bad_seen = 0;
    for (int r = 1; r <= ROUNDS; r++) {
#pragma omp parallel
#pragma omp single
        {
            for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(r)
                {
                    out[i] = expected(i, r);
                    runs[i]++;
                }
            }
#pragma omp taskwait
            for (int i = 0; i < N; i++)
                seen[i] = out[i];
        }
        int wrong = 0;
        for (int i = 0; i < N; i++) {
            wrong += out[i] != expected(i, r);
            bad_seen += seen[i] != expected(i, r);
        }
        bad_rounds += wrong != 0;
    }
    int bad_runs = 0;
    for (int i = 0; i < N; i++)
        bad_runs += runs[i] != ROUNDS;
    printf("rounds with a wrong result: %d\n", bad_rounds);
    printf("results not seen after taskwait: %d\n", bad_seen);
    printf("tasks not run exactly once a round: %d\n", bad_runs);
    return 0;
}
