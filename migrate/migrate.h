/*
 * migrate.h: home migration (prefix mig_), the layer above the coherence
 * layer that moves each page's home to the node that uses it most.
 *
 * Every node counts its read and write faults per page (dsm/page.c) over a
 * migrate region: the interval from one migration point to the next.  At a
 * migration point the counts go to each page's home, the home decides
 * (decide.c), the data moves and every node learns every move
 * (migrate.c).
 */
#ifndef MIGRATE_MIGRATE_H
#define MIGRATE_MIGRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The faults one node made on one page in the current region. */
struct mig_count {
    uint64_t page;
    int32_t node;
    uint32_t reads, writes;
};

/* A decision: the page's home moves from one node to another. */
struct mig_move {
    uint64_t page;
    int32_t from, to;
};

/* A page's past moves: the home it last left (+ 1, 0: none), the
 * migration point at which it arrived where it is, and how many times it
 * went back to the home it had just left. */
struct mig_past {
    uint16_t from;
    uint8_t bounces;
    uint32_t at;
};

/* Decides the new homes of pages that node `self` is home of, from the
 * counts of every node, at migration point `point`; c is left sorted by
 * page, then node.  A page stays where it is if keep(page) says so, if no
 * node wrote it in the region, or if it would go back to the home it last
 * left (past[page], which may be NULL) less than 8^bounces points after it
 * arrived; otherwise it goes to the node with the largest
 * reads + 2 x writes, the home winning ties, and ties between other nodes
 * going to the one given the fewest pages so far -- but a page the home
 * wrote goes only where that weight exceeds the home's by a margin
 * (decide.c).  Writes at most n moves to out; returns their number. */
size_t mig_decide(struct mig_count *c, size_t n, int nodes, int self, bool (*keep)(uint64_t page),
                  const struct mig_past *past, uint32_t point, struct mig_move *out);

/* The collective migration step; every node calls it at the same point.
 * In a barrier group smaller than the job (dsm_barrier_group) node 0 wakes
 * the idle nodes with why = MIG_WAKE, and they must call it too.
 * published: this node published its writes at a barrier since it last ran
 * application code (the step's first barrier then publishes nothing). */
void mig_migrate(bool published);
#define MIG_WAKE 1

/* Which counted barriers migrate depends on the counted barriers seen and
 * the requests made: node 0's state, for nodes that sat out a smaller
 * team's barriers (malloc'd; import replaces this node's). */
void *mig_state_export(size_t *len);
void mig_state_import(const void *data, size_t len);

/* A barrier that ends a parallel region or a worksharing loop (loop: the
 * loop's call site, or 0): a home migration instead when OMPDSM_MIGRATE
 * says this one is due (then it returns true). */
bool mig_counted_barrier(uintptr_t loop);

/* Called by every node of a team as a parallel region starts: at the
 * first, the counts so far (the master's set-up) are forgotten. */
void mig_team_starts(void);

/* Asks for a migration at the after-th counted barrier from now, unless
 * OMPDSM_MIGRATE is off (an earlier request wins); returns whether one
 * will take place.  With `forget`, the migrate region starts again: the
 * counts so far are forgotten (they show the pages' use before the work
 * moved).  Without, they are kept: a request for one more migration after
 * the work moved, made during a counted barrier that may itself migrate
 * on those counts.  Every node must ask at the same point (during the
 * same barrier, say): the layer above uses it when it has moved work
 * between nodes, so that the homes follow, even straight back to the node
 * a page just left (the rule against bounces does not hold there). */
bool mig_request(unsigned after, bool forget);

/* The pages every migration point so far has moved, the same count on
 * every node. */
uint64_t mig_pages_moved(void);

#endif
