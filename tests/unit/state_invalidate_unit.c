/*
 * An acquire drops the copies that other nodes wrote: they become INVALID
 * (and PROT_NONE), so that the next access fetches the home's copy.  The
 * home keeps its own copy, a node keeps a copy only it wrote, pages not
 * held stay as they are, and a hot page is dropped with its twin.
 */
#include "fake_pages.h"
#include "unit.h"

static void drops_what_others_wrote(void)
{
    fake_pages_init(1, NULL);
    uint64_t pages[] = { 3, 4, 5, 6 };      /* 4 is homed here */
    int32_t writers[] = { 0, 0, 1, -1 };    /* 5: only this node wrote it */
    fake_remote_miss(3, false);
    fake_fault_locked(4, false, true);
    fake_remote_miss(5, false);
    dsm_invalidate(pages, writers, 4);
    EXPECT(dsm.state[3] == PG_INVALID && fake_prot[3] == PG_INVALID, "copy 3 kept");
    EXPECT(dsm.state[4] == PG_RW, "the home dropped its page");
    EXPECT(dsm.state[5] == PG_RO, "the only writer dropped its copy");
    EXPECT(dsm.state[6] == PG_INVALID, "a page not held changed");
    for (int i = 0; i < 4; i++)
        EXPECT(!dsm_flag(pages[i], PF_BUSY), "page %lu still busy", (unsigned long)pages[i]);
}

static void hot_page_dropped_with_twin(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 8;
    fake_remote_miss(p, true);
    dsm_ps_keep_hot(p);
    dsm_invalidate(&p, NULL, 1);
    EXPECT(dsm.state[p] == PG_INVALID && !dsm.twin[p] && !dsm_flag(p, PF_HOT),
           "state %d, twin %p, flags %#x", dsm.state[p], dsm.twin[p], dsm.flags[p]);
}

int main(void)
{
    drops_what_others_wrote();
    hot_page_dropped_with_twin();
    return unit_status();
}
