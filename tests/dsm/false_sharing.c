/*
 * Several writers of one page merge at the home: every node writes the bytes
 * whose index modulo N is its number, in the same pages, at the same time;
 * after the barrier every byte holds its writer's value on every node.
 */
#include "check.h"

#include <stdint.h>

enum { PAGES = 16, ROUNDS = 3 };

static uint8_t value(size_t i, int writer, int round)
{
    return (uint8_t)(i * 7 + (size_t)writer * 31 + (size_t)round * 101 + 1);
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t size = PAGES * ompdsm_page_size();
    uint8_t *b = ompdsm_alloc(size);

    for (int r = 0; r < ROUNDS; r++) {
        for (size_t i = (size_t)me; i < size; i += (size_t)n)
            b[i] = value(i, me, r);
        ompdsm_barrier();
        for (size_t i = 0; i < size; i++) {
            int w = (int)(i % (size_t)n);
            CHECK(b[i] == value(i, w, r), "round %d: byte %zu = %u, expected %u (written by node %d)", r, i,
                  b[i], value(i, w, r), w);
        }
        ompdsm_barrier();
    }
    if (me == 0)
        printf("false_sharing: %d nodes, %zu bytes in %d pages, %d rounds\n", n, size, PAGES, ROUNDS);
    ompdsm_finalize();
    return 0;
}
