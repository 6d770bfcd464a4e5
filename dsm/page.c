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
 * and PF_BAR flags say whether it already is, as PF_CNT does for the list
 * of pages counted.  These list flags change here only; the coherence
 * state and flags change in page_state.c.
 */
#include "dsm.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#ifdef OMPDSM_CHECKING
__thread int dsm_mutexes_held;
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
    pthread_mutex_init(&dsm.acquire_mu, NULL);
}

struct dsm_stripe *dsm_stripe(uint64_t page)
{
    return &dsm.stripes[page % DSM_STRIPES];
}

/* The count is stored atomically (under the list's mutex, if it has one)
 * so that dsm_plist_empty() may read it without. */
void dsm_plist_add(struct dsm_plist *l, uint64_t page)
{
    l->pages = xgrow(l->pages, &l->cap, l->n + 1, sizeof *l->pages);
    l->pages[l->n] = page;
    __atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELAXED);
}

/* Moves the contents of from into to (which must be empty). */
void dsm_plist_take(struct dsm_plist *from, struct dsm_plist *to)
{
    *to = *from;
    from->pages = NULL;
    from->cap = 0;
    __atomic_store_n(&from->n, 0, __ATOMIC_RELAXED);
}

/* Read without the mutex that guards the list: an empty barrier looks at
 * several lists (pages written, fetched, suspect) and paid a lock and an
 * unlock for each, 50 ns of the 0.31 us it took at 2 nodes.  A page that
 * another thread adds just after the look is taken by the next take, as it
 * would be had it come just after the take. */
bool dsm_plist_empty(const struct dsm_plist *l)
{
    return __atomic_load_n(&l->n, __ATOMIC_RELAXED) == 0;
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

void dsm_plist_sort_unique(struct dsm_plist *l)
{
    dsm_plist_sort(l);
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!m || l->pages[m - 1] != l->pages[i])
            l->pages[m++] = l->pages[i];
    l->n = m;
}

bool dsm_plist_has(const struct dsm_plist *sorted, uint64_t page)
{
    return sorted->n && bsearch(&page, sorted->pages, sorted->n, sizeof page, cmp_u64);
}

void dsm_plist_free(struct dsm_plist *l)
{
    free(l->pages);
    memset(l, 0, sizeof *l);
}

/* Puts the page in the lists `lists` names (PF_REL: written since the
 * last release, PF_BAR: since the last barrier) that do not hold it yet. */
static void note(uint64_t page, uint16_t lists)
{
    if ((__atomic_load_n(&dsm.flags[page], __ATOMIC_RELAXED) & lists) == lists)
        return;
    dsm_lock(&dsm.lists_mu);
    if ((lists & PF_REL) && !dsm_flag(page, PF_REL))
        dsm_plist_add(&dsm.rel, page);
    if ((lists & PF_BAR) && !dsm_flag(page, PF_BAR))
        dsm_plist_add(&dsm.bar, page);
    dsm_flag_set(page, lists);
    dsm_unlock(&dsm.lists_mu);
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

void dsm_note_ahead(uint64_t page, bool counted)
{
    dsm_flag_set(page, (uint16_t)(PF_AHEAD | (counted ? PF_AHEAD_COUNTED : 0)));
    note(page, PF_REL);
}

void dsm_rel_done(uint64_t page)
{
    dsm_flag_clear(page, PF_REL);
}

/* Moves a list and its pages' flag `f` out to `out`. */
static void take_list(struct dsm_plist *l, uint16_t f, struct dsm_plist *out)
{
    if (dsm_plist_empty(l))
        return;
    dsm_lock(&dsm.lists_mu);
    dsm_plist_take(l, out);
    for (size_t i = 0; i < out->n; i++)
        dsm_flag_clear(out->pages[i], f);
    dsm_unlock(&dsm.lists_mu);
}

void dsm_bar_take(struct dsm_plist *out)
{
    take_list(&dsm.bar, PF_BAR, out);
}

void dsm_counted_take(struct dsm_plist *out)
{
    take_list(&dsm.counted, PF_CNT, out);
}

/* Counts a fault for home migration: a read or a write of the page in the
 * current migrate region. */
void dsm_count_fault(uint64_t page, bool write)
{
    __atomic_fetch_add(write ? &dsm.writes[page] : &dsm.reads[page], 1, __ATOMIC_RELAXED);
    if (dsm_flag(page, PF_CNT))
        return;
    dsm_lock(&dsm.lists_mu);
    if (!dsm_flag(page, PF_CNT)) {
        dsm_plist_add(&dsm.counted, page);
        dsm_flag_set(page, PF_CNT);
    }
    dsm_unlock(&dsm.lists_mu);
}

/* Counts a write of a page homed at another node (home), a fault or a
 * write that stood for one: for migration, and in the writes to pages
 * homed elsewhere that make the next migration point (dsm.remote_writes). */
void dsm_count_remote_write(uint64_t page, int home)
{
    dsm_count_fault(page, true);
    if (home != dsm.node)
        __atomic_fetch_add(&dsm.remote_writes, 1, __ATOMIC_RELAXED);
}
