/*
 * At the home, a fault never fetches and never makes a twin.  A page no
 * other node holds becomes writable at once and is watched (HRW, home_rw)
 * without a write notice; a shared page becomes read-only for a read and
 * writable and noted for a write; a pinned page becomes writable.
 */
#include "fake_pages.h"
#include "unit.h"

static void unshared_page_is_writable_and_watched(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 4;     /* homed here */
    fake_fault_locked(p, false, true);
    EXPECT(dsm.state[p] == PG_RW && fake_prot[p] == PG_RW, "state %d", dsm.state[p]);
    EXPECT(dsm_flag(p, PF_HRW) && fake_in(&dsm.home_rw, p), "not watched");
    EXPECT(!dsm.twin[p] && !fake_in(&dsm.rel, p), "twinned or noted");
}

static void shared_read_is_read_only(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 7;
    fake_set_sharer(p);
    fake_fault_locked(p, false, true);
    EXPECT(dsm.state[p] == PG_RO && fake_prot[p] == PG_RO, "state %d", dsm.state[p]);
    EXPECT(!dsm_flag(p, PF_HRW) && !fake_in(&dsm.rel, p), "watched or noted");
}

static void shared_write_is_noted(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 10;
    fake_set_sharer(p);
    fake_fault_locked(p, false, true);
    fake_fault_locked(p, true, true);
    EXPECT(dsm.state[p] == PG_RW && fake_prot[p] == PG_RW, "state %d", dsm.state[p]);
    EXPECT(fake_in(&dsm.rel, p) && fake_in(&dsm.bar, p), "not noted");
    EXPECT(!dsm.twin[p], "the home made a twin");
}

static void pinned_page_is_writable(void)
{
    fake_pages_init(1, NULL);
    dsm.pinned_first = 13;
    dsm.pinned_end = 17;
    dsm_ps_pin(13, 4);
    for (uint64_t p = 13; p < 17; p++)
        EXPECT(dsm.state[p] == PG_RW && fake_prot[p] == PG_RW, "pinned page %lu: state %d", (unsigned long)p,
               dsm.state[p]);
    fake_set_sharer(16);
    dsm_ps_snapshot(16);
    EXPECT(dsm.twin[16] && dsm.state[16] == PG_RW, "no snapshot");
}

int main(void)
{
    unshared_page_is_writable_and_watched();
    shared_read_is_read_only();
    shared_write_is_noted();
    pinned_page_is_writable();
    return unit_status();
}
