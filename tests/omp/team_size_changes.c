/*
 * team_size_changes: regions whose teams grow and shrink from one region
 * to the next (num_threads 2, then all, then 1, ...), each with a few
 * barriers: the nodes outside a smaller team sit it out and must find
 * their way back into the next larger one with everything the smaller
 * team wrote.
 */
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 150 };

static long cells[64];

int main(void)
{
    int all = omp_get_max_threads();
    long sum = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int team = r % 3 == 0 ? all : (r % 3 == 1 ? (all > 1 ? 2 : 1) : 1);
#pragma omp parallel num_threads(team)
        {
            int me = omp_get_thread_num();
            cells[me] += r + me;
#pragma omp barrier
#pragma omp single
            for (int t = 0; t < omp_get_num_threads(); t++)
                sum += cells[t];
#pragma omp barrier
        }
    }
    printf("%d threads at most, sum %ld\n", all, sum);
    return 0;
}
