/*
 * laplace_mpi: the hand-written MPI baseline for benchmarks/laplace/laplace.c,
 * the same Jacobi relaxation with the same sizes, arguments, initialisation
 * and output, so the DSM's numbers can be set against message passing.
 *
 *   mpicc -O2 [-DN=2048] laplace_mpi.c -o laplace_mpi
 *   mpirun -np R ./laplace_mpi [ITER]             (ITER defaults to 100)
 *
 * Decomposition: the N interior rows are split into R contiguous blocks, in
 * rank order, the first N % R ranks getting one row more.  Each rank keeps
 * its rows plus one halo row above and below.  Global rows 0 and N+1 are the
 * fixed boundary: they sit in the outer halos of the first and last rank and
 * are never overwritten, because the exchange with MPI_PROC_NULL leaves them
 * alone.  Each iteration copies uu = u, exchanges uu's halo rows with the
 * neighbours (MPI_Sendrecv), then updates u from uu, exactly as the OpenMP
 * version's two loops do.
 *
 * Output from rank 0, one line:
 *   laplace N=<N> iter=<ITER> ranks=<R> time=<s> checksum=<sum>
 * time covers the iteration loop, between two barriers.  The checksum must
 * equal the OpenMP one bit for bit, so rank 0 receives the blocks in rank
 * order and adds them element by element in row-major order: the same
 * additions in the same order as the OpenMP program's sequential sum.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1024
#endif

enum { DEFAULT_ITER = 100, W = N + 2 };

/* This rank's part of the grid: rows first..first+rows-1 of the global
 * interior, stored at local rows 1..rows; local rows 0 and rows+1 are halos. */
struct block {
    int rank, size, first, rows, up, down;
    double (*u)[W], (*uu)[W];
};

static void block_rows(int rank, int size, int *first, int *rows)
{
    int base = N / size, extra = N % size;
    *rows = base + (rank < extra);
    *first = 1 + rank * base + (rank < extra ? rank : extra);
}

static void *alloc_or_die(size_t bytes)
{
    void *ptr = malloc(bytes);
    if (ptr == NULL) {
        fprintf(stderr, "laplace_mpi: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return ptr;
}

/* Boundary 1.0, interior 0.0, in both arrays and in the halos, indexed by
 * global row so the outer halos hold the global boundary rows. */
static void init_block(struct block *b)
{
    for (int l = 0; l <= b->rows + 1; l++) {
        int i = b->first - 1 + l;
        for (int j = 0; j < W; j++) {
            int edge = i == 0 || i == N + 1 || j == 0 || j == N + 1;
            b->u[l][j] = b->uu[l][j] = edge ? 1.0 : 0.0;
        }
    }
}

static void setup(struct block *b)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b->size);
    if (b->size > N) {
        if (b->rank == 0)
            fprintf(stderr, "laplace_mpi: %d ranks for only %d rows\n", b->size, N);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    block_rows(b->rank, b->size, &b->first, &b->rows);
    b->up = b->rank > 0 ? b->rank - 1 : MPI_PROC_NULL;
    b->down = b->rank < b->size - 1 ? b->rank + 1 : MPI_PROC_NULL;
    b->u = alloc_or_die(sizeof(double[W]) * (size_t)(b->rows + 2));
    b->uu = alloc_or_die(sizeof(double[W]) * (size_t)(b->rows + 2));
    init_block(b);
}

/* Send the first and last own rows of uu to the neighbours, receive theirs
 * into the halos. */
static void exchange_halos(struct block *b)
{
    MPI_Sendrecv(b->uu[1], W, MPI_DOUBLE, b->up, 0, b->uu[b->rows + 1], W, MPI_DOUBLE, b->down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(b->uu[b->rows], W, MPI_DOUBLE, b->down, 1, b->uu[0], W, MPI_DOUBLE, b->up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void iterate(struct block *b)
{
    double (*u)[W] = b->u, (*uu)[W] = b->uu;
    for (int i = 1; i <= b->rows; i++)
        for (int j = 1; j <= N; j++)
            uu[i][j] = u[i][j];
    exchange_halos(b);
    for (int i = 1; i <= b->rows; i++)
        for (int j = 1; j <= N; j++)
            u[i][j] = (uu[i - 1][j] + uu[i + 1][j] + uu[i][j - 1] + uu[i][j + 1]) / 4.0;
}

static double add_rows(double sum, double (*rows)[W], int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 1; j <= N; j++)
            sum += rows[i][j];
    return sum;
}

/* Rank 0 adds its own rows, then each other rank's rows as they arrive in
 * rank order: global row-major order.  Other ranks return 0. */
static double checksum(struct block *b)
{
    if (b->rank != 0) {
        MPI_Send(b->u[1], b->rows * W, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        return 0.0;
    }
    double sum = add_rows(0.0, &b->u[1], b->rows);
    double (*buf)[W] = alloc_or_die(sizeof(double[W]) * (size_t)(N / b->size + 1));
    for (int r = 1; r < b->size; r++) {
        int first, rows;
        block_rows(r, b->size, &first, &rows);
        MPI_Recv(buf[0], rows * W, MPI_DOUBLE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum = add_rows(sum, buf, rows);
    }
    free(buf);
    return sum;
}

int main(int argc, char **argv)
{
    struct block b;
    MPI_Init(&argc, &argv);
    int iter = argc > 1 ? atoi(argv[1]) : DEFAULT_ITER;
    if (iter < 0) {
        fprintf(stderr, "laplace_mpi: bad iteration count '%s'\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    setup(&b);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < iter; k++)
        iterate(&b);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    double sum = checksum(&b);
    if (b.rank == 0)
        printf("laplace N=%d iter=%d ranks=%d time=%.3f checksum=%.10e\n", N, iter, b.size, t, sum);
    free(b.u);
    free(b.uu);
    MPI_Finalize();
    return 0;
}
