/*
 * At a release a written page is claimed, diffed and published: read-only,
 * its twin dropped, out of the release list, not busy (claimed first, the
 * pages are write-protected while their diffs are taken).  A page kept
 * writable (hot) keeps a twin that equals its contents after each release,
 * and cooling it makes it read-only without a twin.  At exit node 0's
 * globals become writable, whatever state they were in.
 */
#include "fake_pages.h"
#include "unit.h"

#include <string.h>

static void claim(uint64_t p)
{
    struct dsm_stripe *s = dsm_stripe(p);
    pthread_mutex_lock(&s->mu);
    dsm_ps_claim(p);
    pthread_mutex_unlock(&s->mu);
}

static void publish(uint64_t p)
{
    struct dsm_stripe *s = dsm_stripe(p);
    pthread_mutex_lock(&s->mu);
    dsm_ps_publish(p);
    pthread_mutex_unlock(&s->mu);
}

static void published_page_is_read_only(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 3;
    fake_remote_miss(p, true);
    claim(p);
    EXPECT(dsm_flag(p, PF_BUSY), "not claimed");
    publish(p);
    EXPECT(dsm.state[p] == PG_RO && !dsm.twin[p], "state %d, twin %p", dsm.state[p], dsm.twin[p]);
    EXPECT(!dsm_flag(p, PF_BUSY | PF_REL), "flags %#x", dsm.flags[p]);
}

static void home_page_published_without_twin(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 7;
    fake_set_sharer(p);
    fake_fault_locked(p, true, true);
    claim(p);
    publish(p);
    EXPECT(dsm.state[p] == PG_RO && !dsm_flag(p, PF_REL), "state %d", dsm.state[p]);
}

static void written_pages_claimed_and_protected(void)
{
    fake_pages_init(1, NULL);
    uint64_t pages[] = { 4, 5, 9 };
    for (size_t i = 0; i < 3; i++)
        fake_remote_miss(pages[i], true);
    dsm_claim_written(pages, 3);
    for (size_t i = 0; i < 3; i++) {
        uint64_t p = pages[i];
        EXPECT(dsm_flag(p, PF_BUSY), "page %lu not claimed", (unsigned long)p);
        EXPECT(fake_prot[p] == PG_RO, "page %lu writable while its diff is taken", (unsigned long)p);
        EXPECT(dsm.twin[p], "page %lu lost its twin before its diff", (unsigned long)p);
        publish(p);
    }
}

static void exit_makes_globals_writable(void)
{
    fake_pages_init(0, NULL);
    fake_remote_miss(4, false);      /* read-only */
    fake_remote_miss(7, true);       /* written, with a twin */
    dsm_ps_exit(0, 16);
    for (uint64_t p = 0; p < 16; p++)
        EXPECT(dsm.state[p] == PG_RW && fake_prot[p] == PG_RW, "page %lu: state %d, protection %d",
               (unsigned long)p, dsm.state[p], fake_prot[p]);
}

static void hot_twin_follows_contents(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 5;
    fake_remote_miss(p, true);
    memset(dsm_rt(p), 0x33, 64);
    dsm_ps_keep_hot(p);
    EXPECT(dsm_flag(p, PF_HOT) && !dsm_flag(p, PF_REL), "flags %#x", dsm.flags[p]);
    EXPECT(dsm.state[p] == PG_RW && dsm.twin[p], "not writable with a twin");
    EXPECT(!memcmp(dsm.twin[p], dsm_rt(p), dsm.page_size), "twin not refreshed");
    memset(dsm_rt(p) + 64, 0x44, 64);
    dsm_ps_hot_refresh(p);
    EXPECT(!memcmp(dsm.twin[p], dsm_rt(p), dsm.page_size), "twin not refreshed");
    dsm_cool(&p, 1);
    EXPECT(dsm.state[p] == PG_RO && fake_prot[p] == PG_RO && !dsm.twin[p] && !dsm_flag(p, PF_HOT),
           "cooling left state %d, twin %p, flags %#x", dsm.state[p], dsm.twin[p], dsm.flags[p]);
}

static void cooling_a_cold_page_does_nothing(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 8;
    fake_remote_miss(p, false);
    dsm_cool(&p, 1);
    EXPECT(dsm.state[p] == PG_RO, "state %d", dsm.state[p]);
}

/* A list cools the hot pages in it and leaves the others as they are. */
static void cooling_a_list_cools_its_hot_pages(void)
{
    fake_pages_init(1, NULL);
    uint64_t list[] = { 2, 3, 4, 6 };
    for (size_t i = 0; i < 4; i++) {
        fake_remote_miss(list[i], true);
        if (list[i] != 3)
            dsm_ps_keep_hot(list[i]);
    }
    dsm_cool(list, 4);
    for (size_t i = 0; i < 4; i++) {
        uint64_t p = list[i];
        bool was_hot = p != 3;
        EXPECT(was_hot ? dsm.state[p] == PG_RO && fake_prot[p] == PG_RO && !dsm.twin[p]
                       : dsm.state[p] == PG_RW && dsm.twin[p],
               "page %lu: state %d, protection %d, twin %p", (unsigned long)p, dsm.state[p], fake_prot[p],
               dsm.twin[p]);
        EXPECT(!dsm_flag(p, PF_HOT | PF_BUSY), "page %lu: flags %#x", (unsigned long)p, dsm.flags[p]);
    }
}

int main(void)
{
    cooling_a_list_cools_its_hot_pages();
    published_page_is_read_only();
    home_page_published_without_twin();
    written_pages_claimed_and_protected();
    exit_makes_globals_writable();
    hot_twin_follows_contents();
    cooling_a_cold_page_does_nothing();
    return unit_status();
}
