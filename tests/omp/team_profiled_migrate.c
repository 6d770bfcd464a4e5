/* env: OMP_SCHEDULE=profiled,warmup=0,alpha=0,hold=1 OMPDSM_MIGRATE=every:2 */
/*
 * team_profiled_migrate: teams of every size from 1 to the thread count,
 * in turns, run the same schedule(runtime) stencil under the profiled
 * schedule (blocks change at almost every execution) while homes migrate
 * at every second region or loop end: the profiled timings of a smaller
 * team stay within it, the migrations that fall inside a smaller team's
 * region move pages of idle nodes too, and every result equals the
 * sequential one.
 */
#include <omp.h>
#include <stdio.h>

#define N 3000
#define STEPS 6

static double a[N], b[N];

static int threads;

static double sweep(int k)
{
    double sum = 0;
#pragma omp parallel num_threads(k)
    {
#pragma omp single
        threads = omp_get_num_threads();
        for (int s = 0; s < STEPS; s++) {
#pragma omp for schedule(runtime)
            for (int i = 1; i < N - 1; i++)
                b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
#pragma omp for schedule(runtime)
            for (int i = 1; i < N - 1; i++)
                a[i] = b[i];
        }
#pragma omp for schedule(runtime) reduction(+ : sum)
        for (int i = 0; i < N; i++)
            sum += a[i];
    }
    return sum;
}

int main(void)
{
    int max = omp_get_max_threads();
    for (int i = 0; i < N; i++)
        a[i] = (i * 37 % 101) / 7.0;
    for (int round = 0; round < 3; round++)
        for (int k = max; k >= 1; k--) {
            double sum = sweep(k);
            printf("round %d, %d threads: %.6f\n", round, threads, sum);
        }
    for (int k = 1; k <= max; k++) {
        double sum = sweep(k);
        printf("up, %d threads: %.6f\n", threads, sum);
    }
    return 0;
}
