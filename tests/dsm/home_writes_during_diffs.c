/*
 * The home writes bytes of a page while other nodes' diffs of the same
 * page are applied there: every node writes the bytes whose index modulo
 * N is its number, in pages homed at node 0; node 0 writes its bytes
 * slowly, so that the others reach the barrier first and their diffs
 * arrive at node 0 while it is still writing the other bytes of the same
 * words.  Applying a diff must not put back a byte the home has just
 * written (a plain read-modify-write of the word does, now and then).
 * After each barrier every byte holds its writer's value on every node.
 * Run with OMPDSM_HOME=cyclic, which homes some of the pages at node 0.
 */
#include "check.h"

#include <stdint.h>

enum { PAGES = 8, ROUNDS = 200 };

static uint8_t value(size_t i, int writer, int round)
{
    return (uint8_t)(i * 13 + (size_t)writer * 29 + (size_t)round * 97 + 3);
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t page = ompdsm_page_size();
    /* PAGES pages homed at node 0, out of a larger allocation. */
    uint8_t *all = ompdsm_alloc(PAGES * (size_t)n * page), *pages[PAGES];
    int k = 0;
    for (size_t p = 0; p < PAGES * (size_t)n && k < PAGES; p++)
        if (ompdsm_home_of(all + p * page) == 0)
            pages[k++] = all + p * page;
    CHECK(k == PAGES, "only %d pages homed at node 0", k);
    long lost = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int q = 0; q < PAGES; q++) {
            for (size_t i = (size_t)me; i < page; i += (size_t)n) {
                pages[q][i] = value(i, me, r);
                if (me == 0)
                    for (volatile int d = 0; d < 20; d++)
                        ;
            }
        }
        ompdsm_barrier();
        for (int q = 0; q < PAGES; q++)
            for (size_t i = 0; i < page; i++)
                lost += pages[q][i] != value(i, (int)(i % (size_t)n), r);
        CHECK(lost == 0, "round %d: %ld bytes lost", r, lost);
        ompdsm_barrier();
    }
    if (me == 0)
        printf("home_writes_during_diffs: %d nodes, %d pages, %d rounds\n", n, PAGES, ROUNDS);
    ompdsm_finalize();
    return 0;
}
