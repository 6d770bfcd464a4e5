/*
 * jacobi2d_double: the classic double-precision Jacobi sweep with a
 * residual reduction.  Every update is the same floating-point expression
 * evaluated on the same inputs whatever thread computes it, so the grid
 * is bit-identical to the sequential one; the printed checksum is summed
 * sequentially after the parallel sweeps, and the max residual (a max
 * reduction, exact) is printed too.
 */
#include <omp.h>
#include <stdio.h>

#define N 160
#define SWEEPS 16

static double a[N][N], b[N][N];

int main(void)
{
    for (int i = 0; i < N; i++) {
        a[i][0] = b[i][0] = 1.0;
        a[i][N - 1] = b[i][N - 1] = (double)i / N;
    }
    double resid = 0;
    for (int s = 0; s < SWEEPS; s++) {
        resid = 0;
#pragma omp parallel
        {
#pragma omp for reduction(max : resid)
            for (int i = 1; i < N - 1; i++)
                for (int j = 1; j < N - 1; j++) {
                    b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
                    double d = b[i][j] - a[i][j];
                    d = d < 0 ? -d : d;
                    resid = resid > d ? resid : d;
                }
#pragma omp for
            for (int i = 1; i < N - 1; i++)
                for (int j = 1; j < N - 1; j++)
                    a[i][j] = b[i][j];
        }
    }
    double sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            sum += a[i][j];
    printf("checksum = %.10f\n", sum);
    printf("last residual = %.10e\n", resid);
    printf("a[80][1] = %.12f\n", a[80][1]);
    return 0;
}
