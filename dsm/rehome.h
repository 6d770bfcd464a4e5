/*
 * rehome.h: what home migration (migrate/) takes from the page-state
 * module (page_state.c) beyond dsm.h: the rehome transition, through which
 * it moves homes instead of writing the coherence tables, whether a page
 * at its home is shared, and the write-protection of the home's own pages
 * whose writes it must count.  Of the layers above, migrate/ alone
 * includes it (tests/unit/layers.sh); page_state.h includes it for the
 * files of dsm/.
 */
#ifndef DSM_REHOME_H
#define DSM_REHOME_H

#include "dsm.h"

/* At the home: whether another node may hold a copy of the page. */
bool dsm_shared(uint64_t page);

/* A migration's moves, applied at every node: dsm_rehome_begin() before
 * the new homes fetch their pages (no copy is dropped on a notice's
 * arrival from then on), dsm_rehome() for each (the new home has the data
 * already), then dsm_rehome_end(). */
struct dsm_rehoming {
    struct dsm_plist in, out;
};
void dsm_rehome_begin(void);
void dsm_rehome(struct dsm_rehoming *r, uint64_t page, int to);
void dsm_rehome_end(struct dsm_rehoming *r);

/* Home pages of the sorted list that are watched as unshared: out of the
 * watch and read-only (unwatch, claim, home-protect), so that the home's
 * next write of each is a fault again, which migration counts.  No stripe
 * lock held; at a migration point. */
void dsm_home_reprotect(const struct dsm_plist *sorted);

#endif
