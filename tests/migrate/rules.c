/*
 * Which pages migration moves, and that their data moves with them.
 *
 * Phase 1, in a migrate region of several barriers.  On a third of the
 * pages the home writes every round and the next node only in the first
 * (not heavier than the home: the page stays); on a third the home writes
 * in the first round and the next node in every round (it outweighs the
 * home by far: the page moves to it); on a third only the next node
 * writes, every round (the page moves).  Every byte written must read
 * back.  (Not: both write every round, as heavy.  The home's writes to a
 * page unshared at a barrier take no fault until the other node fetches it
 * again, so the home's count depends on who writes first.)
 *
 * Phase 2, a new region on fresh pages: two nodes other than the home
 * each write their own byte of each page once.  Each page must stay or go
 * to one of the two writers, and each home must split its pages between
 * the writers evenly (at 2 nodes the home is itself a writer, so the pages
 * stay); both bytes must read back.
 *
 * Phase 0, a region before both: the node after the home reads each fresh
 * page and nobody writes.  Every page must stay: a copy nobody invalidates
 * is fetched once, so moving it gains nothing.
 */
#include "../dsm/check.h"

enum { PAGES = 96, ROUNDS = 4 };

static void phase1(int me, int n, size_t ps)
{
    volatile char *a = ompdsm_alloc(PAGES * ps);
    int home[PAGES];
    for (int p = 0; p < PAGES; p++)
        home[p] = ompdsm_home_of((const char *)a + p * ps);
    for (int r = 0; r < ROUNDS; r++) {
        for (int p = 0; p < PAGES; p++) {
            int other = (home[p] + 1) % n;
            if (me == home[p] && (p % 3 == 0 || (p % 3 == 2 && r == 0)))
                a[p * ps] = (char)(r + 1);
            if (me == other && n > 1 && (p % 3 != 0 || r == 0))
                a[p * ps + 8 + r] = (char)(r + 1);
        }
        ompdsm_barrier();
    }
    ompdsm_barrier_migrate_home();
    for (int p = 0; p < PAGES; p++) {
        int now = ompdsm_home_of((const char *)a + p * ps), other = (home[p] + 1) % n;
        if (p % 3 == 0 || n == 1)
            CHECK(now == home[p], "page %d, written most by its home %d, moved to %d", p, home[p], now);
        else
            CHECK(now == other, "page %d, written most by node %d, is at %d (was %d)", p, other, now, home[p]);
        CHECK(a[p * ps] == (p % 3 == 0 ? ROUNDS : p % 3 == 2), "page %d byte 0 lost in the move", p);
        for (int r = 0; r < ROUNDS; r++)
            CHECK(a[p * ps + 8 + r] == (n > 1 && (p % 3 != 0 || r == 0) ? r + 1 : 0),
                  "page %d byte %d lost in the move", p, 8 + r);
    }
    ompdsm_barrier();
}

static void phase0(int me, int n, size_t ps)
{
    volatile char *c = ompdsm_alloc(PAGES * ps);
    int home[PAGES];
    for (int p = 0; p < PAGES; p++)
        home[p] = ompdsm_home_of((const char *)c + p * ps);
    char sum = 0;
    for (int p = 0; p < PAGES; p++)
        if (me == (home[p] + 1) % n)
            sum += c[p * ps];
    CHECK(sum == 0, "fresh pages not zero");
    ompdsm_barrier_migrate_home();
    for (int p = 0; p < PAGES; p++) {
        int now = ompdsm_home_of((const char *)c + p * ps);
        CHECK(now == home[p], "page %d, only read by node %d, moved from %d to %d", p, (home[p] + 1) % n,
              home[p], now);
    }
    ompdsm_barrier();
}

static void phase2(int me, int n, size_t ps)
{
    volatile char *b = ompdsm_alloc(PAGES * ps);
    int home[PAGES];
    for (int p = 0; p < PAGES; p++)
        home[p] = ompdsm_home_of((const char *)b + p * ps);
    for (int p = 0; p < PAGES; p++) {
        if (me == (home[p] + 1) % n)
            b[p * ps + 1] = 1;
        if (me == (home[p] + 2) % n)
            b[p * ps + 2] = 2;
    }
    ompdsm_barrier_migrate_home();
    int to_a[64] = { 0 }, to_b[64] = { 0 };
    for (int p = 0; p < PAGES; p++) {
        int h = home[p], ra = (h + 1) % n, rb = (h + 2) % n;
        int now = ompdsm_home_of((const char *)b + p * ps);
        CHECK(now == h || now == ra || now == rb, "page %d written by %d and %d moved to %d", p, ra, rb, now);
        if (ra == h || rb == h)
            CHECK(now == h, "page %d written by its home %d and node %d moved to %d", p, h, ra, now);
        CHECK(b[p * ps + 1] == 1 && b[p * ps + 2] == 2,
              "page %d: a written byte was lost in the move", p);
        to_a[h] += now == ra && ra != h;
        to_b[h] += now == rb && rb != h;
    }
    for (int h = 0; h < n && h < 64; h++)
        CHECK(abs(to_a[h] - to_b[h]) <= 1, "home %d gave %d pages to node %d and %d to node %d", h,
              to_a[h], (h + 1) % n, to_b[h], (h + 2) % n);
    ompdsm_barrier();
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t ps = ompdsm_page_size();
    /* Phases 0 and 2 first: their regions must hold nothing but their own
     * accesses (the checks of phase 1 read every page, and would count as
     * well). */
    phase0(me, n, ps);
    phase2(me, n, ps);
    phase1(me, n, ps);
    ompdsm_stats_t st;
    ompdsm_get_stats(&st);
    if (me == 0)
        printf("migrate rules: %d nodes, %d pages per phase, node 0 took %lu pages and gave %lu\n", n, PAGES,
               (unsigned long)st.pages_migrated_in, (unsigned long)st.pages_migrated_out);
    ompdsm_finalize();
    return 0;
}
