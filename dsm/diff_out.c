/*
 * diff_out.c: the diffs of one release, per home, in messages of at most
 * CHUNK bytes, whose buffers come from the transport's pool of kept
 * buffers (net/msg_buf.c), the pool that a rendezvous receive takes its
 * buffer from too.
 *
 * Why.  A release that publishes whole arrays (NAS FT's transposes, 37 MB
 * per home at 2 nodes) needs as much buffer to encode into, and its home as
 * much to receive into.  Memory the process has not used before costs a
 * fault and a clear per page: 2.5 us on this machine's VMs, 7-12 us where
 * the VM itself never used it.  Each node kept one growing batch per home
 * and, apart, the buffers it had received into, so a node that had received
 * large diffs but never sent any (or the reverse) paid fresh pages all the
 * same: the first release in which a node sent FT's transposed half took
 * 250-410 ms, nine tenths of it clearing pages, and its home 160-190 ms more
 * to receive it.  Taken from one pool and given back to it, the buffers
 * serve both ways: a node that sent 75 MB in one release holds what it
 * needs to receive 75 MB in a later one.
 *
 * A home's first chunk is small (FIRST: most releases publish a few
 * pages), and each one after is twice as large as the one before, up to
 * CHUNK (37 MB go in 7 messages).  A chunk has room for the largest entry
 * before one is encoded, so the encoder never grows it.  A full chunk goes
 * out between two pages (dsm_diff_out_ship: not under a page's stripe
 * lock, which message handlers take under the transport lock), so that
 * the home applies it while the writer encodes the next.  The chunks go
 * back to the pool once their sends are done: at the end of a release
 * whose homes answer, or at the next release's start for posted ones
 * (read in place until then).
 */
#include "diff_out.h"

#include "diff.h"
#include "dsm.h"
#include "host_seg.h"
#include "proto.h"
#include "stats.h"
#include "../net/msg_buf.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <stdatomic.h>
#include <string.h>

enum { FIRST = 1 << 20, CHUNK = 8 << 20 };

struct chunk {
    char *p;
    size_t n, cap;
    uint64_t count;             /* entries */
};

/* A home's chunks of this release; the last one is being filled, the
 * others are on their way.  The first one is always `first`, kept from one
 * release to the next: a small block the C library would hand back to the
 * kernel at each free, and take fresh pages for at the next release. */
struct home_out {
    struct chunk *v;
    size_t n, cap;
    size_t shipped;             /* the chunks sent so far */
    char *first;
};

static struct {
    struct home_out *homes;     /* one per node */
    bool full;                  /* a home has a full chunk not sent yet */
    bool posted;                /* this release's chunks are posted */
    struct net_wait sent;       /* sends under way (posted ones: the last release's too) */
    struct net_wait applied;    /* acknowledged sends: the homes' answers to come */
} out;

/* Room for the most bytes one entry takes: its header and runs over the
 * whole page at 9 bytes a word (its mask and itself), with a run header
 * for each 9 words at the most, as two runs are at least 8 unchanged
 * words apart (diff.h): about 1.25 pages, within the 2 reserved. */
static size_t entry_max(void)
{
    return sizeof(struct diff_entry_hdr) + 2 * dsm.page_size + 64;
}

static void give_back(void)
{
    for (int n = 0; n < dsm.nodes; n++) {
        struct home_out *h = &out.homes[n];
        for (size_t i = 1; i < h->n; i++)
            msg_buf_put(h->v[i].p);
        h->n = h->shipped = 0;
    }
}

void dsm_diff_out_begin(bool posted)
{
    if (!out.homes)
        out.homes = xcalloc((size_t)dsm.nodes, sizeof *out.homes);
    net_wait(&out.sent);
    give_back();
    out.posted = posted;
}

/* Sends the home a chunk that is complete, unless it is empty.  Posted, it
 * is counted in the host segment first; otherwise the home answers. */
static void ship(int home, const struct chunk *c)
{
    if (!c->count)
        return;
    STAT_ADD(diffs_sent, c->count);
    STAT_ADD(diff_bytes_sent, c->n);
    struct batch_hdr h = { .cookie = 0, .count = c->count };
    if (out.posted) {
        atomic_fetch_add_explicit(host_seg_posted(dsm.node, home), 1, memory_order_release);
    } else {
        atomic_fetch_add(&out.applied.pending, 1);
        h.cookie = (uint64_t)(uintptr_t)&out.applied;
    }
    atomic_fetch_add(&out.sent.pending, 1);
    net_send_nocopy(home, OP_DIFF, &h, sizeof h, c->p, c->n, &out.sent);
}

/* The chunk to encode the home's next entry into, with room for it: after
 * a full one (sent by dsm_diff_out_ship) comes one twice as large, up to
 * CHUNK. */
static struct chunk *room(int home)
{
    struct home_out *h = &out.homes[home];
    size_t need = entry_max();
    struct chunk *c = h->n ? &h->v[h->n - 1] : NULL;
    if (c && c->cap - c->n >= need)
        return c;
    struct chunk next;
    if (!c) {
        size_t cap = FIRST > need ? FIRST : need;
        h->first = h->first ? h->first : xmalloc(cap);
        next = (struct chunk){ .p = h->first, .cap = cap };
    } else {
        size_t cap = 2 * c->cap < CHUNK ? 2 * c->cap : CHUNK;
        out.full = true;
        char *p = msg_buf_get(cap > need ? cap : need);
        next = (struct chunk){ .p = p, .cap = msg_buf_cap(p) };
    }
    h->v = xgrow(h->v, &h->cap, h->n + 1, sizeof *h->v);
    h->v[h->n] = next;
    return &h->v[h->n++];
}

bool dsm_diff_out_add(uint64_t page, const void *twin)
{
    struct chunk *c = room(dsm_home_of(page));
    struct dsm_buf b = { .p = c->p, .n = c->n, .cap = c->cap };
    struct diff_entry_hdr e = { .page = page, .bytes = 0 };
    dsm_buf_put(&b, &e, sizeof e);
    e.bytes = (uint32_t)dsm_diff_encode(dsm_rt(page), twin, dsm.page_size, &b);
    if (b.p != c->p)
        dsm_fatal("internal: the diff of page %lu outgrew its chunk", (unsigned long)page);
    if (!e.bytes)
        return false;
    memcpy(c->p + c->n, &e, sizeof e);
    c->n = b.n;
    c->count++;
    return true;
}

void dsm_diff_out_ship(void)
{
    if (!out.full)
        return;
    out.full = false;
    for (int n = 0; n < dsm.nodes; n++) {
        struct home_out *h = &out.homes[n];
        while (h->shipped + 1 < h->n)
            ship(n, &h->v[h->shipped++]);
    }
}

void dsm_diff_out_end(void)
{
    for (int n = 0; n < dsm.nodes; n++) {
        struct home_out *h = &out.homes[n];
        while (h->shipped < h->n)
            ship(n, &h->v[h->shipped++]);
    }
    out.full = false;
    if (out.posted)
        return;
    net_wait(&out.applied);
    net_wait(&out.sent);
    give_back();
}
