/*
 * fake_pages.c: see fake_pages.h.  Replaces segment.c (protection and
 * views) and init.c (struct dsm) for the unit tests.
 */
#include "fake_pages.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

struct dsm dsm;
enum dsm_state fake_prot[FAKE_PAGES];
static char *rt;


char *dsm_rt(uint64_t page)
{
    return rt + page * FAKE_PAGE_SIZE;
}

void dsm_protect(uint64_t first, uint64_t n, enum dsm_state st)
{
    for (uint64_t p = first; p < first + n; p++)
        fake_prot[p] = st;
}

void dsm_protect_list(const uint64_t *sorted, size_t n, enum dsm_state st)
{
    for (size_t i = 0; i < n; i++)
        dsm_protect(sorted[i], 1, st);
}

/* The tables of the previous test: its lists and bitmap (the tables
 * themselves stay mapped, as the twins they point to stay allocated). */
static void forget_previous(void)
{
    struct dsm_plist *lists[] = { &dsm.rel, &dsm.bar, &dsm.home_rw, &dsm.fresh, &dsm.suspect, &dsm.counted,
                                  &dsm.lock_log };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        dsm_plist_free(lists[i]);
    free(dsm.sharers);
}

void fake_pages_init(int node, int (*home_of)(uint64_t page))
{
    forget_previous();
    memset(&dsm, 0, sizeof dsm);
    dsm.node = node;
    dsm.nodes = 3;
    dsm.page_size = FAKE_PAGE_SIZE;
    dsm.page_shift = 12;
    dsm.npages = FAKE_PAGES;
    dsm_pages_init();
    dsm.sharers = calloc(1 + FAKE_PAGES / 64, sizeof *dsm.sharers);
    free(rt);
    rt = calloc(FAKE_PAGES, FAKE_PAGE_SIZE);
    if (!dsm.sharers || !rt)
        abort();
    memset(fake_prot, 0, sizeof fake_prot);
    for (uint64_t p = 0; p < FAKE_PAGES; p++)
        dsm_set_home(p, home_of ? home_of(p) : (int)(p % 3));
}

void fake_set_sharer(uint64_t page)
{
    dsm.sharers[1 + page / 64] |= 1ULL << (page % 64);
    dsm.sharers[0]++;
}

bool fake_in(const struct dsm_plist *l, uint64_t page)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->pages[i] == page)
            return true;
    return false;
}

void fake_remote_miss(uint64_t page, bool write)
{
    struct dsm_stripe *s = dsm_stripe(page);
    pthread_mutex_lock(&s->mu);
    dsm_ps_claim(page);
    pthread_mutex_unlock(&s->mu);
    dsm_ps_fetched(page);
    pthread_mutex_lock(&s->mu);
    dsm_ps_remote_fault(page, write);
    pthread_mutex_unlock(&s->mu);
}

void fake_fault_locked(uint64_t page, bool write, bool at_home)
{
    struct dsm_stripe *s = dsm_stripe(page);
    pthread_mutex_lock(&s->mu);
    if (at_home)
        dsm_ps_home_fault(page, write);
    else
        dsm_ps_remote_fault(page, write);
    pthread_mutex_unlock(&s->mu);
}
