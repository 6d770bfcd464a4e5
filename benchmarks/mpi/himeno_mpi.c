/*
 * himeno_mpi: the hand-written MPI baseline for benchmarks/himeno/himeno.c,
 * the same 19-point Jacobi solver with the same sizes, arguments,
 * initialisation and output, so the DSM's numbers can be set against message
 * passing.
 *
 *   mpicc -O2 [-DSIZE_M] himeno_mpi.c -o himeno_mpi
 *   mpirun -np R ./himeno_mpi [ITER]              (ITER defaults to 80)
 *
 * Decomposition: the computed i-planes 1..imax-2 are split into R contiguous
 * blocks in rank order, the first ranks getting one plane more.  Each rank
 * stores its planes plus one halo plane on each side, at local index l for
 * global plane first-1+l, and initialises all of them (halos included) from
 * the global index.  The outer halos of the first and last rank are the
 * boundary planes 0 and imax-1, which are never computed; the exchange with
 * MPI_PROC_NULL leaves them alone.  Each iteration exchanges p's halo planes
 * with the neighbours (MPI_Sendrecv), applies the stencil to the own planes
 * into wrk2, copies wrk2 back into p and sums the residual gosa over all
 * ranks with MPI_Allreduce.
 *
 * The stencil expression is the OpenMP version's, term for term, so p is the
 * same bit for bit; gosa is a sum in another order and differs from the
 * OpenMP gosa in its last digits.
 *
 * Output from rank 0, one line:
 *   himeno size=<S|M> iter=<n> ranks=<R> time=<s> gosa=<g> mflops=<f>
 * with 34 floating-point operations per interior point of the whole grid.
 */
#include <mpi.h>
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

enum { DEFAULT_ITER = 80, FLOP_PER_POINT = 34, PLANE = MJMAX * MKMAX };

typedef float plane_t[MJMAX][MKMAX];

static const int imax = MIMAX - 1, jmax = MJMAX - 1, kmax = MKMAX - 1;
static const float omega = 0.8f;

/* This rank's planes, local index 0..rows+1 (see the top comment). */
static plane_t *p, *a[4], *b[3], *c[3], *bnd, *wrk1, *wrk2;
static int rank, nranks, first, rows, up, down;

static plane_t *alloc_planes(void)
{
    plane_t *ptr = calloc((size_t)rows + 2, sizeof(plane_t));
    if (ptr == NULL) {
        fprintf(stderr, "himeno_mpi: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return ptr;
}

/* The coefficients and initial pressure of local point (l,j,k), global
 * plane i. */
static void init_point(int l, int i, int j, int k)
{
    for (int d = 0; d < 3; d++) {
        a[d][l][j][k] = 1.0f;
        b[d][l][j][k] = 0.0f;
        c[d][l][j][k] = 1.0f;
    }
    a[3][l][j][k] = 1.0f / 6.0f;
    p[l][j][k] = (float)(i * i) / (float)((imax - 1) * (imax - 1));
    wrk1[l][j][k] = 0.0f;
    bnd[l][j][k] = 1.0f;
}

static void setup(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int planes = imax - 2;
    if (nranks > planes) {
        if (rank == 0)
            fprintf(stderr, "himeno_mpi: %d ranks for only %d planes\n", nranks, planes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int base = planes / nranks, extra = planes % nranks;
    rows = base + (rank < extra);
    first = 1 + rank * base + (rank < extra ? rank : extra);
    up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
    p = alloc_planes();
    bnd = alloc_planes();
    wrk1 = alloc_planes();
    wrk2 = alloc_planes();
    for (int d = 0; d < 4; d++)
        a[d] = alloc_planes();
    for (int d = 0; d < 3; d++) {
        b[d] = alloc_planes();
        c[d] = alloc_planes();
    }
    for (int l = 0; l <= rows + 1; l++)
        for (int j = 0; j < jmax; j++)
            for (int k = 0; k < kmax; k++)
                init_point(l, first - 1 + l, j, k);
}

static void exchange_halos(void)
{
    MPI_Sendrecv(p[1], PLANE, MPI_FLOAT, up, 0, p[rows + 1], PLANE, MPI_FLOAT, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(p[rows], PLANE, MPI_FLOAT, down, 1, p[0], PLANE, MPI_FLOAT, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The 19-point stencil at local (i,j,k), exactly as in himeno.c: the new
 * value goes to wrk2, the squared residual is returned. */
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

/* One Jacobi iteration over the own planes; returns the global residual. */
static double iterate(void)
{
    double local = 0.0, gosa;
    exchange_halos();
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j < jmax - 1; j++)
            for (int k = 1; k < kmax - 1; k++)
                local += relax_point(i, j, k);
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j < jmax - 1; j++)
            for (int k = 1; k < kmax - 1; k++)
                p[i][j][k] = wrk2[i][j][k];
    MPI_Allreduce(&local, &gosa, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return gosa;
}

static double jacobi(int nn)
{
    double gosa = 0.0;
    for (int n = 0; n < nn; n++)
        gosa = iterate();
    return gosa;
}

static void free_all(void)
{
    free(p);
    free(bnd);
    free(wrk1);
    free(wrk2);
    for (int d = 0; d < 4; d++)
        free(a[d]);
    for (int d = 0; d < 3; d++) {
        free(b[d]);
        free(c[d]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iter = argc > 1 ? atoi(argv[1]) : DEFAULT_ITER;
    if (iter < 0) {
        fprintf(stderr, "himeno_mpi: bad iteration count '%s'\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    setup();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    double gosa = jacobi(iter);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    double flop = (double)(imax - 2) * (jmax - 2) * (kmax - 2) * FLOP_PER_POINT * iter;
    if (rank == 0)
        printf("himeno size=%s iter=%d ranks=%d time=%.3f gosa=%.10e mflops=%.1f\n", SIZE_NAME, iter,
               nranks, t, gosa, t > 0.0 ? flop / t * 1e-6 : 0.0);
    free_all();
    MPI_Finalize();
    return 0;
}
