/*
 * An acquire drops the copies that other nodes wrote: they become INVALID
 * (and PROT_NONE), so that the next access fetches the home's copy.  The
 * home keeps its own copy, a node keeps a copy only it wrote, pages not
 * held stay as they are, and a hot page is dropped with its twin.  A
 * notice's clean copies are dropped as it arrives; the others wait.  At
 * an idle node's barriers, a read-only copy dropped keeps its protection
 * until the node protects the lagging copies, unless installed again.
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

/* As a notice arrives: a read-only copy is dropped, and a hot one whose
 * twin equals it while no release runs; a page homed here, a copy written
 * since the last release (hot or not) and every page of a notice older
 * than the barrier epoch are left to the inbox, as they were. */
static void arrival_drops_clean_copies(void)
{
    fake_pages_init(1, NULL);
    uint64_t ro = 3, home = 4, hot = 6, hot_written = 9, written = 12, left[8];
    uint64_t pages[] = { ro, home, hot, hot_written, written };
    fake_remote_miss(ro, false);
    fake_fault_locked(home, false, true);
    fake_remote_miss(hot, true);
    dsm_ps_keep_hot(hot);
    fake_remote_miss(hot_written, true);
    dsm_ps_keep_hot(hot_written);
    dsm_rt(hot_written)[7] ^= 1;
    fake_remote_miss(written, true);
    dsm_rt(written)[7] ^= 1;

    dsm.epoch = 5;
    size_t n = dsm_drop_on_arrival(pages, 5, 4, true, left);
    EXPECT(n == 5 && dsm.state[ro] == PG_RO && dsm.state[hot] == PG_RW, "an old notice dropped %zu", 5 - n);

    n = dsm_drop_on_arrival(pages, 5, 5, false, left);
    EXPECT(n == 4 && left[0] == home && left[1] == hot, "without hot pages: %zu left", n);
    EXPECT(dsm.state[ro] == PG_INVALID && fake_prot[ro] == PG_INVALID, "the read-only copy kept");

    n = dsm_drop_on_arrival(pages, 5, 6, true, left);
    EXPECT(n == 4 && left[0] == ro && left[1] == home && left[2] == hot_written && left[3] == written, "%zu left", n);
    EXPECT(dsm.state[hot] == PG_INVALID && fake_prot[hot] == PG_INVALID && !dsm.twin[hot] &&
           !dsm_flag(hot, PF_HOT), "hot page: state %d, twin %p", dsm.state[hot], dsm.twin[hot]);
    EXPECT(dsm.state[home] == PG_RW, "the home dropped its page");
    EXPECT(dsm.state[hot_written] == PG_RW && dsm_flag(hot_written, PF_HOT) && fake_prot[hot_written] == PG_RW,
           "a hot page written since its release was dropped");
    EXPECT(dsm.state[written] == PG_RW && dsm.twin[written], "a written copy was dropped");
    for (size_t i = 0; i < 5; i++)
        EXPECT(!dsm_flag(pages[i], PF_BUSY), "page %lu still busy", (unsigned long)pages[i]);
}

/* Dropped while lagging: INVALID, readable still.  The copy fetched for a
 * write lags no more; lowering protects the others but the one kept, which,
 * installed again, is RO with no protection call, and else is protected by
 * the next lowering; the hot page is dropped as ever. */
static void idle_drops_lag(void)
{
    fake_pages_init(1, NULL);
    uint64_t kept = 3, left = 5, written = 6, hot = 8, pages[] = { kept, left, written, hot };
    fake_remote_miss(kept, false);
    fake_remote_miss(left, false);
    fake_remote_miss(written, false);
    fake_remote_miss(hot, true);
    dsm_ps_keep_hot(hot);

    dsm_ps_lag(true);
    dsm_invalidate(pages, NULL, 4);
    dsm_ps_lag(false);
    for (size_t i = 0; i < 3; i++)
        EXPECT(dsm.state[pages[i]] == PG_INVALID && fake_prot[pages[i]] == PG_RO && dsm_flag(pages[i], PF_LAG),
               "page %lu: state %d, protection %d", (unsigned long)pages[i], dsm.state[pages[i]],
               fake_prot[pages[i]]);
    EXPECT(dsm.state[hot] == PG_INVALID && fake_prot[hot] == PG_INVALID && !dsm_flag(hot, PF_LAG),
           "the hot page lags");
    fake_remote_miss(written, true);
    EXPECT(dsm.state[written] == PG_RW && fake_prot[written] == PG_RW && !dsm_flag(written, PF_LAG),
           "the copy fetched for a write");

    dsm_ps_lower(kept);
    EXPECT(fake_prot[left] == PG_INVALID && !dsm_flag(left, PF_LAG), "the lagging copy is readable");
    EXPECT(fake_prot[kept] == PG_RO && dsm_flag(kept, PF_LAG), "the kept copy was protected");
    EXPECT(fake_prot[written] == PG_RW, "a copy held again was protected");
    size_t calls = fake_protects;
    fake_install(kept);
    EXPECT(dsm.state[kept] == PG_RO && !dsm_flag(kept, PF_LAG) && fake_protects == calls,
           "the copy installed again: state %d, %zu protection calls", dsm.state[kept], fake_protects - calls);

    dsm_ps_lag(true);
    dsm_invalidate(&kept, NULL, 1);
    dsm_ps_lag(false);
    dsm_ps_lower(kept);
    EXPECT(fake_prot[kept] == PG_RO, "the kept copy was protected");
    dsm_ps_lower(DSM_NO_PAGE);
    EXPECT(fake_prot[kept] == PG_INVALID && !dsm_flag(kept, PF_LAG), "the kept copy is readable at the end");
    for (size_t i = 0; i < 4; i++)
        EXPECT(!dsm_flag(pages[i], PF_BUSY), "page %lu still busy", (unsigned long)pages[i]);

    fake_remote_miss(left, false);
    dsm_invalidate(&left, NULL, 1);
    EXPECT(fake_prot[left] == PG_INVALID && !dsm_flag(left, PF_LAG), "a copy dropped when not idle lags");
}

int main(void)
{
    drops_what_others_wrote();
    hot_page_dropped_with_twin();
    arrival_drops_clean_copies();
    idle_drops_lag();
    return unit_status();
}
