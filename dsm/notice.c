/*
 * notice.c: write notices pushed to every node between barriers, and the
 * flush that OpenMP's `flush` (and every fence in the program) performs.
 *
 * A barrier tells every node which pages the others wrote, and a lock's
 * grant tells its acquirer what earlier holders wrote.  A thread that spins
 * on a flag with `#pragma omp flush`, or on a counter another thread updates
 * under a critical section or with an atomic, takes part in neither: it
 * must learn of the writes some other way, and without asking a home at
 * every turn of its loop.  So every release outside a barrier pushes the
 * pages it published to every other node, where they wait in an inbox until
 * that node's next acquire (a flush, a lock acquisition) drops its copies of
 * them.  Reading a cached copy between two flushes costs nothing; a copy is
 * fetched again only when a notice says it changed.
 *
 *   flush     publish our writes (diffs acknowledged by the homes), push
 *             their notices and wait until every node has taken them, then
 *             drop the copies our own inbox names.  Because a flush returns
 *             only when every node holds its notices, any write a reader can
 *             see after that flush (a flag set next) reaches the reader after
 *             those notices: the reader's next flush drops the data's stale
 *             copy too.  Transitively, the same holds along chains of nodes.
 *             A reader that sees the flag without a fetch or an acquire (it
 *             is the flag's home, and the writer's diff lands in its copy)
 *             and reads the data with no flush between, as programs that
 *             forget the flush after the flag do, is served too: a flush's
 *             notice drops the clean copies it names (no write of the
 *             reader since its last release in them) as it arrives, before
 *             it is acknowledged.  Other copies wait for the reader's next
 *             acquire, and so do the notices of lock releases and atomics,
 *             which nobody waits for (dropping copies at each atomic made
 *             NAS IS 25 % slower at 2 nodes).
 *   lock release, and a release made inside an acquire
 *             push without waiting: the lock's grant orders its holders, the
 *             notices only make the writes visible to readers outside it.
 *   atomic at the home
 *             an atomic operation changes the home's copy only; the home
 *             pushes a notice for the page, so that a node that spins on a
 *             plain read of it sees the change (eventually, as on hardware).
 *
 * A flush in a loop that waits for a flag finds nothing to do again and
 * again; after two such flushes in quick succession it sleeps until
 * something arrives (a notice, a diff or an atomic applied here), for a
 * bounded time, so that a waiting node does not keep a CPU that the node
 * it waits for may need.
 *
 * Each notice carries the sender's barrier epoch.  A barrier invalidates
 * everything written before it, so notices of earlier epochs are dropped
 * (dsm_notice_prune, at each barrier); the inbox is also compacted to one
 * entry per page when it grows, so a node that never acquires (one waiting
 * in a barrier) keeps it bounded by the pages written.
 */
#include "dsm.h"
#include "host_seg.h"
#include "page_state.h"
#include "proto.h"
#include "stats.h"
#include "../net/net.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct entry {
    uint64_t page, epoch;
};

static struct {
    pthread_mutex_t mu;
    struct entry *v;
    size_t n, cap;
    size_t compact_at;            /* compact when n reaches it */
} inbox = { .mu = PTHREAD_MUTEX_INITIALIZER, .compact_at = 4096 };

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->page != y->page)
        return (x->page > y->page) - (x->page < y->page);
    return (x->epoch > y->epoch) - (x->epoch < y->epoch);
}

/* Sorts v[0..n), keeps one entry per page (its latest epoch) and drops those
 * older than epoch; returns the new length. */
static size_t squeeze(struct entry *v, size_t n, uint64_t epoch)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_entry);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].epoch < epoch)
            continue;
        if (out && v[out - 1].page == v[i].page)
            v[out - 1].epoch = v[i].epoch;
        else
            v[out++] = v[i];
    }
    return out;
}

/* Under inbox.mu. */
static void inbox_add(uint64_t page, uint64_t epoch)
{
    if (inbox.n == inbox.compact_at) {
        inbox.n = squeeze(inbox.v, inbox.n, __atomic_load_n(&dsm.epoch, __ATOMIC_RELAXED));
        if (2 * inbox.n > inbox.compact_at)
            inbox.compact_at *= 2;
    }
    inbox.v = xgrow(inbox.v, &inbox.cap, inbox.n + 1, sizeof *inbox.v);
    inbox.v[inbox.n++] = (struct entry){ .page = page, .epoch = epoch };
}

static void on_notice(int src, void *body, size_t len)
{
    struct notice_hdr *h = body;
    if (len != sizeof *h + h->count * sizeof(uint64_t))
        dsm_fatal("malformed write notice from node %d", src);
    const uint64_t *pages = (const uint64_t *)(h + 1);
    for (uint64_t i = 0; i < h->count; i++)
        if (pages[i] >= dsm.npages)
            dsm_fatal("write notice from node %d for page %lu, beyond the region", src,
                      (unsigned long)pages[i]);
    /* A flush's notice (the writer waits for it) drops what it can now;
     * the rest, and every other notice, waits in the inbox. */
    uint64_t *left = NULL;
    size_t n = h->count;
    if (h->cookie) {
        left = xcalloc(h->count, sizeof *left);
        bool hot = dsm_release_try_hold();
        n = dsm_drop_on_arrival(pages, h->count, h->epoch, hot, left);
        if (hot)
            dsm_release_resume();
        STAT_ADD(notices_applied, h->count - n);
        pages = left;
    }
    dsm_lock(&inbox.mu);
    for (size_t i = 0; i < n; i++)
        inbox_add(pages[i], h->epoch);
    dsm_unlock(&inbox.mu);
    free(left);
    dsm_notice_news();
    if (h->cookie)
        net_send_done(src, h->cookie);
}

void dsm_notice_register(void)
{
    net_register(OP_NOTICE, on_notice);
}

/* The pages of pages[0..n) a node must hear of: all but those it is home of
 * (a home's copy is the master, never dropped). */
static size_t for_node(int node, const uint64_t *pages, size_t n, uint64_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (dsm_home_known(pages[i]) != node)
            out[k++] = pages[i];
    return k;
}

void dsm_notice_push(const uint64_t *pages, size_t n, bool wait)
{
    if (n == 0 || dsm.nodes == 1)
        return;
    uint64_t *mine = xcalloc(n, sizeof *mine);
    struct net_wait w;
    net_wait_init(&w, 0);
    struct notice_hdr h = { .cookie = wait ? (uint64_t)(uintptr_t)&w : 0,
                            .epoch = __atomic_load_n(&dsm.epoch, __ATOMIC_RELAXED) };
    for (int node = 0; node < dsm.nodes; node++) {
        if (node == dsm.node || !(h.count = for_node(node, pages, n, mine)))
            continue;
        if (wait)
            atomic_fetch_add(&w.pending, 1);
        net_send(node, OP_NOTICE, &h, sizeof h, mine, h.count * sizeof *mine);
        STAT_ADD(notices_sent, h.count);
    }
    free(mine);
    if (wait)
        net_wait(&w);
}

/* A node's threads push one at a time, each until its notices are sent
 * (and queued everywhere, if it waits): a thread whose release finds
 * nothing left to publish, because another thread's took its pages, must
 * not go on (and set a flag) before those pages' notices are out. */
static pthread_mutex_t push_mu = PTHREAD_MUTEX_INITIALIZER;

size_t dsm_release_push(bool wait)
{
    struct dsm_plist written = { 0 };
    dsm_lock(&push_mu);
    dsm_release(&written, false);
    size_t n = written.n;
    dsm_notice_push(written.pages, written.n, wait);
    dsm_unlock(&push_mu);
    dsm_plist_free(&written);
    return n;
}

/* Appends the pages the inbox names to l and empties it; returns how
 * many notices it held (one per page). */
static size_t take_inbox(struct dsm_plist *l)
{
    dsm_lock(&inbox.mu);
    struct entry *v = inbox.v;
    size_t n = inbox.n ? squeeze(v, inbox.n, dsm.epoch) : 0;
    inbox.v = NULL;
    inbox.n = inbox.cap = 0;
    dsm_unlock(&inbox.mu);
    for (size_t i = 0; i < n; i++)
        dsm_plist_add(l, v[i].page);
    free(v);
    return n;
}

/* A lock's grant names what its earlier holders wrote, whose diffs were
 * at their homes before the lock was let go: those copies are refreshed
 * (dsm_acquire_copies).  The notices queued are dropped, as the holder's
 * pushed again (if not refreshed): another node may be writing their pages
 * now, and a copy refreshed meanwhile would keep its half-applied diff
 * past a flag that the node then reads (a flush's notices reach the
 * readers before the writer sets the flag, but a flag fetched after this
 * acquire is read without one).  Notices that arrive during the acquire
 * are applied too. */
size_t dsm_notice_apply(const uint64_t *granted, size_t k)
{
    net_poll();
    dsm_lock(&dsm.acquire_mu);
    struct dsm_plist g = { 0 }, l = { 0 };
    for (size_t i = 0; i < k; i++)
        dsm_plist_add(&g, granted[i]);
    dsm_plist_sort_unique(&g);
    size_t n = take_inbox(&l);
    dsm_plist_sort_unique(&l);
    size_t m = 0;
    for (size_t i = 0; i < l.n; i++)
        if (!dsm_plist_has(&g, l.pages[i]))
            l.pages[m++] = l.pages[i];
    l.n = m;
    dsm_acquire_copies(g.pages, g.n);
    dsm_drop_copies(l.pages, l.n);
    if (g.n + l.n) {
        l.n = 0;
        n += take_inbox(&l);
        dsm_plist_sort_unique(&l);
        dsm_drop_copies(l.pages, l.n);
    }
    dsm_unlock(&dsm.acquire_mu);
    dsm_plist_free(&g);
    dsm_plist_free(&l);
    STAT_ADD(notices_applied, n);
    return n;
}

void dsm_notice_prune(void)
{
    dsm_lock(&inbox.mu);
    inbox.n = squeeze(inbox.v, inbox.n, dsm.epoch);
    dsm_unlock(&inbox.mu);
}

/* ---- waiting in a spin loop --------------------------------------------- */

/* Bumped whenever something another node did may have changed what this
 * node reads: a notice queued, a diff or an atomic applied to a page it is
 * home of, a barrier released.  A flush that finds nothing to do sleeps on
 * it (below), and so does a barrier.  When the nodes share a host segment,
 * every node's word lives there, so that another node can ring it
 * (dsm_ring_sleeper); the futex operations are then the shared ones. */
static struct host_news own_news, *news = &own_news;
static int futex_private = FUTEX_PRIVATE_FLAG;

void dsm_news_init(void)
{
    if (host_seg_on()) {
        news = host_seg_news(dsm.node);
        futex_private = 0;
    }
}

static void ring(struct host_news *n)
{
    atomic_fetch_add(&n->gen, 1);
    if (atomic_load(&n->sleepers))
        syscall(SYS_futex, &n->gen, FUTEX_WAKE | futex_private, INT32_MAX, NULL, NULL, 0);
}

void dsm_notice_news(void)
{
    ring(news);
}

void dsm_ring_sleeper(int node)
{
    struct host_news *n = node == dsm.node ? news : host_seg_news(node);
    if (atomic_load(&n->sleepers))
        ring(n);
}

void dsm_ring_other_sleepers(int nodes)
{
    for (int n = 0; n < nodes; n++)
        if (n != dsm.node)
            dsm_ring_sleeper(n);
}

/* Per application thread: the state of the spin loop it may be in. */
static __thread struct {
    uint64_t last_end;            /* when its previous flush returned */
    bool last_idle;               /* that flush published and dropped nothing */
    unsigned wait_us;             /* the next wait, doubled while nothing comes */
} spin;

enum { SPIN_GAP_NS = 20000, WAIT_MIN_US = 8, WAIT_MAX_US = 512 };

uint32_t dsm_news(void)
{
    return atomic_load(&news->gen);
}

static bool news_since(const void *seen)
{
    return atomic_load(&news->gen) != *(const uint32_t *)seen;
}

/* ready, if not NULL, is checked again once the sleep is announced: a
 * waker that found no sleeper (dsm_ring_sleeper) made it true before. */
static bool sleep_on_news(uint32_t seen, unsigned timeout_us, bool (*ready)(void))
{
    struct timespec ts = { .tv_sec = timeout_us / 1000000u, .tv_nsec = (long)(timeout_us % 1000000u) * 1000 };
    atomic_fetch_add(&news->sleepers, 1);
    if (atomic_load(&news->gen) == seen && !(ready && ready()))
        syscall(SYS_futex, &news->gen, FUTEX_WAIT | futex_private, seen, &ts, NULL, 0);
    atomic_fetch_sub(&news->sleepers, 1);
    return atomic_load(&news->gen) != seen;
}

bool dsm_news_wait(uint32_t seen, unsigned timeout_us)
{
    /* News usually comes soon after the awaited write: progress the
     * transport here for a moment (as net_wait does) before sleeping. */
    return net_spin(news_since, &seen, 1) || sleep_on_news(seen, timeout_us, NULL);
}

struct news_or { uint32_t seen; bool (*ready)(void); };

static bool news_or_ready(const void *arg)
{
    const struct news_or *w = arg;
    return atomic_load_explicit(&news->gen, memory_order_relaxed) != w->seen || w->ready();
}

bool dsm_news_wait_or(uint32_t seen, unsigned timeout_us, bool (*ready)(void))
{
    struct news_or w = { seen, ready };
    return net_spin(news_or_ready, &w, 16) || sleep_on_news(seen, timeout_us, ready);
}

/* A thread that flushes again and again with nothing to publish and nothing
 * new (a loop waiting for a flag) would otherwise keep its CPU, which the
 * node it waits for may need.  It sleeps until news arrives instead, at
 * most wait_us, which doubles while nothing comes: never longer than a
 * flush may take, since flush only promises what a later flush sees.
 * Returns whether news came. */
static bool wait_for_news(uint32_t seen)
{
    if (!spin.wait_us)
        spin.wait_us = WAIT_MIN_US;
    bool came = dsm_news_wait(seen, spin.wait_us);
    spin.wait_us = came ? WAIT_MIN_US : (spin.wait_us < WAIT_MAX_US ? 2 * spin.wait_us : WAIT_MAX_US);
    return came;
}

/* The flush proper; returns whether it published or dropped nothing. */
static bool flush_once(void)
{
    dsm_flush_output();
    size_t published = dsm_release_push(true);
    size_t dropped = dsm_notice_apply(NULL, 0);
    dsm_drop_suspects();
    return !published && !dropped;
}

void dsm_flush(void)
{
    uint64_t t0 = dsm_now_ns();
    uint32_t seen = atomic_load(&news->gen);
    bool idle = flush_once();
    if (idle && spin.last_idle && t0 - spin.last_end < SPIN_GAP_NS && wait_for_news(seen)) {
        dsm_notice_apply(NULL, 0);
        dsm_drop_suspects();
        idle = false;
    }
    spin.last_idle = idle;
    spin.last_end = dsm_now_ns();
    STAT_ADD(flushes, 1);
    STAT_ADD(flush_ns, spin.last_end - t0);
}

void dsm_flush_no_wait(void)
{
    uint64_t t0 = dsm_now_ns();
    flush_once();
    STAT_ADD(flushes, 1);
    STAT_ADD(flush_ns, dsm_now_ns() - t0);
}
