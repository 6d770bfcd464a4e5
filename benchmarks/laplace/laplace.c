/*
 * laplace: the Jacobi relaxation of Laplace's equation on an N x N grid, the
 * kernel the Omni/SCASH papers use to measure OpenMP on a software DSM.
 *
 *   gcc -fopenmp -O2 [-DN=2048] laplace.c -o laplace
 *   OMP_SCHEDULE=static ./laplace [ITER]          (ITER defaults to 100)
 *
 * The grid and its copy are global static arrays, so under ompdsm they live
 * in the shared region like any other data of an unmodified program.  The
 * boundary is held at 1.0 and the interior starts at 0.0.  Every iteration is
 * one parallel region with two work-shared loops, both schedule(runtime) so
 * OMP_SCHEDULE decides the distribution: a copy uu = u, then the 5-point
 * update of u from uu.  The initialisation is work-shared the same way, so
 * under a static schedule each thread first touches the rows it later updates.
 *
 * Output, one line:
 *   laplace N=<N> iter=<ITER> threads=<t> time=<s> checksum=<sum>
 * time covers the iteration loop only.  checksum is the sum of the interior
 * of u taken sequentially, row by row, after the loop.  Every element is
 * computed by the same expression whatever the thread count or schedule, so
 * the checksum is identical bit for bit across runs; the MPI version
 * (benchmarks/mpi/laplace_mpi.c) sums in the same order and prints the same
 * value.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1024
#endif

enum { DEFAULT_ITER = 100 };

static double u[N + 2][N + 2], uu[N + 2][N + 2];

static int is_boundary(int i, int j)
{
    return i == 0 || i == N + 1 || j == 0 || j == N + 1;
}

/* Boundary 1.0, interior 0.0, in both arrays: the update reads uu's
 * boundary, which the interior-only copy loop never writes. */
static void init_grid(void)
{
#pragma omp parallel
    {
#pragma omp for schedule(runtime)
        for (int i = 0; i <= N + 1; i++) {
            for (int j = 0; j <= N + 1; j++) {
                double v = is_boundary(i, j) ? 1.0 : 0.0;
                u[i][j] = v;
                uu[i][j] = v;
            }
        }
    }
}

/* One Jacobi sweep: copy, then update, in a single parallel region.  The
 * implicit barrier after the copy loop makes every row of uu visible before
 * any thread reads its neighbours' rows. */
static void iterate(void)
{
#pragma omp parallel
    {
#pragma omp for schedule(runtime)
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++)
                uu[i][j] = u[i][j];
#pragma omp for schedule(runtime)
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++)
                u[i][j] = (uu[i - 1][j] + uu[i + 1][j] + uu[i][j - 1] + uu[i][j + 1]) / 4.0;
    }
}

/* Sequential, row-major: the fixed order the MPI version reproduces. */
static double checksum(void)
{
    double sum = 0.0;
    for (int i = 1; i <= N; i++)
        for (int j = 1; j <= N; j++)
            sum += u[i][j];
    return sum;
}

int main(int argc, char **argv)
{
    int iter = argc > 1 ? atoi(argv[1]) : DEFAULT_ITER;
    if (iter < 0) {
        fprintf(stderr, "laplace: bad iteration count '%s'\n", argv[1]);
        return 1;
    }
    init_grid();
    double t0 = omp_get_wtime();
    for (int k = 0; k < iter; k++)
        iterate();
    double t1 = omp_get_wtime();
    printf("laplace N=%d iter=%d threads=%d time=%.3f checksum=%.10e\n", N, iter,
           omp_get_max_threads(), t1 - t0, checksum());
    return 0;
}
