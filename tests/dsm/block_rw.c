/*
 * Block writes are visible to every node after a barrier, and a later
 * round of writes by other nodes replaces what readers had cached.
 *
 * The array is split into one block per node; in round r node n writes the
 * block of node (n + r) % N, so every round a page is written by a node that
 * other nodes have just read it from.
 */
#include "check.h"

#include <stdint.h>

enum { PAGES_PER_NODE = 37, ROUNDS = 4 };

static uint64_t value(size_t i, int round)
{
    return i * 2654435761u + (uint64_t)round * 40503u + 1;
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t per = PAGES_PER_NODE * ompdsm_page_size() / sizeof(uint64_t);
    size_t total = per * (size_t)n;
    uint64_t *a = ompdsm_alloc(total * sizeof *a);

    for (size_t i = 0; i < total; i++)
        CHECK(a[i] == 0, "fresh shared memory not zero at %zu", i);
    ompdsm_barrier();
    for (int r = 0; r < ROUNDS; r++) {
        size_t blk = (size_t)((me + r) % n);
        for (size_t i = blk * per; i < (blk + 1) * per; i++)
            a[i] = value(i, r);
        ompdsm_barrier();
        for (size_t i = 0; i < total; i++)
            CHECK(a[i] == value(i, r), "round %d: a[%zu] = %lu, expected %lu", r, i,
                  (unsigned long)a[i], (unsigned long)value(i, r));
        ompdsm_barrier();
    }
    if (me == 0)
        printf("block_rw: %d nodes, %zu words checked %d times\n", n, total, ROUNDS);
    ompdsm_finalize();
    return 0;
}
