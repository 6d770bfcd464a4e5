/* busy_team: keeps a team of nodes busy with every kind of synchronisation
 * (parallel regions, barriers, a lock, a critical section, a reduction,
 * shared pages written by all) until it is killed or SECONDS pass.  Prints
 * "running" once the team has synchronised, so that a test knows when the
 * job is under way.
 *
 *     busy_team [SECONDS]     (default 60)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static double grid[N];
static long counter;

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 60;
    double end = omp_get_wtime() + seconds;
    omp_lock_t lock;
    omp_init_lock(&lock);
    long rounds = 0;
    int done = 0;
    while (!done) {
        double sum = 0;
#pragma omp parallel reduction(+ : sum)
        {
            int me = omp_get_thread_num(), n = omp_get_num_threads();
            for (int i = me; i < N; i += n)
                grid[i] += 1.0;
#pragma omp barrier
            for (int i = 0; i < N; i += 512)
                sum += grid[i];
            omp_set_lock(&lock);
            counter++;
            omp_unset_lock(&lock);
#pragma omp critical
            counter++;
        }
        if (rounds++ == 0) {
            printf("running\n");
            fflush(stdout);
        }
        done = omp_get_wtime() > end || sum < 0;
    }
    omp_destroy_lock(&lock);
    printf("done after %ld rounds, counter %ld\n", rounds, counter);
    return 0;
}
