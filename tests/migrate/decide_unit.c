/*
 * The migration policy (migrate/decide.c) on hand-made counts: the heaviest
 * node (reads + 2 x writes) becomes home; a page the home wrote moves only
 * to a node that outweighs the home by the margin (1.4 times its weight); a
 * page nobody wrote, that keep() protects, or that would go back to the home
 * it last left too soon, stays; the home wins ties; ties among other nodes
 * are spread evenly; the counts are left sorted by page, then node.
 */
#include "../../migrate/migrate.h"

#include <stdio.h>
#include <stdlib.h>

static int failures;

#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "FAIL decide_unit: ");         \
            fprintf(stderr, __VA_ARGS__);                  \
            fputc('\n', stderr);                           \
            failures++;                                    \
        }                                                  \
    } while (0)

static bool keep_none(uint64_t page)
{
    (void)page;
    return false;
}

static bool keep_page_7(uint64_t page)
{
    return page == 7;
}

/* Runs the decision of home `self` and returns where page p went (-1: stayed). */
static int dest(const struct mig_move *m, size_t n, uint64_t p)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].page == p)
            return m[i].to;
    return -1;
}

static void weights(void)
{
    struct mig_count c[] = {
        { 1, 1, 3, 0 }, { 1, 2, 0, 2 },            /* page 1: node 1 weighs 3, node 2 weighs 4 */
        { 2, 1, 5, 0 }, { 2, 0, 4, 0 },            /* page 2: read only: stays */
        { 3, 1, 4, 0 }, { 3, 0, 2, 1 },            /* page 3: the home wrote it, a tie: stays */
        { 8, 1, 5, 0 }, { 8, 2, 0, 2 },            /* page 8: node 1 (5) beats the writer (4) */
        { 9, 1, 2, 1 }, { 9, 0, 4, 0 },            /* page 9: tie with the home: stays */
        { 4, 0, 0, 1 }, { 4, 1, 100, 100 },        /* page 4: node 1 far outweighs the writing home */
        { 10, 0, 4, 3 }, { 10, 1, 13, 0 },         /* page 10: 13 against the writing home's 10: stays */
        { 11, 0, 4, 3 }, { 11, 1, 15, 0 },         /* page 11: 15 against 10, past the margin */
        { 5, 0, 9, 0 },                            /* page 5: only the home: stays */
        { 6, 2, 1, 0 }, { 6, 2, 1, 1 },            /* page 6: two entries of node 2 add up */
        { 7, 1, 50, 0 },                           /* page 7: protected by keep() */
    };
    size_t n = sizeof c / sizeof *c;
    struct mig_move m[16];
    size_t k = mig_decide(c, n, 3, 0, keep_page_7, NULL, 0, m);
    EXPECT(dest(m, k, 1) == 2, "page 1 should go to node 2, went to %d", dest(m, k, 1));
    EXPECT(dest(m, k, 2) == -1, "page 2 (read only) moved to %d", dest(m, k, 2));
    EXPECT(dest(m, k, 3) == -1, "page 3 (written by its home) moved to %d", dest(m, k, 3));
    EXPECT(dest(m, k, 8) == 1, "page 8 should go to node 1, went to %d", dest(m, k, 8));
    EXPECT(dest(m, k, 9) == -1, "page 9 (tie with the home) moved to %d", dest(m, k, 9));
    EXPECT(dest(m, k, 4) == 1, "page 4 should go to node 1, went to %d", dest(m, k, 4));
    EXPECT(dest(m, k, 10) == -1, "page 10 (within the home's margin) moved to %d", dest(m, k, 10));
    EXPECT(dest(m, k, 11) == 1, "page 11 should go to node 1, went to %d", dest(m, k, 11));
    EXPECT(dest(m, k, 5) == -1, "page 5 (home only) moved to %d", dest(m, k, 5));
    EXPECT(dest(m, k, 6) == 2, "page 6 should go to node 2, went to %d", dest(m, k, 6));
    EXPECT(dest(m, k, 7) == -1, "page 7 (kept) moved to %d", dest(m, k, 7));
    EXPECT(k == 5, "expected 5 moves, got %zu", k);
    for (size_t i = 0; i < k; i++)
        EXPECT(m[i].from == 0, "move of page %lu does not come from the home", (unsigned long)m[i].page);
    for (size_t i = 1; i < n; i++)   /* the order the caller relies on */
        EXPECT(c[i - 1].page < c[i].page || (c[i - 1].page == c[i].page && c[i - 1].node <= c[i].node),
               "counts not left sorted by page and node at %zu", i);
}

/* 100 pages written equally by nodes 1 and 2 (home 0): split 50/50. */
static void balance(void)
{
    enum { PAGES = 100 };
    struct mig_count c[2 * PAGES];
    for (int p = 0; p < PAGES; p++) {
        c[2 * p] = (struct mig_count){ (uint64_t)p, 1, 1, 1 };
        c[2 * p + 1] = (struct mig_count){ (uint64_t)p, 2, 1, 1 };
    }
    struct mig_move m[2 * PAGES];
    size_t k = mig_decide(c, 2 * PAGES, 3, 0, keep_none, NULL, 0, m);
    int to1 = 0, to2 = 0;
    for (size_t i = 0; i < k; i++) {
        to1 += m[i].to == 1;
        to2 += m[i].to == 2;
    }
    EXPECT(k == PAGES, "every evenly shared page should move, %zu did", k);
    EXPECT(abs(to1 - to2) <= 1, "evenly shared pages split %d / %d", to1, to2);
}

/* Pages written by node 1 alone (home 0), decided at point 12.  Page 1
 * left node 1 for node 0 at point 11, having bounced once before: it must
 * stay 8 points, and stays.  Page 4 left node 1 at point 11 too, for the
 * first time: it may go back at once.  Page 5 left node 1 at point 3,
 * having bounced once: 8 points are up, it goes back (and page 2, which
 * never moved, and page 3, which came from node 2, go to node 1). */
static void bounce(void)
{
    struct mig_count c[] = { { 1, 1, 0, 3 }, { 2, 1, 0, 3 }, { 3, 1, 0, 3 }, { 4, 1, 0, 3 }, { 5, 1, 0, 3 } };
    struct mig_past past[6] = { [1] = { 2, 1, 11 }, [3] = { 3, 0, 11 }, [4] = { 2, 0, 11 }, [5] = { 2, 1, 3 } };
    struct mig_move m[6];
    size_t k = mig_decide(c, 5, 3, 0, keep_none, past, 12, m);
    EXPECT(dest(m, k, 1) == -1, "page 1 bounced back to node %d one point after it left", dest(m, k, 1));
    EXPECT(dest(m, k, 2) == 1, "page 2 should go to node 1, went to %d", dest(m, k, 2));
    EXPECT(dest(m, k, 3) == 1, "page 3 (came from node 2) should go to node 1, went to %d", dest(m, k, 3));
    EXPECT(dest(m, k, 4) == 1, "page 4 (its first bounce) should go back to node 1, went to %d", dest(m, k, 4));
    EXPECT(dest(m, k, 5) == 1, "page 5 (stayed 9 points) should go back to node 1, went to %d", dest(m, k, 5));
}

int main(void)
{
    weights();
    balance();
    bounce();
    if (!failures)
        printf("decide_unit: all checks passed\n");
    return failures != 0;
}
