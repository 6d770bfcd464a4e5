/*
 * refresh.c: copies refreshed at an acquire instead of dropped.
 *
 * The page that a loop's block boundary splits (the middle page of a
 * vector a `parallel for` writes, at 2 nodes) is written by two nodes in
 * every interval.  At the node that is not its home it is hot (flush.c):
 * writable, with a twin.  The barrier that announces the other node's
 * writes would drop it, and the node's next access would take a read
 * fault and a fetch, its write a second fault, a new twin and a protection
 * change; the home, which unshared the page at that barrier, would take a
 * fault of its own once the copy is fetched again.  On this machine's VMs
 * a fault costs about 20 us and a protection change 7, the work of a whole
 * short loop: NAS CG at 2 nodes took three faults per such page and step.
 *
 * Instead the copy is refreshed where it is: the home's bytes are fetched
 * into the page and its twin, for all such pages of the barrier in one
 * batch (one-sided gets; a memcpy from the home's view for nodes of this
 * host), and the page stays writable and hot.  The home learns of the copy
 * as from any fetch: the pages not registered (the home announced its own
 * write, so it unshared them) register first, in the same batch.  A page
 * that stops being written cools as any hot page does (flush.c).
 *
 * Read-only copies.  A page another node writes at every step and this
 * node reads after each (a vector a sparse matrix multiplies, a
 * neighbour's rows of a grid) is dropped at every barrier and fetched
 * again at the next read: a protection change of the page (about 4 us per
 * page here), a fault and a fetch.  A copy this node fetched again soon
 * after a barrier dropped it (within REFETCH_WITHIN barriers) is therefore
 * refreshed in place instead, through the runtime view, with no
 * protection change, at the next barriers that announce writes to it: one
 * at first, then twice as many each time the copy is fetched again soon
 * after the last of them dropped it, up to READ_REFRESHES_MAX.  A copy read
 * at every step so takes a fault once in 17 steps; one that is no longer
 * read costs the few fetches of its last run; one read again only much
 * later (a level of a multigrid cycle, whose pages other loops write in
 * between) is not refreshed at all, which would cost more than its fault.
 *
 * Hot copies the node leaves alone for a while.  A copy this node writes
 * in one loop and another node in the next few (NAS FT: a quarter of each
 * array written by one node in the z pass and by the other in the y and x
 * passes and in the evolution) is refreshed at every barrier in between,
 * three times for the one time it is read: 96 MB fetched per step at each
 * node (and copied into twins), 20-25 ms of each of those barriers.  So
 * each hot copy counts the barriers that refreshed it since this node last
 * wrote it (a stretch);
 * one whose last stretch had two or more is dropped at the first barrier
 * of the next that announces another node's write, instead of refreshed,
 * and fetched once when it is read again.  Only where a barrier drops at
 * least DROP_MIN such copies: those are read again in long runs (fault.c
 * reads ahead, down a column too), a fault for many pages; a few scattered
 * ones (an ADI sweep's boundary pages) would each cost a fault (about 20
 * us here), many times a refresh's copy: dropped at every barrier, they
 * made ADI 64^3 27 % slower.
 *
 * Only with one application thread per node.  At a barrier every thread
 * of the node is then in the barrier, so none writes the page while its
 * bytes arrive, and the twin, refreshed by the release just before, equals
 * the contents: no write of this node is lost.  A lock's grant refreshes
 * the pages its earlier holders wrote the same way (dsm_acquire_copies,
 * invalidate.c), for the same reasons: the node's only thread is the one
 * acquiring, and it published its writes to those pages first; their
 * diffs were at the homes before the lock was let go (notice.c says why
 * the other notices queued are dropped).  A critical section that every node enters in
 * turn (an array reduction, which GCC merges under GOMP_atomic_start) so
 * updates the copies the last holder wrote instead of faulting them in.
 */
#include "dsm.h"
#include "page_state.h"
#include "stats.h"
#include "../net/net.h"
#include "../util/xalloc.h"

#include <stdlib.h>

enum { READ_REFRESHES_MAX = 16, REFETCH_WITHIN = 8, STRETCH_DROP = 2, DROP_MIN = 1024 };

/* A hot copy's barriers since this node last wrote it, saturating below
 * DROPPED, which marks a copy dropped by the rule above (its last stretch
 * is then kept); the last stretch's count; the barrier (epoch + 1) at
 * whose release this node last wrote it. */
enum { DROPPED = UINT8_MAX };
static uint8_t *since_write, *last_stretch;
static uint32_t *written_at;

/* Per page: how many more barriers refresh its read-only copy, how many
 * its last run had, and the barrier that last dropped it (its epoch + 1).
 * Written by the thread that fetches the page or the barrier's, which own
 * it (BUSY) meanwhile. */
static uint8_t *left, *run;
static uint32_t *dropped;

void dsm_refresh_init(void)
{
    left = dsm_page_table(sizeof *left);
    run = dsm_page_table(sizeof *run);
    dropped = dsm_page_table(sizeof *dropped);
    since_write = dsm_page_table(sizeof *since_write);
    last_stretch = dsm_page_table(sizeof *last_stretch);
    written_at = dsm_page_table(sizeof *written_at);
}

void dsm_refresh_hot_written(uint64_t page)
{
    if (since_write[page] != DROPPED)
        last_stretch[page] = since_write[page];
    since_write[page] = 0;
    written_at[page] = (uint32_t)dsm.epoch + 1;
}

/* A hot copy that the rule above drops, if this barrier drops enough. */
static bool idle_hot(uint64_t page)
{
    return last_stretch[page] >= STRETCH_DROP && since_write[page] != DROPPED
        && written_at[page] != (uint32_t)dsm.epoch + 1;
}

/* Set for one dsm_refresh_copies() call at a barrier: its idle hot copies
 * are dropped. */
static bool drop_idle;

static size_t count_idle_hot(const uint64_t *pages, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += dsm.state[pages[i]] == PG_RW && dsm_flag(pages[i], PF_HOT) && idle_hot(pages[i]);
    return k;
}

void dsm_refresh_fetched(uint64_t page)
{
    uint32_t at = dropped[page];
    if (!at || (uint32_t)dsm.epoch + 1 - at > REFETCH_WITHIN) {
        run[page] = 0;
        return;
    }
    run[page] = run[page] ? (2 * run[page] < READ_REFRESHES_MAX ? 2 * run[page] : READ_REFRESHES_MAX) : 1;
    left[page] = run[page];
}

/* For dsm_claim, under the stripe lock: a hot copy, or a read-only one
 * still armed. */
static bool wanted(size_t i, uint64_t page, const void *writers)
{
    if (!dsm_ps_refreshable(i, page, writers))
        return false;
    if (dsm.state[page] == PG_RW) {
        if (drop_idle && idle_hot(page)) {
            since_write[page] = DROPPED;
            return false;
        }
        return true;
    }
    if (!left[page])
        return false;
    left[page]--;
    return true;
}

/* A copy's home, known since it was fetched: read from the table, as no
 * message may be sent inside a batch (dsm_home_of may ask the base). */
static int home_of(uint64_t page)
{
    return (int)dsm.home[page] - 1;
}

/* One batch of gets, one per run of consecutive claimed pages of one
 * segment and one home, each preceded by the registration of its pages. */
static void fetch_runs(const uint64_t *pages, size_t k)
{
    uint64_t *masks = xcalloc(3 * k, sizeof *masks);   /* a run of m pages needs m / 64 + 2 words */
    size_t used = 0;
    struct net_wait w;
    net_rma_begin(&w);
    for (size_t i = 0, j; i < k; i = j) {
        int home = home_of(pages[i]);
        struct dsm_seg *seg = dsm_seg_of(pages[i]);
        for (j = i + 1; j < k && pages[j] == pages[j - 1] + 1 && home_of(pages[j]) == home
                        && dsm_seg_of(pages[j]) == seg; j++)
            ;
        uint64_t m = j - i;
        dsm_ps_register_run(&w, pages[i], m, 1, home, masks + used);
        used += m / 64 + 2;
        net_rma_get(&w, home, seg->net_id, (pages[i] - seg->first_page) << dsm.page_shift, dsm_rt(pages[i]),
                    m << dsm.page_shift);
    }
    net_rma_end(&w);
    free(masks);
}

size_t dsm_refresh_copies(uint64_t *pages, int32_t *writers, size_t n)
{
    if (dsm.app_threads > 1 || !n)
        return n;
    size_t k;
    drop_idle = writers && count_idle_hot(pages, n) >= DROP_MIN;
    uint64_t *got = dsm_claim(pages, n, wanted, writers, &k);
    drop_idle = false;
    if (k) {
        fetch_runs(got, k);
        for (size_t i = 0; i < k; i++) {
            if (dsm.state[got[i]] == PG_RW && writers && since_write[got[i]] < DROPPED - 1)
                since_write[got[i]]++;
            dsm_ps_refreshed(got[i]);
            dsm_note_written_elsewhere(got[i]);
        }
        STAT_ADD(pages_fetched, k);
        /* got is a subsequence of pages: keep the others, in order. */
        size_t kept = 0;
        for (size_t i = 0, j = 0; i < n; i++) {
            if (j < k && pages[i] == got[j]) {
                j++;
                continue;
            }
            if (writers)
                writers[kept] = writers[i];
            pages[kept++] = pages[i];
        }
        n = kept;
    }
    free(got);
    /* The others the caller drops (those not held too: cheaper than asking). */
    for (size_t i = 0; i < n; i++)
        dropped[pages[i]] = (uint32_t)dsm.epoch + 1;
    return n;
}
