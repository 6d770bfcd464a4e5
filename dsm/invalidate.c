/*
 * invalidate.c: the acquire side of release consistency.
 *
 * After a barrier or a lock acquisition a node drops its cached copies of
 * the pages that other nodes wrote, so that its next access fetches the
 * home's copy, which holds every flushed write.  The home's own copy is
 * always current and is kept; so is a copy whose only writer was this node
 * (it is byte for byte what the home has).
 *
 * Callers flush first: no page in the list may still have a twin, but a hot
 * page's (flush.c), which then equals its contents.  Pages are
 * marked busy, protected in coalesced ranges, then settled, so that a thread
 * faulting meanwhile waits instead of racing with the protection change.
 */
#include "dsm.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

static bool must_drop(uint64_t page, int32_t writer)
{
    if (writer == dsm.node)
        return false;
    uint16_t h = dsm.home[page];
    return h != (uint16_t)(dsm.node + 1);
}

/* Under the stripe lock: a copy to drop is one still held. */
static bool droppable(size_t i, uint64_t page, const void *arg)
{
    const int32_t *writers = arg;
    if (!must_drop(page, writers ? writers[i] : -1) || dsm.state[page] == PG_INVALID)
        return false;
    if (dsm.twin[page]) {
        if (!dsm_flag(page, PF_HOT) || memcmp(dsm.twin[page], dsm_rt(page), dsm.page_size))
            dsm_fatal("internal: invalidating page %lu with unflushed writes", (unsigned long)page);
        free(dsm.twin[page]);
        dsm.twin[page] = NULL;
        dsm_flag_clear(page, PF_HOT);
    }
    return true;
}

void dsm_invalidate(const uint64_t *pages, const int32_t *writers, size_t n)
{
    size_t k;
    uint64_t *drop = dsm_claim(pages, n, droppable, writers, &k);
    dsm_settle_claimed(drop, k, PG_INVALID);
    free(drop);
}

void dsm_drop_copies(const uint64_t *pages, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (dsm.twin[pages[i]]) {
            dsm_release_push(false);
            break;
        }
    }
    dsm_invalidate(pages, NULL, n);
}
