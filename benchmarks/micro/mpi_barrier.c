/* mpi_barrier.c: MPI_Barrier between the processes of the job, the
 * reference for omp_barrier.c's `#pragma omp barrier` on ompdsm nodes.
 *
 *   mpirun -np N mpi_barrier [ROUNDS]     rank 0 prints "barrier_us X"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 20000, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < rounds; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("barrier_us %.2f\n", (t1 - t0) / rounds * 1e6);
    MPI_Finalize();
    return 0;
}
