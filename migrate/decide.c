/*
 * decide.c: the migration policy, a pure function of the fault counts.
 *
 * A page's weight at a node is reads + 2 x writes (a write fault costs a
 * fetch, a twin and a diff; a read fault only a fetch).  The page moves to
 * the heaviest node.  Ties go to the current home (a move gains nothing),
 * and among other nodes to the one this home has given the fewest pages so
 * far, which keeps the homes balanced when nodes share pages evenly.
 *
 * A page its home wrote in the region moves only when another node's
 * weight exceeds the home's by the margin HOME_MARGIN: the home's writes
 * become remote diffs after the move, so a near tie gains nothing, and
 * two nodes that write a page about equally would otherwise pass it back
 * and forth.  (A strict "the home wrote it, it stays" kept NAS IS's
 * histogram pages at the node that zeroes them, not at the one that adds
 * into them at every ranking; it also delayed FT's transposed planes.
 * Without a margin, the readers of a CG vector page outweigh its writing
 * home and take it, which then diffs its writes to them.)
 *
 * A page that no node wrote in the region stays too.  Its readers fetched
 * it once and keep their copies until somebody writes it, so a move saves
 * nothing; and the home's own reads are no faults, so counts of reads alone
 * would send a page to any node that read it once -- the neighbour that
 * reads a boundary row, or the master that sums the result -- away from
 * the node that uses it every step, and back at the next migration.
 *
 * Nor does a page move straight back to the home it last left (a
 * bounce): two nodes that write it in turn, as the two halves of a
 * transpose do, would otherwise send it to and fro at every migration,
 * each move costing a copy of the page on top of the remote writes it was
 * meant to save.  It may go back once it has stayed 8^b migration points
 * where it is, b being the times it went back before: a page written in
 * turn settles after a few bounces, each eight times as far apart as the
 * one before.  Work moved on purpose (a profiled schedule returning rows to
 * a node) takes its pages along at once: the migration it asks for decides
 * without the past moves (past NULL, migrate.c).
 */
#include "migrate.h"

#include "../util/xalloc.h"

#include <stdlib.h>

/* How many times the home's own weight another node must exceed to take a
 * page the home wrote in the region (measured on the suite: 1 moves CG's
 * vectors to their readers, 2 keeps FT's planes too long; 1.4 served all). */
#define HOME_MARGIN 1.4

static int cmp_count(const void *a, const void *b)
{
    const struct mig_count *x = a, *y = b;
    if (x->page != y->page)
        return (x->page > y->page) - (x->page < y->page);
    return (x->node > y->node) - (x->node < y->node);
}

/* The node a page may not go to now: the home it last left, until it has
 * stayed 8^bounces points; -1 for none. */
static int barred(const struct mig_past *past, uint64_t page, uint32_t point)
{
    if (!past || !past[page].from)
        return -1;
    unsigned b = past[page].bounces < 10 ? 3 * past[page].bounces : 30;
    return point - past[page].at >= (1u << b) ? -1 : past[page].from - 1;
}

/* The decision for one page, whose counts are c[0..n): the new home, or -1
 * to stay.  w is scratch space for one weight per node. */
static int choose(const struct mig_count *c, size_t n, int nodes, int self, uint64_t *w,
                  const uint64_t *given, int not_to)
{
    for (int k = 0; k < nodes; k++)
        w[k] = 0;
    bool written = false, home_wrote = false;
    for (size_t i = 0; i < n; i++) {
        home_wrote |= c[i].node == self && c[i].writes;
        written |= c[i].writes != 0;
        w[c[i].node] += c[i].reads + 2 * (uint64_t)c[i].writes;
    }
    if (!written)
        return -1;
    int to = self;
    for (int k = 0; k < nodes; k++)
        if (w[k] > w[to] || (w[k] == w[to] && to != self && given[k] < given[to]))
            to = k;
    if (home_wrote && (double)w[to] <= HOME_MARGIN * (double)w[self])
        return -1;
    return to == self || to == not_to ? -1 : to;
}

size_t mig_decide(struct mig_count *c, size_t n, int nodes, int self, bool (*keep)(uint64_t page),
                  const struct mig_past *past, uint32_t point, struct mig_move *out)
{
    if (n > 1)   /* c may be NULL when there is no count, and qsort's must not be */
        qsort(c, n, sizeof *c, cmp_count);
    uint64_t *given = xcalloc((size_t)nodes, sizeof *given), *w = xcalloc((size_t)nodes, sizeof *w);
    size_t moves = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && c[j].page == c[i].page)
            j++;
        int to = keep(c[i].page) ? -1 : choose(c + i, j - i, nodes, self, w, given, barred(past, c[i].page, point));
        if (to >= 0) {
            out[moves++] = (struct mig_move){ .page = c[i].page, .from = self, .to = to };
            given[to]++;
        }
        i = j;
    }
    free(given);
    free(w);
    return moves;
}
