/*
 * task_spread: tasks made by one thread (in a single region) are run by the
 * other threads of the team too, while that thread is still making them:
 * each of 96 uneven tasks records which thread ran it, and with more than
 * one thread more than one must have run tasks.  A taskloop's tasks spread
 * the same way, and every task and iteration runs exactly once.  The
 * taskloop's work takes about 0.1 s.  At 2 nodes over tcp, 1 run in 100
 * had its creator run every taskloop task; the likely cause, found by
 * reading: the other node, whose request of the interval before was
 * answered "nothing" just after the creator had hinted its new tasks,
 * forgot that hint (task.c, steal_one).
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

#define TASKS 96
#define ITERS 96

int ran_by[TASKS], iter_by[ITERS], runs[TASKS], iter_runs[ITERS];

static double work(int units)
{
    volatile double s = 0;
    for (int k = 0; k < units * 150000; k++)
        s += k;
    return s;
}

static int distinct(const int *by, int n)
{
    int seen[64] = { 0 }, d = 0;
    for (int i = 0; i < n; i++)
        if (by[i] >= 0 && by[i] < 64 && !seen[by[i]]++)
            d++;
    return d;
}

int main(void)
{
    int threads = 1;
#pragma omp parallel
    {
#pragma omp single
        {
            threads = omp_get_num_threads();
            for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i)
                {
                    work(1 + i % 5);
                    ran_by[i] = omp_get_thread_num();
                    runs[i]++;
                }
            }
        }
#pragma omp single
#pragma omp taskloop grainsize(2)
        for (int i = 0; i < ITERS; i++) {
            work(2 + 2 * (i % 3));
            iter_by[i] = omp_get_thread_num();
            iter_runs[i]++;
        }
    }
    int once = 1;
    for (int i = 0; i < TASKS; i++)
        once &= runs[i] == 1;
    for (int i = 0; i < ITERS; i++)
        once &= iter_runs[i] == 1;
    printf("every task and iteration once: %s\n", once ? "yes" : "NO");
    printf("tasks run by several threads: %s\n",
           threads == 1 ? "one thread" : distinct(ran_by, TASKS) > 1 ? "yes" : "NO");
    printf("taskloop run by several threads: %s\n",
           threads == 1 ? "one thread" : distinct(iter_by, ITERS) > 1 ? "yes" : "NO");
    return 0;
}
