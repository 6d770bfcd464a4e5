/*
 * page.c: the per-page tables, the stripe locks and the written-page lists.
 *
 * The tables are anonymous mappings sized for every page of every segment;
 * the kernel gives them memory only where they are touched, so a 16 GiB
 * region used sparsely costs a few pages of tables.
 *
 * Per page, the faults of the current migrate region are counted for home
 * migration (migrate/).
 *
 * Two lists record what this node wrote: since the last release (flushed
 * and announced at a lock release) and since the last barrier (announced to
 * everyone at the barrier).  A page is in a list at most once: the PF_REL
 * and PF_BAR flags say whether it already is.
 */
#include "dsm.h"
#include "log.h"
#include "xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

void *dsm_page_table(size_t elem)
{
    size_t bytes = dsm.npages * elem;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        dsm_fatal("cannot allocate the page table (%zu bytes): %s", bytes, strerror(errno));
    return p;
}

void dsm_pages_init(void)
{
    dsm.state = dsm_page_table(sizeof *dsm.state);
    dsm.flags = dsm_page_table(sizeof *dsm.flags);
    dsm.home = dsm_page_table(sizeof *dsm.home);
    dsm.twin = dsm_page_table(sizeof *dsm.twin);
#ifdef __SANITIZE_ADDRESS__
    /* Twins are heap blocks that only this table points to: LeakSanitizer
     * must scan it, or it reports the twins alive at exit as leaked. */
    __lsan_register_root_region(dsm.twin, dsm.npages * sizeof *dsm.twin);
#endif
    dsm.reads = dsm_page_table(sizeof *dsm.reads);
    dsm.writes = dsm_page_table(sizeof *dsm.writes);
    for (int i = 0; i < DSM_STRIPES; i++) {
        pthread_mutex_init(&dsm.stripes[i].mu, NULL);
        pthread_cond_init(&dsm.stripes[i].cv, NULL);
    }
    pthread_mutex_init(&dsm.lists_mu, NULL);
}

struct dsm_stripe *dsm_stripe(uint64_t page)
{
    return &dsm.stripes[page % DSM_STRIPES];
}

void dsm_plist_add(struct dsm_plist *l, uint64_t page)
{
    l->pages = xgrow(l->pages, &l->cap, l->n + 1, sizeof *l->pages);
    l->pages[l->n++] = page;
}

/* Moves the contents of from into to (which must be empty). */
void dsm_plist_take(struct dsm_plist *from, struct dsm_plist *to)
{
    *to = *from;
    memset(from, 0, sizeof *from);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void dsm_plist_sort(struct dsm_plist *l)
{
    if (l->n > 1)   /* pages is NULL while the list is empty, and qsort's must not be */
        qsort(l->pages, l->n, sizeof *l->pages, cmp_u64);
}

void dsm_plist_free(struct dsm_plist *l)
{
    free(l->pages);
    memset(l, 0, sizeof *l);
}

/* Claims (marks BUSY) the pages of the list that `want` accepts, waiting
 * first for any fetch or flush under way on each; `want` runs under the
 * page's stripe lock.  Returns the claimed pages, in list order, in a
 * malloc'd array (*k of them), for dsm_settle_claimed(). */
uint64_t *dsm_claim(const uint64_t *pages, size_t n, bool (*want)(size_t i, uint64_t page, const void *arg),
                    const void *arg, size_t *k)
{
    uint64_t *claimed = xcalloc(n, sizeof *claimed);
    *k = 0;
    for (size_t i = 0; i < n; i++) {
        struct dsm_stripe *s = dsm_stripe(pages[i]);
        pthread_mutex_lock(&s->mu);
        while (dsm_flag(pages[i], PF_BUSY))
            pthread_cond_wait(&s->cv, &s->mu);
        if (want(i, pages[i], arg)) {
            dsm_flag_set(pages[i], PF_BUSY);
            claimed[(*k)++] = pages[i];
        }
        pthread_mutex_unlock(&s->mu);
    }
    return claimed;
}

/* Pages claimed (marked BUSY) by the caller, sorted: protected in
 * coalesced ranges, then given their new state and released to the
 * threads that wait for them. */
void dsm_settle_claimed(const uint64_t *sorted, size_t n, enum dsm_state st)
{
    if (n)
        dsm_protect_list(sorted, n, st);
    for (size_t i = 0; i < n; i++) {
        struct dsm_stripe *s = dsm_stripe(sorted[i]);
        pthread_mutex_lock(&s->mu);
        dsm.state[sorted[i]] = (uint8_t)st;
        dsm_flag_clear(sorted[i], PF_BUSY);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
}

/* Puts the page in the lists `lists` names (PF_REL: written since the
 * last release, PF_BAR: since the last barrier) that do not hold it yet. */
static void note(uint64_t page, uint8_t lists)
{
    if ((__atomic_load_n(&dsm.flags[page], __ATOMIC_RELAXED) & lists) == lists)
        return;
    pthread_mutex_lock(&dsm.lists_mu);
    if ((lists & PF_REL) && !dsm_flag(page, PF_REL))
        dsm_plist_add(&dsm.rel, page);
    if ((lists & PF_BAR) && !dsm_flag(page, PF_BAR))
        dsm_plist_add(&dsm.bar, page);
    dsm_flag_set(page, lists);
    pthread_mutex_unlock(&dsm.lists_mu);
}

/* Records that this node wrote the page in the current interval. */
void dsm_note_written(uint64_t page)
{
    note(page, PF_REL | PF_BAR);
}

void dsm_note_announced(uint64_t page)
{
    note(page, PF_BAR);
}

/* Counts a fault for home migration: a read or a write of the page in the
 * current migrate region. */
void dsm_count_fault(uint64_t page, bool write)
{
    __atomic_fetch_add(write ? &dsm.writes[page] : &dsm.reads[page], 1, __ATOMIC_RELAXED);
    if (dsm_flag(page, PF_CNT))
        return;
    pthread_mutex_lock(&dsm.lists_mu);
    if (!dsm_flag(page, PF_CNT)) {
        dsm_plist_add(&dsm.counted, page);
        dsm_flag_set(page, PF_CNT);
    }
    pthread_mutex_unlock(&dsm.lists_mu);
}
