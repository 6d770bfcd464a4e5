/*
 * himeno: the Himeno benchmark (RIKEN): Jacobi iterations of a 19-point
 * stencil for the Poisson equation on a 3-D grid, written here in OpenMP C
 * from the published algorithm.
 *
 *   gcc -fopenmp -O2 [-DSIZE_M] himeno.c -o himeno
 *   OMP_SCHEDULE=static ./himeno [ITER]           (ITER defaults to 80)
 *
 * Grid sizes are fixed at compile time, as in the static-array original:
 * size S (default, -DSIZE_S) is 65 x 65 x 129, size M (-DSIZE_M) is
 * 129 x 129 x 257; the computed grid is one smaller in each dimension
 * (imax = MIMAX - 1, ...).  Every array is a global static array, so under
 * ompdsm it lives in the shared region.  Arrays are single precision like the
 * original; the residual gosa is accumulated in double precision.
 *
 * Initialisation is the standard one: a0..a2 = 1, a3 = 1/6, b = 0, c = 1,
 * p = i^2 / (imax-1)^2, wrk1 = 0, bnd = 1.  Each iteration is one parallel
 * region: the stencil over i (schedule(runtime), reduction(+:gosa)) writing
 * wrk2, then the copy of wrk2 back into p (schedule(runtime)).  omega = 0.8.
 *
 * Output, one line:
 *   himeno size=<S|M> iter=<n> threads=<t> time=<s> gosa=<g> mflops=<f>
 * with 34 floating-point operations counted per interior point, as the
 * original does.  p itself is the same bit for bit whatever the thread count
 * (each point is computed by the same expression), but gosa is a reduction
 * whose summation order depends on the thread count and schedule, so its last
 * digits differ between runs with different thread counts: that is expected.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(SIZE_M)
#define MIMAX 129
#define MJMAX 129
#define MKMAX 257
#define SIZE_NAME "M"
#else
#define MIMAX 65
#define MJMAX 65
#define MKMAX 129
#define SIZE_NAME "S"
#endif

enum { DEFAULT_ITER = 80, FLOP_PER_POINT = 34 };

static const int imax = MIMAX - 1, jmax = MJMAX - 1, kmax = MKMAX - 1;
static const float omega = 0.8f;

static float p[MIMAX][MJMAX][MKMAX];
static float a[4][MIMAX][MJMAX][MKMAX], b[3][MIMAX][MJMAX][MKMAX], c[3][MIMAX][MJMAX][MKMAX];
static float bnd[MIMAX][MJMAX][MKMAX];
static float wrk1[MIMAX][MJMAX][MKMAX], wrk2[MIMAX][MJMAX][MKMAX];

/* The coefficients and the initial pressure of one grid point. */
static void init_point(int i, int j, int k)
{
    for (int d = 0; d < 3; d++) {
        a[d][i][j][k] = 1.0f;
        b[d][i][j][k] = 0.0f;
        c[d][i][j][k] = 1.0f;
    }
    a[3][i][j][k] = 1.0f / 6.0f;
    p[i][j][k] = (float)(i * i) / (float)((imax - 1) * (imax - 1));
    wrk1[i][j][k] = 0.0f;
    bnd[i][j][k] = 1.0f;
}

/* Work-shared like the solver, so a static schedule first-touches each
 * plane on the thread that later updates it. */
static void init_grid(void)
{
#pragma omp parallel
    {
#pragma omp for schedule(runtime)
        for (int i = 0; i < imax; i++)
            for (int j = 0; j < jmax; j++)
                for (int k = 0; k < kmax; k++)
                    init_point(i, j, k);
    }
}

/* The 19-point stencil at (i,j,k): the new value goes to wrk2, the squared
 * residual is returned. */
static inline double relax_point(int i, int j, int k)
{
    float cross_ij = p[i + 1][j + 1][k] - p[i + 1][j - 1][k] - p[i - 1][j + 1][k] + p[i - 1][j - 1][k];
    float cross_jk = p[i][j + 1][k + 1] - p[i][j - 1][k + 1] - p[i][j + 1][k - 1] + p[i][j - 1][k - 1];
    float cross_ik = p[i + 1][j][k + 1] - p[i - 1][j][k + 1] - p[i + 1][j][k - 1] + p[i - 1][j][k - 1];
    float s0 = a[0][i][j][k] * p[i + 1][j][k] + a[1][i][j][k] * p[i][j + 1][k]
             + a[2][i][j][k] * p[i][j][k + 1]
             + b[0][i][j][k] * cross_ij + b[1][i][j][k] * cross_jk + b[2][i][j][k] * cross_ik
             + c[0][i][j][k] * p[i - 1][j][k] + c[1][i][j][k] * p[i][j - 1][k]
             + c[2][i][j][k] * p[i][j][k - 1] + wrk1[i][j][k];
    float ss = (s0 * a[3][i][j][k] - p[i][j][k]) * bnd[i][j][k];
    wrk2[i][j][k] = p[i][j][k] + omega * ss;
    return (double)(ss * ss);
}

/* One Jacobi iteration over the interior; returns its residual. */
static double iterate(void)
{
    double gosa = 0.0;
#pragma omp parallel
    {
#pragma omp for schedule(runtime) reduction(+:gosa)
        for (int i = 1; i < imax - 1; i++)
            for (int j = 1; j < jmax - 1; j++)
                for (int k = 1; k < kmax - 1; k++)
                    gosa += relax_point(i, j, k);
#pragma omp for schedule(runtime)
        for (int i = 1; i < imax - 1; i++)
            for (int j = 1; j < jmax - 1; j++)
                for (int k = 1; k < kmax - 1; k++)
                    p[i][j][k] = wrk2[i][j][k];
    }
    return gosa;
}

static double jacobi(int nn)
{
    double gosa = 0.0;
    for (int n = 0; n < nn; n++)
        gosa = iterate();
    return gosa;
}

int main(int argc, char **argv)
{
    int iter = argc > 1 ? atoi(argv[1]) : DEFAULT_ITER;
    if (iter < 0) {
        fprintf(stderr, "himeno: bad iteration count '%s'\n", argv[1]);
        return 1;
    }
    init_grid();
    double t0 = omp_get_wtime();
    double gosa = jacobi(iter);
    double t = omp_get_wtime() - t0;
    double flop = (double)(imax - 2) * (jmax - 2) * (kmax - 2) * FLOP_PER_POINT * iter;
    printf("himeno size=%s iter=%d threads=%d time=%.3f gosa=%.10e mflops=%.1f\n", SIZE_NAME, iter,
           omp_get_max_threads(), t, gosa, t > 0.0 ? flop / t * 1e-6 : 0.0);
    return 0;
}
