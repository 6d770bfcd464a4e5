/*
 * fault_threads: the fault throughput of a node's threads.  Node 0 is home
 * of an array (the master writes it before the first region); in each
 * round the threads of the last node write one word of each page of the
 * round's own block of PAGES pages, each thread a part of it.
 *
 *   fault_threads [miss|upgrade]
 *
 * miss (the default): every write of the last node is a write miss, a
 * fetch from node 0 and a twin.  upgrade: the last node's threads first
 * read their pages (fetched, read-only), and only the writes after a
 * barrier are timed: write upgrades, a twin and a protection change each,
 * no message; the read-only pages of a sweep that the node wrote lately are
 * made writable together (write-ahead), so most writes take no fault.
 * Every round has pages of its own, never held before by the last node: a
 * page written again in a later round would not fault at all with one
 * thread per node (the node's copy of a page it writes at every barrier is
 * refreshed there and stays writable), and the ratio of 2 threads to 1
 * would compare faults with none.
 * Prints the last node's writes per second over the rounds (the time from
 * the first of its threads' start to the last one's end, per round).  Run
 * with OMPDSM_MIGRATE=off (else the pages move to their writer) and, for
 * misses, OMPDSM_READAHEAD=0 (else a fault fetches the pages after it
 * too).  Under libgomp (no nodes) it measures the same loop on plain
 * memory.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int ompdsm_node(void) __attribute__((weak));
extern int ompdsm_nodes(void) __attribute__((weak));

enum { PAGE = 4096, PAGES = 4096, ROUNDS = 10 };

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "miss";
    if (strcmp(mode, "miss") && strcmp(mode, "upgrade")) {
        fprintf(stderr, "usage: fault_threads [miss|upgrade]\n");
        return 2;
    }
    int upgrade = !strcmp(mode, "upgrade");
    char *a = malloc((size_t)ROUNDS * PAGES * PAGE);
    if (!a)
        return 1;
    for (long i = 0; i < (long)ROUNDS * PAGES * PAGE; i += 64)
        a[i] = 1;
    int last = ompdsm_nodes ? ompdsm_nodes() - 1 : 0;
    double faulting = 0;
    int per_node = 0;
    long sum = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double start = 1e300, end = 0;
        char *b = a + (size_t)r * PAGES * PAGE;     /* the round's block */
#pragma omp parallel reduction(min : start) reduction(max : end) reduction(+ : sum)
        {
            int node = ompdsm_node ? ompdsm_node() : 0;
            int t = omp_get_thread_num(), n = omp_get_num_threads(), nodes = last + 1;
            int mine = n / nodes, first = last * mine;   /* the last node's threads (an even split) */
            int k = t - first;
            long lo = (long)PAGES * k / mine, hi = (long)PAGES * (k + 1) / mine;
            if (node == last && upgrade)
                for (long p = lo; p < hi; p++)
                    sum += b[p * PAGE + 100];
#pragma omp barrier
            if (node == last) {
                per_node = mine;
                start = omp_get_wtime();
                for (long p = lo; p < hi; p++)
                    b[p * PAGE + r] = (char)r;
                end = omp_get_wtime();
            }
        }
        faulting += end - start;
    }
    printf("fault_threads %s threads_per_node %d pages %d writes_per_s %.0f check %ld\n", mode, per_node, PAGES,
           (double)PAGES * ROUNDS / faulting, sum);
    free(a);
    return 0;
}
