/* env: OMP_SCHEDULE=guided,5 */
/*
 * parallel_for_combined: the combined parallel for (GOMP_parallel_loop_*
 * entry points) with each schedule kind, followed immediately by a
 * combined parallel for reading the first's results, gives the sequential
 * results.
 */
#include <omp.h>
#include <stdio.h>

#define N 1200

int main(void)
{
    static long a[N], b[N], c[N], d[N], e[N];

#pragma omp parallel for schedule(static, 9)
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp parallel for schedule(dynamic, 9)
    for (int i = 0; i < N; i++)
        b[i] = a[N - 1 - i] * 2;
#pragma omp parallel for schedule(guided, 9)
    for (int i = 0; i < N; i++)
        c[i] = b[i] + a[i];
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i < N; i++)
        d[i] = c[(i * 7) % N] - 1;
#pragma omp parallel for schedule(nonmonotonic : dynamic, 4)
    for (int i = 0; i < N; i++)
        e[i] = d[i] * 3;
    long s = 0;
    for (int i = 0; i < N; i++)
        s += e[i] * (i % 13);
    printf("weighted sum = %ld\n", s);
    printf("e[0] = %ld e[600] = %ld e[1199] = %ld\n", e[0], e[600], e[N - 1]);
    return 0;
}
