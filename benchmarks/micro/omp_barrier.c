/* omp_barrier.c: what a program pays for `#pragma omp barrier` and for an
 * empty `#pragma omp parallel for`, the two synchronisations that programs
 * with many short loops meet at every loop.  The same source runs on
 * libgomp and on ompdsm; mpi_barrier.c measures MPI_Barrier on the same
 * processes for comparison.
 *
 *   omp_barrier [ROUNDS]      prints "barrier_us X parallel_for_us Y"
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* Page-aligned: each thread writes whole pages of its own, so the loop
 * measures the region, not false sharing. */
static _Alignas(4096) volatile int sink[4096];

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20000;
    if (rounds < 1) {
        fprintf(stderr, "omp_barrier: bad round count '%s'\n", argv[1]);
        return 2;
    }
    double t0 = 0, t1 = 0;
#pragma omp parallel
    {
#pragma omp barrier
#pragma omp master
        t0 = omp_get_wtime();
        for (int i = 0; i < rounds; i++) {
#pragma omp barrier
        }
#pragma omp master
        t1 = omp_get_wtime();
    }
    int loops = rounds / 4;
    double t2 = omp_get_wtime();
    for (int r = 0; r < loops; r++) {
#pragma omp parallel for
        for (int i = 0; i < 4096; i++)
            sink[i] = r;
    }
    double t3 = omp_get_wtime();
    printf("barrier_us %.2f parallel_for_us %.2f\n", (t1 - t0) / rounds * 1e6, (t3 - t2) / loops * 1e6);
    return 0;
}
