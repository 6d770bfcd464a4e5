/*
 * A parallel region's data: GCC passes the region a block on the master's
 * stack (the shared variables' addresses, the values it reads), which node
 * 0 rewrites before every region.  Every other node used to fault on that
 * page and fetch it at the start of every region; node 0 now sends its
 * bytes with the region's start, and the others take them as their copy.
 *
 * Each of ROUNDS regions reads the round number from that block and every
 * thread writes it, offset by its number, into a global array; the array
 * must hold the last round's values at the end (the data came through,
 * and fresh).  Under ompdsm, each thread then reports its node's read
 * faults (ompdsm_get_stats): a node other than 0 must have taken fewer
 * than ROUNDS / 4.  libgomp has no ompdsm_get_stats (a weak reference:
 * NULL there), and the verdict is then yes; the output is libgomp's.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

/* include/ompdsm.h's, whose first field is the node's read faults; a
 * buffer larger than the structure stands for it (libgomp's build has no
 * ompdsm.h to include). */
void ompdsm_get_stats(void *out) __attribute__((weak));
int ompdsm_node(void) __attribute__((weak));

enum { ROUNDS = 400, MAX_THREADS = 64 };

static int seen[MAX_THREADS];
static long faults[MAX_THREADS];
static int node_of[MAX_THREADS];

int main(void)
{
    int nt = 1;
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num();
            if (t < MAX_THREADS)
                seen[t] = r + t;
            if (t == 0)
                nt = omp_get_num_threads();
        }
    }
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < MAX_THREADS && ompdsm_get_stats) {
            uint64_t st[64];
            ompdsm_get_stats(st);
            faults[t] = (long)st[0];
            node_of[t] = ompdsm_node();
        }
    }
    int fresh = 1;
    for (int t = 0; t < nt && t < MAX_THREADS; t++)
        fresh &= seen[t] == ROUNDS - 1 + t;
    long worst = 0;
    for (int t = 0; t < nt && t < MAX_THREADS; t++)
        if (node_of[t] != 0 && faults[t] > worst)
            worst = faults[t];
    printf("the last round's values: %s\n", fresh ? "yes" : "no");
    printf("no fetch of the region's data per region: %s\n", worst < ROUNDS / 4 ? "yes" : "no");
    if (worst >= ROUNDS / 4)
        fprintf(stderr, "region_data_pushed: a node took %ld read faults in %d regions\n", worst, ROUNDS);
    return 0;
}
