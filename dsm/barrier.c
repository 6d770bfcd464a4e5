/*
 * barrier.c: the global barrier and the invalidation it implies.
 *
 * A barrier is a release followed by an acquire of all shared memory:
 *   1. every node flushes its diffs to the homes (dsm_release);
 *   2. it sends node 0 the pages it wrote since the previous barrier;
 *   3. node 0, once every node has arrived, merges the lists into write
 *      notices (page, writer, or -1 when several nodes wrote the page) and
 *      sends them to every node;
 *   4. every node invalidates its cached copies of pages that others wrote.
 * Because each node's diffs are acknowledged before it arrives, every home
 * is up to date when the notices go out.
 *
 * A node may attach a payload to its arrival; the release carries every
 * payload, concatenated in arrival order, to every node.  The OpenMP layer
 * sends the next parallel region this way from node 0 (starting a region
 * costs one barrier); home migration gathers every node's moves.
 *
 * Node 0 collects arrivals in two slots, chosen by the barrier's epoch: a
 * fast node may arrive at barrier e+1 before a slow one has left barrier e,
 * but never at e+2.
 */
#include "dsm.h"
#include "log.h"
#include "net.h"
#include "proto.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

/* ---- node 0: gathering arrivals ----------------------------------------- */

struct slot {
    pthread_mutex_t mu;
    int arrived;
    struct bar_notice *notes;
    size_t n, cap;
    void *payload;
    size_t payload_len;
};

static struct slot slots[2] = { { .mu = PTHREAD_MUTEX_INITIALIZER }, { .mu = PTHREAD_MUTEX_INITIALIZER } };

static int cmp_notice(const void *a, const void *b)
{
    const struct bar_notice *x = a, *y = b;
    if (x->page != y->page)
        return (x->page > y->page) - (x->page < y->page);
    return (x->writer > y->writer) - (x->writer < y->writer);
}

/* Sorts the notices and folds several writers of one page into writer -1. */
static size_t merge_notices(struct bar_notice *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_notice);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && v[out - 1].page == v[i].page) {
            if (v[out - 1].writer != v[i].writer)
                v[out - 1].writer = -1;
        } else {
            v[out++] = v[i];
        }
    }
    return out;
}

static void *xmemdup(const void *p, size_t len)
{
    void *q = malloc(len ? len : 1);
    if (!q)
        dsm_fatal("out of memory for a barrier message");
    memcpy(q, p, len);
    return q;
}

static void broadcast_release(struct slot *s, uint64_t epoch)
{
    struct bar_hdr rel = { .epoch = epoch, .count = merge_notices(s->notes, s->n), .payload = s->payload_len };
    size_t nbytes = rel.count * sizeof *s->notes;
    char *body = malloc(nbytes + rel.payload + 1);
    if (!body)
        dsm_fatal("out of memory for a barrier release");
    memcpy(body, s->notes, nbytes);
    if (rel.payload)
        memcpy(body + nbytes, s->payload, rel.payload);
    for (int n = 0; n < dsm.nodes; n++)
        net_send(n, OP_BAR_RELEASE, &rel, sizeof rel, body, nbytes + rel.payload);
    free(body);
    free(s->payload);
    s->payload = NULL;
    s->payload_len = 0;
    s->arrived = 0;
    s->n = 0;
}

static void on_arrive(int src, void *body, size_t len)
{
    struct bar_hdr *h = body;
    if (len != sizeof *h + h->count * sizeof(uint64_t) + h->payload)
        dsm_fatal("malformed barrier arrival from node %d", src);
    const uint64_t *pages = (const uint64_t *)(h + 1);
    struct slot *s = &slots[h->epoch & 1];
    pthread_mutex_lock(&s->mu);
    if (h->payload) {
        s->payload = realloc(s->payload, s->payload_len + h->payload);
        if (!s->payload)
            dsm_fatal("out of memory for a barrier payload");
        memcpy((char *)s->payload + s->payload_len, pages + h->count, h->payload);
        s->payload_len += h->payload;
    }
    if (s->n + h->count > s->cap) {
        s->cap = s->n + h->count + 1024;
        s->notes = realloc(s->notes, s->cap * sizeof *s->notes);
        if (!s->notes)
            dsm_fatal("out of memory for barrier notices");
    }
    for (uint64_t i = 0; i < h->count; i++)
        s->notes[s->n++] = (struct bar_notice){ .page = pages[i], .writer = src };
    if (++s->arrived == dsm.nodes) {
        broadcast_release(s, h->epoch);
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- every node: waiting for the release -------------------------------- */

static struct {
    struct net_wait w;
    struct bar_notice *notes;
    size_t n;
    void *payload;
    size_t payload_len;
} pending;

static void on_release(int src, void *body, size_t len)
{
    struct bar_hdr *h = body;
    if (len != sizeof *h + h->count * sizeof(struct bar_notice) + h->payload)
        dsm_fatal("malformed barrier release from node %d", src);
    if (h->epoch != dsm.epoch)
        dsm_fatal("barrier release for epoch %lu while at %lu", (unsigned long)h->epoch,
                  (unsigned long)dsm.epoch);
    pending.n = h->count;
    pending.notes = xmemdup(h + 1, h->count * sizeof *pending.notes);
    pending.payload_len = h->payload;
    pending.payload = h->payload ? xmemdup((char *)(h + 1) + h->count * sizeof *pending.notes, h->payload) : NULL;
    net_wait_done(&pending.w);
}

void dsm_barrier_register(void)
{
    net_register(OP_BAR_ARRIVE, on_arrive);
    net_register(OP_BAR_RELEASE, on_release);
}

static void apply_notices(void)
{
    uint64_t *pages = malloc(pending.n * sizeof *pages + 1);
    int32_t *writers = malloc(pending.n * sizeof *writers + 1);
    if (!pages || !writers)
        dsm_fatal("out of memory for barrier notices");
    for (size_t i = 0; i < pending.n; i++) {
        pages[i] = pending.notes[i].page;
        writers[i] = pending.notes[i].writer;
    }
    dsm_invalidate(pages, writers, pending.n);
    free(pages);
    free(writers);
    free(pending.notes);
    pending.notes = NULL;
}

/* Takes the list of pages written since the previous barrier. */
static void take_bar_list(struct dsm_plist *out)
{
    pthread_mutex_lock(&dsm.lists_mu);
    dsm_plist_take(&dsm.bar, out);
    for (size_t i = 0; i < out->n; i++)
        dsm_flag_clear(out->pages[i], PF_BAR);
    pthread_mutex_unlock(&dsm.lists_mu);
}

static void *barrier(const void *payload, size_t plen, size_t *out_len)
{
    uint64_t t0 = dsm_now_ns();
    struct dsm_plist rel = { 0 }, bar = { 0 };
    dsm_release(&rel);
    dsm_plist_free(&rel);
    take_bar_list(&bar);

    net_wait_init(&pending.w, 1);
    size_t nbytes = bar.n * sizeof *bar.pages;
    struct bar_hdr h = { .epoch = dsm.epoch, .count = bar.n, .payload = plen };
    char *body = malloc(nbytes + plen + 1);
    if (!body)
        dsm_fatal("out of memory for a barrier arrival");
    if (nbytes)
        memcpy(body, bar.pages, nbytes);
    if (plen)
        memcpy(body + nbytes, payload, plen);
    net_send(0, OP_BAR_ARRIVE, &h, sizeof h, body, nbytes + plen);
    free(body);
    dsm_plist_free(&bar);
    net_wait(&pending.w);
    apply_notices();
    dsm_drop_suspects();
    dsm.epoch++;
    STAT_ADD(barriers, 1);
    STAT_ADD(barrier_wait_ns, dsm_now_ns() - t0);
    if (out_len)
        *out_len = pending.payload_len;
    void *p = pending.payload;
    pending.payload = NULL;
    if (!out_len)
        free(p);
    return out_len ? p : NULL;
}

void dsm_barrier(void)
{
    barrier(NULL, 0, NULL);
}

void *dsm_barrier_bcast(const void *payload, size_t len, size_t *out_len)
{
    return barrier(payload, dsm.node == 0 ? len : 0, out_len);
}

void *dsm_barrier_gather(const void *payload, size_t len, size_t *out_len)
{
    return barrier(payload, len, out_len);
}
