/*
 * lock.c: distributed locks whose grant carries write notices.
 *
 * A lock is named by a space and a key (enum dsm_lock_space in dsm.h).
 * Each lock has a manager node (a hash of its name).  The manager keeps, per
 * lock, a FIFO queue of waiting nodes and the write notices of the holders
 * since the last barrier: a list of (page, last writer or -1 for several,
 * sequence number), sorted by page.  Each node's sequence number of the last
 * grant it received says which notices it has already seen.
 *
 *   acquire   LOCK_ACQ → manager; queued; when the lock is free the manager
 *             grants it with the notices this node has not seen and did not
 *             write alone; the acquirer invalidates those pages.
 *   release   flush diffs to the homes (acknowledged), push their notices to
 *             every node (notice.c, for readers outside the lock), then LOCK_REL with
 *             the pages written since this lock was acquired → manager,
 *             which merges them into the notices and grants the next
 *             waiter, and acknowledges it (the releaser does not wait,
 *             but a barrier waits for every acknowledgement first:
 *             dsm_lock_settle).  With nested locks, an inner lock's acquire or
 *             release flushes pages written under the outer one; the
 *             node's lock log (dsm.lock_log) keeps them for the outer
 *             lock's release.
 *
 * Notices older than the acquirer's barrier epoch are dropped: that barrier
 * already told every node about them.
 */
#include "dsm.h"
#include "proto.h"
#include "stats.h"
#include "../net/net.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct notice {
    uint64_t page, seq;
    int32_t writer;
};

struct lock {
    uint64_t key;
    uint32_t space;
    struct lock *next;            /* hash chain */
    bool held;
    int *queue;                   /* waiting nodes, FIFO ring */
    size_t qhead, qlen;
    struct notice *notes;
    size_t n, cap;
    uint64_t epoch;               /* of the notices kept */
    uint64_t seq;
    uint64_t *seen;               /* per node: seq of its last grant */
    uint64_t *cookie;             /* per node: its pending request */
};

#define LOCK_BUCKETS 1024

static struct {
    pthread_mutex_t mu;
    struct lock *buckets[LOCK_BUCKETS];
} mgr = { .mu = PTHREAD_MUTEX_INITIALIZER };

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static uint64_t hash_of(uint32_t space, uint64_t key)
{
    return mix(key ^ (space * 0x9e3779b97f4a7c15ULL));
}

static int manager_of(uint32_t space, uint64_t key)
{
    return (int)(hash_of(space, key) % (uint64_t)dsm.nodes);
}

static struct lock *lookup(uint32_t space, uint64_t key)
{
    struct lock **b = &mgr.buckets[hash_of(space, key) / (uint64_t)dsm.nodes % LOCK_BUCKETS];
    for (struct lock *l = *b; l; l = l->next)
        if (l->key == key && l->space == space)
            return l;
    struct lock *l = xcalloc(1, sizeof *l);
    l->key = key;
    l->space = space;
    l->queue = xcalloc((size_t)dsm.nodes, sizeof *l->queue);
    l->seen = xcalloc((size_t)dsm.nodes, sizeof *l->seen);
    l->cookie = xcalloc((size_t)dsm.nodes, sizeof *l->cookie);
    l->next = *b;
    *b = l;
    return l;
}

/* ---- at the manager ----------------------------------------------------- */

static void forget_before(struct lock *l, uint64_t epoch)
{
    if (epoch > l->epoch) {
        l->n = 0;
        l->epoch = epoch;
    }
}

static void grant(struct lock *l, int node)
{
    uint64_t *pages = xcalloc(l->n, sizeof *pages);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->notes[i].seq > l->seen[node] && l->notes[i].writer != node)
            pages[k++] = l->notes[i].page;
    l->seen[node] = l->seq;
    l->held = true;
    struct lock_grant g = { .cookie = l->cookie[node], .count = k };
    net_send(node, OP_LOCK_GRANT, &g, sizeof g, pages, k * sizeof *pages);
    free(pages);
}

/* Merges a sorted list of pages written by `writer` into the notices. */
static void merge(struct lock *l, const uint64_t *pages, size_t n, int writer)
{
    struct notice *out = xcalloc(l->n + n, sizeof *out);
    size_t i = 0, j = 0, k = 0;
    l->seq++;
    while (i < l->n || j < n) {
        if (j == n || (i < l->n && l->notes[i].page < pages[j])) {
            out[k++] = l->notes[i++];
        } else if (i == l->n || pages[j] < l->notes[i].page) {
            out[k++] = (struct notice){ .page = pages[j++], .seq = l->seq, .writer = writer };
        } else {
            out[k] = l->notes[i++];
            out[k].seq = l->seq;
            if (out[k].writer != writer)
                out[k].writer = -1;
            k++;
            j++;
        }
    }
    free(l->notes);
    l->notes = out;
    l->n = k;
}

/* A request with count == TRY_LOCK is answered at once: a grant, or a
 * refusal (count == REFUSED) when the lock is held. */
#define TRY_LOCK 1
#define REFUSED UINT64_MAX

static void on_acquire(int src, void *body, size_t len)
{
    (void)len;
    struct lock_req *r = body;
    dsm_lock(&mgr.mu);
    struct lock *l = lookup(r->space, r->key);
    forget_before(l, r->epoch);
    l->cookie[src] = r->cookie;
    if (!l->held) {
        grant(l, src);
    } else if (r->count == TRY_LOCK) {
        struct lock_grant g = { .cookie = r->cookie, .count = REFUSED };
        net_send(src, OP_LOCK_GRANT, &g, sizeof g, NULL, 0);
    } else {
        l->queue[(l->qhead + l->qlen++) % (size_t)dsm.nodes] = src;
    }
    dsm_unlock(&mgr.mu);
}

static void on_release(int src, void *body, size_t len)
{
    struct lock_req *r = body;
    if (len != sizeof *r + r->count * sizeof(uint64_t))
        dsm_fatal("malformed lock release from node %d", src);
    dsm_lock(&mgr.mu);
    struct lock *l = lookup(r->space, r->key);
    if (!l->held)
        dsm_fatal("node %d released lock %u:%#lx, which nobody holds", src, (unsigned)r->space,
                  (unsigned long)r->key);
    forget_before(l, r->epoch);
    merge(l, (const uint64_t *)(r + 1), r->count, src);
    l->held = false;
    if (l->qlen) {
        int next = l->queue[l->qhead];
        l->qhead = (l->qhead + 1) % (size_t)dsm.nodes;
        l->qlen--;
        grant(l, next);
    }
    dsm_unlock(&mgr.mu);
    net_send_done(src, r->cookie);
}

/* ---- at the acquirer ---------------------------------------------------- */

struct grant_wait {
    struct net_wait w;
    uint64_t *pages;
    size_t n;
    bool refused;
};

static void on_grant(int src, void *body, size_t len)
{
    struct lock_grant *g = body;
    if (g->count != REFUSED && len != sizeof *g + g->count * sizeof(uint64_t))
        dsm_fatal("malformed lock grant from node %d", src);
    struct grant_wait *gw = (struct grant_wait *)(uintptr_t)g->cookie;
    if (g->count == REFUSED) {
        gw->refused = true;
        net_wait_done(&gw->w);
        return;
    }
    gw->n = g->count;
    gw->pages = xcalloc(g->count, sizeof *gw->pages);
    memcpy(gw->pages, g + 1, g->count * sizeof *gw->pages);
    net_wait_done(&gw->w);
}

void dsm_lock_register(void)
{
    net_register(OP_LOCK_ACQ, on_acquire);
    net_register(OP_LOCK_REL, on_release);
    net_register(OP_LOCK_GRANT, on_grant);
}

/* Locks this node holds, with the length of the lock log when each was
 * acquired. */
static struct held {
    uint64_t key;
    uint32_t space;
    size_t log_start;
} held[64];

static void remember(uint32_t space, uint64_t key)
{
    if (dsm.locks_held == (int)(sizeof held / sizeof *held))
        dsm_fatal("more than %zu locks held at once by one node", sizeof held / sizeof *held);
    dsm_lock(&dsm.lists_mu);
    held[dsm.locks_held++] = (struct held){ .key = key, .space = space, .log_start = dsm.lock_log.n };
    dsm_unlock(&dsm.lists_mu);
}

/* The pages written since the lock was acquired, sorted and unique; forgets
 * the lock (and the log, once no lock is held). */
static void forget(uint32_t space, uint64_t key, struct dsm_plist *out)
{
    dsm_lock(&dsm.lists_mu);
    int i = dsm.locks_held - 1;
    while (i >= 0 && (held[i].key != key || held[i].space != space))
        i--;
    if (i < 0)
        dsm_fatal("release of lock %u:%#lx, which this node does not hold", (unsigned)space,
                  (unsigned long)key);
    for (size_t k = held[i].log_start; k < dsm.lock_log.n; k++)
        dsm_plist_add(out, dsm.lock_log.pages[k]);
    held[i] = held[--dsm.locks_held];
    if (!dsm.locks_held)
        dsm.lock_log.n = 0;
    dsm_unlock(&dsm.lists_mu);
    dsm_plist_sort_unique(out);
}

static bool acquire(uint32_t space, uint64_t key, bool try_only)
{
    uint64_t t0 = dsm_now_ns();
    struct grant_wait gw = { 0 };
    net_wait_init(&gw.w, 1);
    struct lock_req r = { .cookie = (uint64_t)(uintptr_t)&gw, .key = key, .epoch = dsm.epoch,
                          .count = try_only ? TRY_LOCK : 0, .space = space };
    net_send(manager_of(space, key), OP_LOCK_ACQ, &r, sizeof r, NULL, 0);
    net_wait(&gw.w);
    if (gw.refused)
        return false;
    dsm_notice_apply(gw.pages, gw.n);   /* with the notices queued */
    dsm_drop_suspects();
    free(gw.pages);
    remember(space, key);
    STAT_ADD(locks, 1);
    STAT_ADD(lock_wait_ns, dsm_now_ns() - t0);
    return true;
}

/* The node's threads take a lock among themselves first (node_lock.c). */
void dsm_lock_acquire(enum dsm_lock_space space, uint64_t key)
{
    dsm_node_lock(space, key);
    acquire(space, key, false);
}

bool dsm_lock_try(enum dsm_lock_space space, uint64_t key)
{
    if (!dsm_node_trylock(space, key))
        return false;
    if (acquire(space, key, true))
        return true;
    dsm_node_unlock(space, key);
    return false;
}

/* The releases sent whose managers have not acknowledged them yet. */
static struct net_wait unsettled;

void dsm_lock_release(enum dsm_lock_space space, uint64_t key)
{
    dsm_flush_output();
    struct dsm_plist written = { 0 };
    dsm_release_push(false);
    forget(space, key, &written);
    atomic_fetch_add(&unsettled.pending, 1);
    struct lock_req r = { .cookie = (uint64_t)(uintptr_t)&unsettled, .key = key, .epoch = dsm.epoch,
                          .count = written.n, .space = space };
    net_send(manager_of(space, key), OP_LOCK_REL, &r, sizeof r, written.pages,
             written.n * sizeof *written.pages);
    dsm_plist_free(&written);
    dsm_node_unlock(space, key);
}

void dsm_lock_settle(void)
{
    if (atomic_load(&unsettled.pending))
        net_wait(&unsettled);
}
