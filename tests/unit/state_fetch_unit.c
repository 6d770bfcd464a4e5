/*
 * A miss at a node that is not the page's home fetches the page and leaves
 * it read-only for a read, writable with a twin of the fetched contents for
 * a write; either way the node is about to be a sharer (SHARER, in the
 * fresh list, to register at its next release), the page is not BUSY any
 * more and its protection follows its state.
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
    EXPECT(dsm_flag(p, PF_SHARER) && fake_in(&dsm.fresh, p), "not registered as fresh");
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
    size_t times = 0;
    for (size_t i = 0; i < dsm.fresh.n; i++)
        times += dsm.fresh.pages[i] == p;
    EXPECT(times == 1, "in the fresh list %zu times", times);
}

int main(void)
{
    read_miss_is_read_only();
    write_miss_twins_fetched_page();
    refetch_registers_once();
    return unit_status();
}
