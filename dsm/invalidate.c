/*
 * invalidate.c: the acquire side of release consistency outside a barrier.
 *
 * After a lock acquisition, or on write notices pushed between barriers, a
 * node drops its cached copies of the pages that other nodes wrote, so that
 * its next access fetches the home's copy, which holds every flushed write
 * (dsm_invalidate, page_state.c, which a barrier's acquire calls
 * directly).  A copy this node wrote since its last release is published
 * first, so that none of its writes is lost; with several threads per
 * node, another thread may write a copy again meanwhile, and the flush is
 * repeated for it.  At a lock's grant the copies this node writes or reads
 * again and again among the pages the grant names are refreshed instead,
 * as at a barrier (refresh.c).
 */
#include "dsm.h"
#include "page_state.h"

/* A copy this node wrote since its last release is published first. */
static void publish_written(const uint64_t *pages, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (dsm.twin[pages[i]]) {
            dsm_release_push(false);
            return;
        }
    }
}

static void drop(const uint64_t *pages, size_t n)
{
    while (dsm_invalidate(pages, NULL, n))
        dsm_release_push(false);
}

void dsm_drop_copies(const uint64_t *pages, size_t n)
{
    publish_written(pages, n);
    drop(pages, n);
}

void dsm_acquire_copies(uint64_t *pages, size_t n)
{
    publish_written(pages, n);
    drop(pages, dsm_refresh_copies(pages, NULL, n));
}
