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
size_t fake_protects;
uint64_t fake_bitmap[3][1 + FAKE_PAGES / 64];
struct fake_rma_op fake_rma[64];
size_t fake_nrma;
static char *rt;

char *dsm_rt(uint64_t page)
{
    return rt + page * FAKE_PAGE_SIZE;
}

void dsm_protect(uint64_t first, uint64_t n, enum dsm_state st)
{
    fake_protects++;
    for (uint64_t p = first; p < first + n; p++)
        fake_prot[p] = st;
}

void dsm_protect_list(const uint64_t *sorted, size_t n, enum dsm_state st)
{
    for (size_t i = 0; i < n; i++)
        dsm_protect(sorted[i], 1, st);
}

/* Every page's home is set by fake_pages_init (home.c asks no base here). */
int dsm_home_of(uint64_t page)
{
    return dsm.home[page] - 1;
}

static void log_rma(enum fake_rma_kind kind, int dst, uint64_t offset, uint64_t value)
{
    if (fake_nrma == sizeof fake_rma / sizeof fake_rma[0])
        abort();
    fake_rma[fake_nrma++] = (struct fake_rma_op){ kind, dst, offset, value };
}

void net_rma_begin(struct net_wait *w)
{
    (void)w;
}

void net_rma_or(struct net_wait *w, int dst, int id, uint64_t offset, const uint64_t *value)
{
    (void)w;
    (void)id;
    fake_bitmap[dst][offset / 8] |= *value;
    log_rma(FAKE_RMA_OR, dst, offset, *value);
}

void net_rma_add(struct net_wait *w, int dst, int id, uint64_t offset, const uint64_t *value)
{
    (void)w;
    (void)id;
    fake_bitmap[dst][offset / 8] += *value;
    log_rma(FAKE_RMA_ADD, dst, offset, *value);
}

void net_rma_fence(void)
{
    log_rma(FAKE_RMA_FENCE, -1, 0, 0);
}

void net_rma_end(struct net_wait *w)
{
    (void)w;
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
    memset(fake_bitmap, 0, sizeof fake_bitmap);
    fake_nrma = 0;
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

/* Claims the page, and registers for it first unless `installed`. */
static void take(uint64_t page, bool installed)
{
    struct dsm_stripe *s = dsm_stripe(page);
    pthread_mutex_lock(&s->mu);
    dsm_ps_claim(page);
    pthread_mutex_unlock(&s->mu);
    if (!installed) {
        uint64_t masks[2];
        struct net_wait w;
        net_rma_begin(&w);
        dsm_ps_register_run(&w, page, 1, 1, dsm_home_of(page), masks);
        net_rma_end(&w);
    }
    dsm_ps_fetched(page, !installed);
}

void fake_remote_miss(uint64_t page, bool write)
{
    take(page, false);
    struct dsm_stripe *s = dsm_stripe(page);
    pthread_mutex_lock(&s->mu);
    dsm_ps_remote_fault(page, write);
    pthread_mutex_unlock(&s->mu);
}

void fake_install(uint64_t page)
{
    take(page, true);
    dsm_settle_claimed(&page, 1, PG_RO, DSM_EV_READ_MISS);
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
