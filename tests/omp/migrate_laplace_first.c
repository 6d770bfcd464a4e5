/* env: OMP_SCHEDULE=static OMPDSM_MIGRATE=first OMPDSM_HOME=cyclic */
/*
 * migrate_laplace_first: the Laplace sweep on global arrays, whose pages
 * (homed cyclically) migrate at the first barrier that ends a loop to the
 * node that initialised them.  Copy and update are schedule(runtime) loops
 * in one region per iteration, as in the benchmark.  The grid must come out
 * bit-identical to libgomp's.
 */
#include <omp.h>
#include <stdio.h>

#define N 300
#define ITER 25

static double u[N + 2][N + 2], uu[N + 2][N + 2];

int main(void)
{
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i <= N + 1; i++)
        for (int j = 0; j <= N + 1; j++)
            u[i][j] = uu[i][j] = (i == 0 || j == 0) ? 1.0 : (i == N + 1 || j == N + 1) ? 0.5 : 0.0;
    for (int it = 0; it < ITER; it++) {
#pragma omp parallel
        {
#pragma omp for schedule(runtime)
            for (int i = 1; i <= N; i++)
                for (int j = 1; j <= N; j++)
                    uu[i][j] = u[i][j];
#pragma omp for schedule(runtime)
            for (int i = 1; i <= N; i++)
                for (int j = 1; j <= N; j++)
                    u[i][j] = 0.25 * (uu[i - 1][j] + uu[i + 1][j] + uu[i][j - 1] + uu[i][j + 1]);
        }
    }
    double sum = 0;
    for (int i = 1; i <= N; i++)
        for (int j = 1; j <= N; j++)
            sum += u[i][j] * (double)(i + 2 * j);
    printf("checksum %.15e\n", sum);
    printf("centre %.15e corner %.15e\n", u[N / 2][N / 2], u[1][1]);
    return 0;
}
