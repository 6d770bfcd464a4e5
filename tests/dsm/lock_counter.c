/*
 * A lock-protected counter is exact: N nodes each add 1 ITER times under
 * one lock (the write notices travel with the grants, never with a
 * barrier).  A second lock guards a log of who held it, in another page,
 * checked for exactly ITER entries per node.
 */
#include "check.h"

#include <stdint.h>
#include <string.h>

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t ps = ompdsm_page_size();
    char *mem = ompdsm_alloc(2 * ps);
    volatile uint64_t *counter = (uint64_t *)mem;
    volatile uint64_t *per_node = (uint64_t *)(mem + ps);
    ompdsm_barrier();

    for (long i = 0; i < iters; i++) {
        ompdsm_lock(1);
        *counter += 1;
        ompdsm_unlock(1);
        if (i % 100 == 0) {
            ompdsm_lock(2);
            per_node[me] += 100;
            ompdsm_unlock(2);
        }
    }
    ompdsm_barrier();
    uint64_t expect = (uint64_t)n * (uint64_t)iters;
    CHECK(*counter == expect, "counter = %lu, expected %lu", (unsigned long)*counter, (unsigned long)expect);
    for (int k = 0; k < n; k++)
        CHECK(per_node[k] == (uint64_t)((iters + 99) / 100 * 100), "node %d's tally = %lu", k,
              (unsigned long)per_node[k]);
    if (me == 0)
        printf("lock_counter: %d nodes x %ld increments = %lu\n", n, iters, (unsigned long)*counter);
    ompdsm_finalize();
    return 0;
}
