/*
 * A write to a read-only copy at a node that is not the page's home makes
 * a twin of the page as it was before the write (what the diff at the
 * next release is taken against), makes the page writable and notes it as
 * written since the last release and the last barrier.  The twin does not
 * follow later writes.
 */
#include "fake_pages.h"
#include "unit.h"

#include <string.h>

static void write_upgrade_twins_old_contents(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 3;
    fake_remote_miss(p, false);
    memset(dsm_rt(p), 0x11, dsm.page_size);
    fake_fault_locked(p, true, false);
    EXPECT(dsm.state[p] == PG_RW && fake_prot[p] == PG_RW, "state %d, protection %d", dsm.state[p], fake_prot[p]);
    EXPECT(dsm.twin[p] != NULL, "no twin");
    if (!dsm.twin[p])
        return;
    memset(dsm_rt(p) + 100, 0x22, 8);       /* the program's write */
    unsigned char expect[FAKE_PAGE_SIZE];
    memset(expect, 0x11, sizeof expect);
    EXPECT(!memcmp(dsm.twin[p], expect, dsm.page_size), "the twin is not the page before the write");
    EXPECT(fake_in(&dsm.rel, p) && fake_in(&dsm.bar, p), "not noted as written");
}

static void noted_once_per_interval(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 5;
    fake_remote_miss(p, true);
    dsm_note_written(p);
    EXPECT(dsm.rel.n == 1 && dsm.bar.n == 1, "lists hold %zu and %zu entries", dsm.rel.n, dsm.bar.n);
}

int main(void)
{
    write_upgrade_twins_old_contents();
    noted_once_per_interval();
    return unit_status();
}
