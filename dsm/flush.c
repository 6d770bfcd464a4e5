/*
 * flush.c: the release side of release consistency.
 *
 * dsm_release() publishes every write this node made since its previous
 * release: each page it is not home of is diffed against its twin and the
 * runs are applied at the home; the home acknowledges, so when
 * dsm_release() returns every home holds our writes and a node that fetches
 * the page afterwards sees them.
 *
 * The written pages are write-protected first, in coalesced ranges, so that
 * no thread of this node can change a page while it is being diffed; a
 * thread that writes meanwhile faults and waits for the page to settle
 * (PF_BUSY).  Home pages in the list go read-only too: they are shared, and
 * the home's next write must be noticed again.
 *
 * Diffs travel in one OP_DIFF message per home: a diff_hdr followed by
 * entries (u64 page, u32 bytes, runs).
 */
#include "diff.h"
#include "dsm.h"
#include "log.h"
#include "net.h"
#include "proto.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

struct diff_entry_hdr {
    uint64_t page;
    uint32_t bytes;
} __attribute__((packed));

/* ---- at the home -------------------------------------------------------- */

static void on_diff(int src, void *body, size_t len)
{
    struct diff_hdr *h = body;
    const char *p = (const char *)(h + 1), *end = (const char *)body + len;
    for (uint64_t i = 0; i < h->count; i++) {
        struct diff_entry_hdr e;
        if ((size_t)(end - p) < sizeof e)
            dsm_fatal("truncated diff message from node %d", src);
        memcpy(&e, p, sizeof e);
        p += sizeof e;
        if (e.page >= dsm.npages || (size_t)(end - p) < e.bytes)
            dsm_fatal("malformed diff entry from node %d (page %lu)", src, (unsigned long)e.page);
        long n = dsm_diff_apply(dsm_rt(e.page), dsm.page_size, p, e.bytes);
        if (n < 0)
            dsm_fatal("malformed diff runs from node %d for page %lu", src, (unsigned long)e.page);
        STAT_ADD(diff_bytes_applied, (uint64_t)n);
        p += e.bytes;
    }
    net_send(src, OP_DIFF_ACK, &h->cookie, sizeof h->cookie, NULL, 0);
}

static void on_diff_ack(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    uint64_t cookie;
    memcpy(&cookie, body, sizeof cookie);
    net_wait_done((struct net_wait *)(uintptr_t)cookie);
}

void dsm_flush_register(void)
{
    net_register(OP_DIFF, on_diff);
    net_register(OP_DIFF_ACK, on_diff_ack);
}

/* ---- at the writer ------------------------------------------------------ */

/* Marks every page busy, so that faulting threads wait while it settles. */
static void mark_busy(const struct dsm_plist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        struct dsm_stripe *s = dsm_stripe(l->pages[i]);
        pthread_mutex_lock(&s->mu);
        while (dsm_flag(l->pages[i], PF_BUSY))
            pthread_cond_wait(&s->cv, &s->mu);
        dsm_flag_set(l->pages[i], PF_BUSY);
        pthread_mutex_unlock(&s->mu);
    }
}

/* Appends the page's diff to its home's batch, drops the twin, and lets the
 * page settle read-only. */
static void diff_one(uint64_t page, struct dsm_buf *batches, uint64_t *counts)
{
    struct dsm_stripe *s = dsm_stripe(page);
    pthread_mutex_lock(&s->mu);
    void *twin = dsm.twin[page];
    if (twin) {
        int home = dsm_home_of(page);
        struct dsm_buf *b = &batches[home];
        size_t at = b->n;
        struct diff_entry_hdr e = { .page = page, .bytes = 0 };
        dsm_buf_put(b, &e, sizeof e);
        e.bytes = (uint32_t)dsm_diff_encode(dsm_rt(page), twin, dsm.page_size, b);
        if (e.bytes) {
            memcpy(b->p + at, &e, sizeof e);
            counts[home]++;
        } else {
            b->n = at;
        }
        free(twin);
        dsm.twin[page] = NULL;
    }
    dsm.state[page] = PG_RO;
    dsm_flag_clear(page, PF_REL | PF_BUSY);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void send_batches(struct dsm_buf *batches, const uint64_t *counts)
{
    struct net_wait w;
    uint32_t homes = 0;
    for (int n = 0; n < dsm.nodes; n++)
        homes += counts[n] != 0;
    net_wait_init(&w, homes);
    for (int n = 0; n < dsm.nodes; n++) {
        if (!counts[n])
            continue;
        struct diff_hdr h = { .cookie = (uint64_t)(uintptr_t)&w, .count = counts[n] };
        net_send(n, OP_DIFF, &h, sizeof h, batches[n].p, batches[n].n);
        STAT_ADD(diffs_sent, counts[n]);
        STAT_ADD(diff_bytes_sent, batches[n].n);
    }
    net_wait(&w);
}

void dsm_release(struct dsm_plist *written)
{
    pthread_mutex_lock(&dsm.lists_mu);
    dsm_plist_take(&dsm.rel, written);
    pthread_mutex_unlock(&dsm.lists_mu);
    if (written->n == 0)
        return;
    dsm_plist_sort(written);
    mark_busy(written);
    dsm_protect_list(written->pages, written->n, PG_RO);

    struct dsm_buf *batches = calloc((size_t)dsm.nodes, sizeof *batches);
    uint64_t *counts = calloc((size_t)dsm.nodes, sizeof *counts);
    if (!batches || !counts)
        dsm_fatal("out of memory for diff batches");
    for (size_t i = 0; i < written->n; i++)
        diff_one(written->pages[i], batches, counts);
    send_batches(batches, counts);
    for (int n = 0; n < dsm.nodes; n++)
        dsm_buf_free(&batches[n]);
    free(batches);
    free(counts);
}
