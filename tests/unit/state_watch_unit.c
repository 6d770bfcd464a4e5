/*
 * A home page written without notices because nobody else held it (HRW)
 * must be announced once another node has registered as its sharer: the
 * release takes exactly those pages out of the watch (home_rw) and hands
 * them back to be noted; the others stay watched.
 */
#include "fake_pages.h"
#include "unit.h"

static void registered_pages_leave_the_watch(void)
{
    fake_pages_init(1, NULL);
    uint64_t a = 4, b = 7, c = 10;
    fake_fault_locked(a, true, true);
    fake_fault_locked(b, true, true);
    fake_fault_locked(c, true, true);
    fake_set_sharer(b);
    struct dsm_plist found = { 0 };
    dsm_ps_unwatch_shared(&found);
    EXPECT(found.n == 1 && found.pages[0] == b, "%zu pages found", found.n);
    EXPECT(!dsm_flag(b, PF_HRW) && !fake_in(&dsm.home_rw, b), "the shared page is still watched");
    EXPECT(dsm_flag(a, PF_HRW) && dsm_flag(c, PF_HRW) && dsm.home_rw.n == 2, "an unshared page left the watch");
    dsm_plist_free(&found);
}

static void watched_once(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 4;
    fake_fault_locked(p, false, true);
    uint64_t l[] = { p };
    dsm_adopt(l, 1);        /* already writable: nothing to adopt */
    EXPECT(dsm.home_rw.n == 1, "home_rw holds %zu entries", dsm.home_rw.n);
}

int main(void)
{
    registered_pages_leave_the_watch();
    watched_once();
    return unit_status();
}
