/*
 * profiled_blocks: how the iterations of a schedule(runtime) loop end up
 * split between the threads, next to how fast each thread really is.
 *
 * Phase 1 measures each thread's speed on a schedule(static) loop (equal
 * blocks; GCC computes them inline, OMP_SCHEDULE has no say): iterations
 * per second of its block over several executions.  Phase 2 runs the
 * same work as a schedule(runtime) loop EXECS times, records the block
 * each thread got in the last execution and measures each thread's speed
 * again over the last quarter of the executions.  Output, per thread:
 *     thread T static-speed S speed S2 block B
 * (tests/sched/run-sched-tests.sh compares the block ratio with the speed
 * ratio), then "checksum C", which must not depend on the schedule.
 *
 *   profiled_blocks [EXECS] [ITERS]    (defaults 40, 800)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static double work(int i)
{
    double x = i * 1e-3;
    for (int k = 0; k < 20000; k++)
        x = x * 0.999 + 1e-3 * (double)((i + k) % 7);
    return x;
}

int main(int argc, char **argv)
{
    int execs = argc > 1 ? atoi(argv[1]) : 40, iters = argc > 2 ? atoi(argv[2]) : 800;
    double *out = malloc(sizeof(double) * (size_t)iters);
    double speed[MAX_THREADS] = { 0 }, busy[MAX_THREADS] = { 0 }, busy2[MAX_THREADS] = { 0 };
    long done[MAX_THREADS] = { 0 }, done2[MAX_THREADS] = { 0 };
    long first[MAX_THREADS], last[MAX_THREADS];
    int nthreads = 1;
    if (!out)
        return 1;
    for (int e = 0; e < 10; e++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            double t0 = omp_get_wtime();
            long n = 0;
#pragma omp for schedule(static) nowait
            for (int i = 0; i < iters; i++) {
                out[i] = work(i);
                n++;
            }
            if (t < MAX_THREADS) {
                busy[t] += omp_get_wtime() - t0;
                done[t] += n;
                speed[t] = (double)done[t] / busy[t];
            }
        }
    }
    for (int e = 0; e < execs; e++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            long lo = -1, hi = -1;
            double t0 = omp_get_wtime();
#pragma omp for schedule(runtime) nowait
            for (int i = 0; i < iters; i++) {
                out[i] = work(i);
                if (lo < 0)
                    lo = i;
                hi = i;
            }
            if (t < MAX_THREADS) {
                first[t] = lo;
                last[t] = hi;
                if (e >= execs - execs / 4) {
                    busy2[t] += omp_get_wtime() - t0;
                    done2[t] += lo < 0 ? 0 : hi - lo + 1;
                }
            }
            if (t == 0)
                nthreads = omp_get_num_threads();
        }
    }
    for (int t = 0; t < nthreads && t < MAX_THREADS; t++)
        printf("thread %d static-speed %.0f speed %.0f block %ld\n", t, speed[t],
               busy2[t] > 0 ? (double)done2[t] / busy2[t] : 0.0, first[t] < 0 ? 0 : last[t] - first[t] + 1);
    double sum = 0;
    for (int i = 0; i < iters; i++)
        sum += out[i];
    printf("checksum %.12e\n", sum);
    free(out);
    return 0;
}
