/*
 * A miss at a node that is not the page's home fetches the page and leaves
 * it read-only for a read, writable with a twin of the fetched contents for
 * a write; either way the node registered as a sharer before the get (its
 * bit in the home's bitmap, then the home's count, each behind a fence,
 * and SHARER: nothing left to register at the next release), the page is
 * not BUSY any more and its protection follows its state.
 */
#include "fake_pages.h"
#include "unit.h"

#include <string.h>

static void read_miss_is_read_only(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 3;     /* homed at node 0 */
    fake_remote_miss(p, false);
    EXPECT(dsm.state[p] == PG_RO && fake_prot[p] == PG_RO, "state %d, protection %d", dsm.state[p], fake_prot[p]);
    EXPECT(!dsm.twin[p], "a read miss made a twin");
    EXPECT(dsm_flag(p, PF_SHARER) && !fake_in(&dsm.fresh, p), "flags %#x, fresh: %d", dsm.flags[p], fake_in(&dsm.fresh, p));
    EXPECT(fake_bitmap[0][1] == 1ULL << p && fake_bitmap[0][0] == 1, "node 0's bitmap %#lx, count %lu",
           (unsigned long)fake_bitmap[0][1], (unsigned long)fake_bitmap[0][0]);
    EXPECT(!dsm_flag(p, PF_BUSY), "still busy");
    EXPECT(!fake_in(&dsm.rel, p), "a read noted the page as written");
}

static void write_miss_twins_fetched_page(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 6;
    memset(dsm_rt(p), 0x5a, dsm.page_size);     /* what the get brought */
    fake_remote_miss(p, true);
    EXPECT(dsm.state[p] == PG_RW && fake_prot[p] == PG_RW, "state %d, protection %d", dsm.state[p], fake_prot[p]);
    EXPECT(dsm.twin[p] && !memcmp(dsm.twin[p], dsm_rt(p), dsm.page_size), "no twin of the fetched page");
    EXPECT(fake_in(&dsm.rel, p) && fake_in(&dsm.bar, p), "not noted as written");
    EXPECT(dsm_flag(p, PF_SHARER) && !dsm_flag(p, PF_BUSY), "flags %#x", dsm.flags[p]);
}

/* The home must see the bit before the count, and both before the page
 * is read: OR, fence, ADD, fence. */
static void registration_is_ordered(void)
{
    fake_pages_init(1, NULL);
    fake_remote_miss(3, false);
    enum fake_rma_kind want[] = { FAKE_RMA_OR, FAKE_RMA_FENCE, FAKE_RMA_ADD, FAKE_RMA_FENCE };
    EXPECT(fake_nrma == 4, "%zu operations", fake_nrma);
    for (size_t i = 0; i < 4 && i < fake_nrma; i++)
        EXPECT(fake_rma[i].kind == want[i], "operation %zu is %d", i, (int)fake_rma[i].kind);
}

/* A page dropped and fetched again is registered once: the home keeps
 * our bit. */
static void refetch_registers_once(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 12;
    fake_remote_miss(p, false);
    int32_t writer = 2;
    dsm_invalidate(&p, &writer, 1);
    EXPECT(dsm.state[p] == PG_INVALID, "not dropped");
    fake_remote_miss(p, false);
    EXPECT(fake_bitmap[0][0] == 1, "registered %lu times", (unsigned long)fake_bitmap[0][0]);
    EXPECT(dsm.fresh.n == 0, "%zu pages fresh", dsm.fresh.n);
}

int main(void)
{
    read_miss_is_read_only();
    write_miss_twins_fetched_page();
    registration_is_ordered();
    refetch_registers_once();
    return unit_status();
}
