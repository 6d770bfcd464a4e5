/*
 * jacobi2d: a 2-D Jacobi relaxation on global arrays, 200 x 200 points,
 * 20 sweeps, swapping the roles of two grids each sweep.  Values are
 * integers and each update is (sum of 4 neighbours) / 4 rounded down in
 * integer arithmetic, so the result is exact and independent of how the
 * rows are split: the checksum and a few sample points must equal those
 * of the sequential program.
 */
#include <omp.h>
#include <stdio.h>

#define N 200
#define SWEEPS 20

static long u[N][N], v[N][N];

int main(void)
{
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            long b = (i == 0 || j == 0 || i == N - 1 || j == N - 1) ? 1000000L * (i + j) : 0;
            u[i][j] = b;
            v[i][j] = b;
        }
    for (int s = 0; s < SWEEPS; s++) {
        long (*src)[N] = (s % 2 == 0) ? u : v;
        long (*dst)[N] = (s % 2 == 0) ? v : u;
#pragma omp parallel for schedule(static)
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                dst[i][j] = (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]) / 4;
    }
    long sum = 0, wsum = 0;
#pragma omp parallel for reduction(+ : sum, wsum)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            sum += u[i][j];
            wsum += u[i][j] % 1009 * (i + 1) + j;
        }
    printf("checksum = %ld weighted = %ld\n", sum, wsum);
    printf("u[1][1] = %ld u[100][100] = %ld u[198][198] = %ld\n", u[1][1], u[100][100], u[198][198]);
    return 0;
}
