/*
 * At a release a written page is claimed, diffed and published: read-only,
 * its twin dropped, out of the release list, not busy.  A page kept
 * writable (hot) keeps a twin that equals its contents after each release,
 * and cooling it makes it read-only without a twin.
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
    dsm_cool(p);
    EXPECT(dsm.state[p] == PG_RO && fake_prot[p] == PG_RO && !dsm.twin[p] && !dsm_flag(p, PF_HOT),
           "cooling left state %d, twin %p, flags %#x", dsm.state[p], dsm.twin[p], dsm.flags[p]);
}

static void cooling_a_cold_page_does_nothing(void)
{
    fake_pages_init(1, NULL);
    uint64_t p = 8;
    fake_remote_miss(p, false);
    dsm_cool(p);
    EXPECT(dsm.state[p] == PG_RO, "state %d", dsm.state[p]);
}

int main(void)
{
    published_page_is_read_only();
    home_page_published_without_twin();
    hot_twin_follows_contents();
    cooling_a_cold_page_does_nothing();
    return unit_status();
}
