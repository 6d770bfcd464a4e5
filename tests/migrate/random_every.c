/*
 * Migration at every barrier under a random access pattern stays exact and
 * never hangs.
 *
 * Slots spread over a few pages; in each round a pseudo-random generator,
 * seeded identically on every node, picks for every slot whether it is
 * written and by which node, and which nodes read it.  Readers check the
 * value of the slot's last write (slots written this round are not read).
 * Every round ends with a home migration; at the end node 0 checks every
 * slot.  Pages thus change homes back and forth all the time.
 *
 *   random_every [ROUNDS]          (default 1000)
 */
#include "../dsm/check.h"

#include <stdint.h>

enum { PAGES = 24, SLOTS_PER_PAGE = 8 };

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t value(int slot, int round)
{
    return (uint64_t)slot * 1000003u + (uint64_t)round * 7919u + 1;
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 1000;
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t ps = ompdsm_page_size(), stride = ps / SLOTS_PER_PAGE / sizeof(uint64_t);
    enum { SLOTS = PAGES * SLOTS_PER_PAGE };
    volatile uint64_t *a = ompdsm_alloc(PAGES * ps);
    int last[SLOTS];
    for (int s = 0; s < SLOTS; s++)
        last[s] = -1;
    uint64_t reads = 0;
    for (int r = 0; r < rounds; r++) {
        for (int s = 0; s < SLOTS; s++) {
            uint64_t x = next();
            int writer = (x & 3) ? (int)((x >> 8) % (uint64_t)n) : -1;
            if (writer >= 0) {
                if (me == writer)
                    a[s * stride] = value(s, r);
                last[s] = r;
            } else if ((x >> 16) % (uint64_t)n == (uint64_t)me || (x >> 24) % 3 == 0) {
                uint64_t want = last[s] < 0 ? 0 : value(s, last[s]);
                CHECK(a[s * stride] == want, "round %d slot %d: %lu, expected %lu", r, s,
                      (unsigned long)a[s * stride], (unsigned long)want);
                reads++;
            }
        }
        ompdsm_barrier_migrate_home();
    }
    if (me == 0)
        for (int s = 0; s < SLOTS; s++)
            CHECK(a[s * stride] == (last[s] < 0 ? 0 : value(s, last[s])), "slot %d wrong at the end", s);
    ompdsm_stats_t st;
    ompdsm_get_stats(&st);
    printf("random_every: node %d: %d rounds, %lu reads checked, %lu migrations, %lu pages in, %lu out\n", me,
           rounds, (unsigned long)reads, (unsigned long)st.migrations, (unsigned long)st.pages_migrated_in,
           (unsigned long)st.pages_migrated_out);
    ompdsm_finalize();
    return 0;
}
