/*
 * invalidate.c: the acquire side of release consistency.
 *
 * After a barrier or a lock acquisition a node drops its cached copies of
 * the pages that other nodes wrote, so that its next access fetches the
 * home's copy, which holds every flushed write.  The home's own copy is
 * always current and is kept; so is a copy whose only writer was this node
 * (it is byte for byte what the home has).
 *
 * Callers flush first: no page in the list may still have a twin.  Pages are
 * marked busy, protected in coalesced ranges, then settled, so that a thread
 * faulting meanwhile waits instead of racing with the protection change.
 */
#include "dsm.h"
#include "log.h"

#include <stdlib.h>

static bool must_drop(uint64_t page, int32_t writer)
{
    if (writer == dsm.node)
        return false;
    uint16_t h = dsm.home[page];
    return h != (uint16_t)(dsm.node + 1);
}

void dsm_invalidate(const uint64_t *pages, const int32_t *writers, size_t n)
{
    uint64_t *drop = malloc(n * sizeof *drop + 1);
    if (!drop)
        dsm_fatal("out of memory for invalidations");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t p = pages[i];
        if (!must_drop(p, writers ? writers[i] : -1))
            continue;
        struct dsm_stripe *s = dsm_stripe(p);
        pthread_mutex_lock(&s->mu);
        while (dsm_flag(p, PF_BUSY))
            pthread_cond_wait(&s->cv, &s->mu);
        if (dsm.state[p] != PG_INVALID) {
            if (dsm.twin[p])
                dsm_fatal("internal: invalidating page %lu with unflushed writes", (unsigned long)p);
            dsm_flag_set(p, PF_BUSY);
            drop[k++] = p;
        }
        pthread_mutex_unlock(&s->mu);
    }
    dsm_settle_claimed(drop, k, PG_INVALID);
    free(drop);
}
