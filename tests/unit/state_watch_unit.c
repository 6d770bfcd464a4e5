/*
 * A home page written without notices because nobody else held it (HRW)
 * must be announced once another node has registered as its sharer: the
 * release takes exactly those pages out of the watch (home_rw) and hands
 * them back to be noted; the others stay watched.  At a barrier's end the
 * pages taken out are only write-protected (home-protect): read-only, not
 * noted; one a remote atomic noted meanwhile stays in the release's list,
 * once.
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

static void protected_without_a_note(void)
{
    fake_pages_init(1, NULL);
    uint64_t a = 4, b = 7;
    fake_fault_locked(a, true, true);
    fake_fault_locked(b, true, true);
    fake_set_sharer(a);
    fake_set_sharer(b);
    dsm_note_written(b);        /* an atomic run here for another node */
    struct dsm_plist found = { 0 };
    dsm_ps_unwatch_shared(&found);
    dsm_plist_sort(&found);
    dsm_ps_home_protect(found.pages, found.n);
    EXPECT(dsm.state[a] == PG_RO && fake_prot[a] == PG_RO && dsm.state[b] == PG_RO && fake_prot[b] == PG_RO,
           "states %d %d, protections %d %d", dsm.state[a], dsm.state[b], fake_prot[a], fake_prot[b]);
    EXPECT(!fake_in(&dsm.rel, a) && !dsm_flag(a, PF_BUSY | PF_HRW), "page a noted, busy or watched");
    EXPECT(dsm.rel.n == 1 && dsm_flag(b, PF_REL), "the noted page: %zu in the list, REL %d", dsm.rel.n,
           dsm_flag(b, PF_REL) != 0);
    dsm_note_written(b);
    EXPECT(dsm.rel.n == 1, "noted again: %zu entries", dsm.rel.n);
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
    protected_without_a_note();
    watched_once();
    return unit_status();
}
