/*
 * diff_out.h: the diffs of one release on their way to the homes
 * (diff_out.c).  One release at a time (flush.c's release_mu).
 */
#ifndef DSM_DIFF_OUT_H
#define DSM_DIFF_OUT_H

#include <stdbool.h>
#include <stdint.h>

/* Starts a release's diffs: waits until the sends the last one posted are
 * out, and gives their buffers back to the transport's pool.  posted: a
 * barrier's release on one host, whose diffs are counted in the host
 * segment, which the homes count off as they apply them; the barrier waits
 * for that (dsm_wait_applied).  Otherwise every home answers. */
void dsm_diff_out_begin(bool posted);

/* Appends the diff of the page against its twin to its home's diffs; says
 * whether it is not empty. */
bool dsm_diff_out_add(uint64_t page, const void *twin);

/* Sends the chunks that are full, if any.  Not under a page's stripe lock:
 * message handlers take stripe locks under the transport lock. */
void dsm_diff_out_ship(void);

/* Sends what is left (not under a stripe lock either); unless posted,
 * waits until every home has applied all of this release's diffs. */
void dsm_diff_out_end(void);

#endif
