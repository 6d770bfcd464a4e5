/*
 * A home migration's moves, applied at one node: a page that moves here
 * gets this node as its home, its sharer bit cleared (nobody else holds
 * it now) and is adopted: writable and watched; a hot copy of ours is
 * cooled first.  A page that moves away is dropped here, and stops being
 * watched if this node was its home.  Every node remembers where a page
 * came from.
 */
#include "fake_pages.h"
#include "unit.h"

static void moved_in_is_adopted(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 3;     /* from node 0 */
    fake_remote_miss(p, false);
    fake_set_sharer(p);
    struct dsm_rehoming r = { 0 };
    dsm_rehome(&r, p, 1);
    dsm_rehome_end(&r);
    EXPECT(dsm.home[p] == 2, "home %d", dsm.home[p]);
    EXPECT(!dsm_shared(p) && !dsm_flag(p, PF_SHARER), "still shared");
    EXPECT(dsm.state[p] == PG_RW && fake_prot[p] == PG_RW, "state %d", dsm.state[p]);
    EXPECT(dsm_flag(p, PF_HRW) && fake_in(&dsm.home_rw, p), "not watched");
}

static void hot_page_moving_in_is_cooled(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 5;     /* from node 2 */
    fake_remote_miss(p, true);
    dsm_ps_keep_hot(p);
    struct dsm_rehoming r = { 0 };
    dsm_rehome(&r, p, 1);
    dsm_rehome_end(&r);
    EXPECT(!dsm.twin[p] && !dsm_flag(p, PF_HOT), "the new home kept a twin");
    EXPECT(dsm.state[p] == PG_RW && dsm_flag(p, PF_HRW), "not adopted");
}

static void moved_out_is_dropped(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 4, q = 3;      /* 4: from here to node 2; 3: from node 0 to node 2 */
    fake_fault_locked(p, true, true);
    fake_remote_miss(q, false);
    struct dsm_rehoming r = { 0 };
    dsm_rehome(&r, p, 2);
    dsm_rehome(&r, q, 2);
    dsm_rehome_end(&r);
    EXPECT(dsm.home[p] == 3 && dsm.home[q] == 3, "homes %d %d", dsm.home[p], dsm.home[q]);
    EXPECT(dsm.state[p] == PG_INVALID && dsm.state[q] == PG_INVALID, "copies kept");
    EXPECT(!dsm_flag(p, PF_HRW) && !fake_in(&dsm.home_rw, p), "the old home still watches the page");
    EXPECT(!dsm_flag(q, PF_SHARER), "still a sharer of the old home");
}

int main(void)
{
    moved_in_is_adopted();
    hot_page_moving_in_is_cooled();
    moved_out_is_dropped();
    return unit_status();
}
