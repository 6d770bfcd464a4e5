/* env: OMPDSM_HOST_BOX=4K OMP_SCHEDULE=static */
/*
 * barrier_small_boxes: with barrier boxes of 4 KiB in the host segment, a
 * thread that wrote more than about 500 pages since the last barrier must
 * send its arrival by message, and a release of more notices than the
 * release box holds goes by message too.  Threads write few or many pages
 * in turn, so that one barrier gathers arrivals of both kinds, and every
 * thread then reads what every other wrote.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { PAGE_LONGS = 512, PAGES_PER_THREAD = 1200, ROUNDS = 12 };

int main(void)
{
    int threads = omp_get_max_threads();
    long *grid = calloc((size_t)threads * PAGES_PER_THREAD * PAGE_LONGS, sizeof *grid);
    if (!grid)
        return 1;
    long errors = 0, checksum = 0;
#pragma omp parallel reduction(+ : errors, checksum)
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        for (int r = 0; r < ROUNDS; r++) {
            /* many pages on odd rounds for even threads, and the other way */
            int pages = (r + me) % 2 ? PAGES_PER_THREAD : 3;
            long *mine = grid + (size_t)me * PAGES_PER_THREAD * PAGE_LONGS;
            for (int p = 0; p < pages; p++)
                mine[(size_t)p * PAGE_LONGS + r % PAGE_LONGS] = r * 1000 + me;
#pragma omp barrier
            for (int t = 0; t < team; t++) {
                int theirs = (r + t) % 2 ? PAGES_PER_THREAD : 3;
                const long *row = grid + (size_t)t * PAGES_PER_THREAD * PAGE_LONGS;
                for (int p = 0; p < theirs; p++) {
                    long v = row[(size_t)p * PAGE_LONGS + r % PAGE_LONGS];
                    errors += v != r * 1000 + t;
                    checksum += v;
                }
            }
#pragma omp barrier
        }
    }
    printf("%d threads, %ld stale words, checksum %ld\n", threads, errors, checksum);
    free(grid);
    return errors != 0;
}
