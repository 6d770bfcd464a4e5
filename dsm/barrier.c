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
 * is up to date when the notices go out; on one host, where they are only
 * posted, every node waits until the homes have applied them all before it
 * applies the notices (dsm_wait_applied).
 *
 * A node may attach a payload to its arrival; the release carries every
 * payload, concatenated in arrival order, to every node.  The OpenMP layer
 * sends the next parallel region this way from node 0 (starting a region
 * costs one barrier); home migration gathers every node's moves.  A number
 * each node adds (dsm_barrier_sum) rides in the header itself, so that a
 * barrier which also counts, as every end of a loop does for migration,
 * costs what a plain one does.
 *
 * An upper layer may also ride on every barrier (dsm_barrier_extra): what
 * its provider returns at a node's arrival reaches its consumer on every
 * node at the release, all nodes' data together.  The OpenMP layer sends
 * loop timings this way, so every node sees the same timings at the same
 * barrier.
 *
 * A node that has arrived may still work while it waits (the OpenMP
 * layer runs tasks other nodes created, dsm_barrier_work): the pages that
 * work writes reach node 0 as an update of its arrival (OP_BAR_UPDATE)
 * before the work is reported done, and so before the node that waited for
 * it can arrive; the release therefore announces them too.
 *
 * Node 0 collects arrivals in two slots, chosen by the barrier's epoch: a
 * fast node may arrive at barrier e+1 before a slow one has left barrier e,
 * but never at e+2.
 *
 * Nodes on one host.  When the nodes share a host segment (host_seg.h),
 * a node writes its arrival into its box instead of a message and rings
 * the members whose threads sleep, and every member reads every box: once
 * all arrivals are in, each node completes the barrier on its own, merging
 * the notices and joining the payloads as node 0 would (in the order of
 * the nodes).  No message, no progress thread, and no wait for node 0 to
 * run: a barrier costs one pass of the arrivals' lines between the caches.
 * Node 0 still releases the barrier, through each member's release box,
 * when the boxes do not tell all: an arrival too big for its box (it goes
 * by message, and the box says so), one that grew after it was written
 * (dsm_barrier_update), or more notices than every node should merge.
 * The boxes alternate with the epoch's parity, as the slots do, for the
 * same reason; a node writes its box of e + 2 only once every node that
 * read its box of e has (a member of e may sit out e + 1, in a smaller
 * team, and read late); a release box per member, since such a member may
 * take its release late too (dsm/PROTOCOL.md).
 *
 * Groups.  An OpenMP team smaller than the job runs on nodes 0 .. k-1, and
 * its barriers are among those nodes only (dsm_barrier_group): the other
 * nodes are idle, their progress threads serve pages, diffs, locks and
 * atomics, but they take no part.  They miss the write notices of those
 * barriers, so node 0 keeps them (missed) and hands them over, with the
 * epoch the group reached, when it wakes the idle nodes
 * (dsm_barrier_wake_idle); each applies them before it does anything else
 * (dsm_barrier_idle_wait).  An idle node touches no shared page while it
 * waits, so the copies it still holds cannot be read stale, and a lock's
 * notices dropped meanwhile (older than the group's epoch) reach it this
 * way too.
 */
#include "diff.h"
#include "dsm.h"
#include "host_seg.h"
#include "page_state.h"
#include "proto.h"
#include "stats.h"
#include "../net/net.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ---- node 0: gathering arrivals ----------------------------------------- */

/* The call a node makes a barrier with.  Every node of a barrier makes
 * the same one; a node that makes another is at another barrier of the
 * program (dsm_barrier_bcast and dsm_barrier_gather are each the other
 * side's too). */
enum bar_kind { BAR_PLAIN = 1, BAR_BCAST, BAR_GATHER, BAR_SUM };

/* An arrival box's header flag: the arrival is too big for the box and
 * went to node 0 by message; the box holds the header only. */
enum { BAR_BY_MESSAGE = 1 };

static const char *kind_name(uint32_t kind)
{
    return kind == BAR_PLAIN ? "barrier" : kind == BAR_BCAST ? "broadcast" : kind == BAR_GATHER ? "gather"
           : kind == BAR_SUM ? "sum" : "?";
}

static _Noreturn void different_barriers(int a, uint32_t kind_a, int b, uint32_t kind_b, uint64_t epoch)
{
    dsm_fatal("node %d arrived at barrier %lu with a %s, node %d with a %s: the nodes are at different "
              "barriers of the program (every thread of a team must meet the same barriers and "
              "worksharing constructs, in the same order)", a, (unsigned long)epoch, kind_name(kind_a), b,
              kind_name(kind_b));
}

struct slot {
    pthread_mutex_t mu;
    int arrived;
    int first;                  /* the node that arrived first */
    uint64_t members;           /* the group of the barrier being gathered */
    uint32_t kind;
    uint64_t sum;
    struct bar_notice *notes;
    size_t n, cap;
    struct dsm_buf payload, extra;
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
    if (n > 1)   /* v is NULL while no node has sent a notice, and qsort's must not be */
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

/* Node 0: the notices of the group barriers since the idle nodes were last
 * woken, the same for every idle node (the group is nodes 0 .. k-1). */
static struct {
    pthread_mutex_t mu;
    struct bar_notice *v;
    size_t n, cap;
} missed = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void keep_missed(const struct bar_notice *notes, size_t n)
{
    if (n == 0)     /* notes may be NULL, and memcpy's arguments must not be */
        return;
    dsm_lock(&missed.mu);
    missed.v = xgrow(missed.v, &missed.cap, missed.n + n, sizeof *missed.v);
    memcpy(missed.v + missed.n, notes, n * sizeof *notes);
    missed.n += n;
    dsm_unlock(&missed.mu);
}

/* Fills a box of the host segment with a barrier message's header and
 * body, the bytes the message would carry, and publishes it for the
 * header's epoch. */
static void box_put(struct host_box *box, const struct bar_hdr *h, const struct dsm_buf *body)
{
    memcpy(box->data, h, sizeof *h);
    if (body->n)
        memcpy(box->data + sizeof *h, body->p, body->n);
    box->len = sizeof *h + body->n;
    atomic_store(&box->seq, h->epoch + 1);       /* seq_cst: before the load of sleepers */
}

/* Writes the release into each member's release box of the host segment
 * and wakes the members that sleep; false if there is no segment or the
 * release does not fit. */
static bool publish_release(const struct bar_hdr *rel, const struct dsm_buf *body)
{
    if (!host_seg_on() || sizeof *rel + body->n > host_seg_release_cap())
        return false;
    for (int n = 0; n < (int)rel->members; n++)
        box_put(host_seg_release(n, rel->epoch), rel, body);
    for (int n = 0; n < (int)rel->members; n++)
        dsm_ring_sleeper(n);
    return true;
}

/* A box's header and the barrier header after it fill one cache line: a
 * node reads another's arrival with one miss. */
_Static_assert(sizeof(struct host_box) + sizeof(struct bar_hdr) <= 64, "a barrier box's header spans two lines");

/* A payload or extra of the barrier's header (32 bits). */
static uint32_t hdr_len(size_t len, const char *what)
{
    if (len > UINT32_MAX)
        dsm_fatal("internal: a barrier's %s of %zu bytes", what, len);
    return (uint32_t)len;
}

static void broadcast_release(struct slot *s, uint64_t epoch)
{
    struct bar_hdr rel = { .epoch = epoch, .count = merge_notices(s->notes, s->n),
                           .payload = hdr_len(s->payload.n, "payload"), .extra = hdr_len(s->extra.n, "extra"),
                           .sum = s->sum, .members = (uint32_t)s->members, .kind = s->kind };
    if (s->members < (uint64_t)dsm.nodes)
        keep_missed(s->notes, rel.count);
    struct dsm_buf body = { 0 };
    dsm_buf_put(&body, s->notes, rel.count * sizeof *s->notes);
    dsm_buf_put(&body, s->payload.p, s->payload.n);
    dsm_buf_put(&body, s->extra.p, s->extra.n);
    if (!publish_release(&rel, &body))
        for (int n = 0; n < (int)s->members; n++)
            net_send(n, OP_BAR_RELEASE, &rel, sizeof rel, body.p, body.n);
    dsm_buf_free(&body);
    s->payload.n = 0;
    s->extra.n = 0;
    s->arrived = 0;
    s->n = 0;
    s->sum = 0;
}

/* Adds the pages a node wrote to the slot's notices (slot lock held). */
static void add_notices(struct slot *s, const uint64_t *pages, uint64_t count, int writer)
{
    s->notes = xgrow(s->notes, &s->cap, s->n + count, sizeof *s->notes);
    for (uint64_t i = 0; i < count; i++)
        s->notes[s->n++] = (struct bar_notice){ .page = pages[i], .writer = writer };
}

/* Node 0: a node's arrival, from its message or its box. */
static void arrive(int src, const void *body, size_t len)
{
    const struct bar_hdr *h = body;
    if (len != sizeof *h + h->count * sizeof(uint64_t) + h->payload + h->extra)
        dsm_fatal("malformed barrier arrival from node %d", src);
    const uint64_t *pages = (const uint64_t *)(h + 1);
    struct slot *s = &slots[h->epoch & 1];
    dsm_lock(&s->mu);
    if (h->members < 1 || h->members > (uint64_t)dsm.nodes || src >= (int)h->members ||
        (s->arrived && h->members != s->members))
        dsm_fatal("internal: node %d arrived at barrier %lu of %lu nodes, node 0 gathers one of %lu", src,
                  (unsigned long)h->epoch, (unsigned long)h->members, (unsigned long)s->members);
    if (s->arrived && h->kind != s->kind)
        different_barriers(s->first, s->kind, src, h->kind, h->epoch);
    if (!s->arrived) {
        s->first = src;
        s->kind = h->kind;
    }
    s->members = h->members;
    s->sum += h->sum;
    dsm_buf_put(&s->payload, pages + h->count, h->payload);
    dsm_buf_put(&s->extra, (const char *)(pages + h->count) + h->payload, h->extra);
    add_notices(s, pages, h->count, src);
    if (++s->arrived == (int)s->members)
        broadcast_release(s, h->epoch);
    dsm_unlock(&s->mu);
}

static void on_arrive(int src, void *body, size_t len)
{
    arrive(src, body, len);
}

/* Pages a node wrote after it arrived (it ran tasks while it waited): they
 * join the notices of the barrier it waits in, which cannot have been
 * released yet (see dsm_barrier_update). */
static void on_update(int src, void *body, size_t len)
{
    struct notice_hdr *h = body;
    if (len != sizeof *h + h->count * sizeof(uint64_t))
        dsm_fatal("malformed barrier update from node %d", src);
    const uint64_t *pages = (const uint64_t *)(h + 1);
    struct slot *s = &slots[h->epoch & 1];
    dsm_lock(&s->mu);
    add_notices(s, pages, h->count, src);
    dsm_unlock(&s->mu);
    net_send_done(src, h->cookie);
}

/* ---- every node: waiting for the release -------------------------------- */

/* The nodes that take part in barriers: 0 .. group-1; 0 means all. */
static int group;

void dsm_barrier_group(int k)
{
    if (k < 1 || k > dsm.nodes)
        dsm_fatal("internal: a barrier group of %d nodes in a job of %d", k, dsm.nodes);
    group = k == dsm.nodes ? 0 : k;
}

int dsm_barrier_group_size(void)
{
    return group ? group : dsm.nodes;
}

static struct {
    struct net_wait w;
    struct bar_notice *notes;
    size_t n;
    void *payload, *extra;
    size_t payload_len, extra_len;
    uint64_t sum;
} pending;

static struct {
    void *(*provide)(size_t *len);
    void (*consume)(const void *data, size_t len);
} extra;

/* What a node may do while it waits for a release (dsm_barrier_work). */
static struct {
    bool (*wanted)(void);
    bool (*work)(void);
} idle;

void dsm_barrier_work(bool (*wanted)(void), bool (*work)(void))
{
    idle.wanted = wanted;
    idle.work = work;
}

/* dsm_barrier_arrived(): set once the arrival is sent, cleared once the
 * release has come, before the barrier's acquire. */
static _Atomic uint64_t arrived_at;

uint64_t dsm_barrier_arrived(void)
{
    return atomic_load(&arrived_at);
}

/* ---- nodes on one host: every node reads every arrival ------------------ */

/* The last barrier this node completed. */
static struct {
    uint64_t epoch;
    uint32_t members;
} last;

/* Before this node writes barrier `epoch`'s arrival into its box: the box
 * holds its arrival at an earlier barrier X (epoch - 2 or older), which
 * every member of X reads when it completes X on its own.  The members of
 * this node's last barrier, if later than X, have done so before they
 * arrived at it; a node that sat out every barrier since X (a smaller
 * team) may not have yet, and is waited for. */
static void wait_box_readers(struct host_box *box)
{
    uint64_t seq = atomic_load_explicit(&box->seq, memory_order_relaxed);
    if (!seq)
        return;
    const struct bar_hdr *old = (const struct bar_hdr *)box->data;
    uint32_t from = last.epoch + 1 > seq ? last.members : 0;
    for (uint32_t r = from; r < old->members; r++) {
        if ((int)r == dsm.node)
            continue;
        struct host_news *n = host_seg_news((int)r);
        while (atomic_load_explicit(&n->done, memory_order_acquire) < seq)
            sched_yield();
    }
}

/* Sends this node's arrival: into its box of the host segment, ringing the
 * members that sleep; one too big for the box goes to node 0 by message,
 * and the box says so.  Without the segment, by message. */
static void publish_arrival(const struct bar_hdr *h, const struct dsm_buf *body)
{
    if (!host_seg_on()) {
        net_send(0, OP_BAR_ARRIVE, h, sizeof *h, body->p, body->n);
        return;
    }
    struct host_box *box = host_seg_arrival(dsm.node, h->epoch);
    wait_box_readers(box);
    if (sizeof *h + body->n > host_seg_arrival_cap()) {
        net_send(0, OP_BAR_ARRIVE, h, sizeof *h, body->p, body->n);
        struct bar_hdr mark = { .epoch = h->epoch, .members = h->members, .kind = h->kind,
                                .flags = BAR_BY_MESSAGE };
        box_put(box, &mark, &(struct dsm_buf){ 0 });
    } else {
        box_put(box, h, body);
    }
    dsm_ring_other_sleepers((int)h->members);
}

static const struct bar_hdr *arrival_of(int node)
{
    return (const struct bar_hdr *)host_seg_arrival(node, dsm.epoch)->data;
}

/* Whether every member's arrival at the current barrier is in its box. */
static bool all_arrived(void)
{
    uint64_t want = dsm.epoch + 1;
    int members = dsm_barrier_group_size();
    for (int n = 0; n < members; n++)
        if (atomic_load_explicit(&host_seg_arrival(n, dsm.epoch)->seq, memory_order_acquire) != want)
            return false;
    return true;
}

/* Every arrival in: whether each node completes the barrier on its own,
 * from the boxes.  It does when every arrival is whole in its box, none
 * grew after it was written (dsm_barrier_update, which node 0 gathers),
 * and the notices are few, so that merging them at every node costs
 * little.  Otherwise node 0 gathers and releases, as without the segment.
 * Every node reads the same bytes, so they all decide alike. */
enum { OWN_NOTICES_MAX = 4096 };

static bool on_own(void)
{
    uint64_t notices = 0;
    int members = dsm_barrier_group_size();
    for (int n = 0; n < members; n++) {
        const struct bar_hdr *h = arrival_of(n);
        if ((h->flags & BAR_BY_MESSAGE) ||
            atomic_load(&host_seg_arrival(n, dsm.epoch)->grew) == dsm.epoch + 1)
            return false;
        notices += h->count;
    }
    return notices <= OWN_NOTICES_MAX;
}

/* Completes the barrier at this node from the boxes: the release node 0
 * would send, with notices, payloads and extras in the order of the nodes. */
static void complete_on_own(void)
{
    int members = dsm_barrier_group_size();
    size_t notices = 0, payload = 0, xlen = 0;
    uint64_t sum = 0;
    for (int n = 0; n < members; n++) {
        const struct bar_hdr *h = arrival_of(n);
        if (h->kind != arrival_of(0)->kind)
            different_barriers(0, arrival_of(0)->kind, n, h->kind, dsm.epoch);
        sum += h->sum;
        notices += h->count;
        payload += h->payload;
        xlen += h->extra;
    }
    struct bar_notice *notes = notices ? xcalloc(notices, sizeof *notes) : NULL;
    char *p = payload ? xmalloc(payload) : NULL, *x = xlen ? xmalloc(xlen) : NULL;
    size_t k = 0, pk = 0, xk = 0;
    for (int n = 0; n < members; n++) {
        const struct bar_hdr *h = arrival_of(n);
        const uint64_t *pages = (const uint64_t *)(h + 1);
        for (uint64_t i = 0; i < h->count; i++)
            notes[k++] = (struct bar_notice){ .page = pages[i], .writer = n };
        if (h->payload)     /* p is NULL while no node has a payload, and memcpy's must not be */
            memcpy(p + pk, pages + h->count, h->payload);
        if (h->extra)
            memcpy(x + xk, (const char *)(pages + h->count) + h->payload, h->extra);
        pk += h->payload;
        xk += h->extra;
    }
    pending.n = merge_notices(notes, notices);
    pending.notes = notes;
    pending.sum = sum;
    if (dsm.node == 0 && members < dsm.nodes)
        keep_missed(notes, pending.n);
    pending.payload = p;
    pending.payload_len = payload;
    pending.extra = x;
    pending.extra_len = xlen;
}

/* Node 0, when the nodes do not complete the barrier on their own: the
 * arrivals in the boxes (those by message come to on_arrive). */
static void take_boxes(void)
{
    int members = dsm_barrier_group_size();
    for (int n = 0; n < members; n++) {
        struct host_box *box = host_seg_arrival(n, dsm.epoch);
        if (!(arrival_of(n)->flags & BAR_BY_MESSAGE))
            arrive(n, box->data, box->len);
    }
}

/* Whether the release of the current barrier came: by message (it is
 * then taken already) or in the host segment's box (taken after). */
static bool released(void)
{
    if (!atomic_load(&pending.w.pending))
        return true;
    return host_seg_on() &&
           atomic_load_explicit(&host_seg_release(dsm.node, dsm.epoch)->seq, memory_order_acquire) == dsm.epoch + 1;
}

/* Set once every arrival is in and node 0 is to release the barrier. */
static bool await_release;

/* Whether the host segment has news for this node's barrier: every
 * arrival, then (if node 0 releases it) the release. */
static bool barrier_news(void)
{
    return released() || (!await_release && all_arrived());
}

/* Waits until the barrier completes, doing the upper layer's work
 * meanwhile; true if this node completes it on its own (on_own), false
 * once the release came.  Every event that may give work (a message of
 * the upper layer) or end the wait (an arrival, the release) is news:
 * between them the node sleeps, and while work is wanted but none is
 * found, it looks again after 50 us, then longer and longer up to a
 * millisecond. */
static bool wait_release(void)
{
    unsigned us = 50;
    await_release = false;
    for (;;) {
        uint32_t seen = dsm_news();
        if (host_seg_on() && !await_release && all_arrived()) {
            if (on_own())
                return true;
            await_release = true;
            if (dsm.node == 0)
                take_boxes();
        }
        if (released())
            return false;
        bool wanted = idle.wanted && idle.wanted();
        if (wanted)
            dsm_wait_applied();
        if (wanted && idle.work()) {
            us = 50;
            continue;
        }
        if (host_seg_on())
            dsm_news_wait_or(seen, wanted ? us : 100000, barrier_news);
        else
            dsm_news_wait(seen, wanted ? us : 100000);
        if (wanted)
            us = us < 1000 ? 2 * us : 1000;
    }
}

void dsm_barrier_extra(void *(*provide)(size_t *len), void (*consume)(const void *data, size_t len))
{
    extra.provide = provide;
    extra.consume = consume;
}

/* Keeps what a release carries until the waiting thread applies it. */
static void take_release(const void *body, size_t len)
{
    const struct bar_hdr *h = body;
    if (len < sizeof *h || len != sizeof *h + h->count * sizeof(struct bar_notice) + h->payload + h->extra)
        dsm_fatal("malformed barrier release");
    if (h->epoch != dsm.epoch)
        dsm_fatal("barrier release for epoch %lu while at %lu", (unsigned long)h->epoch,
                  (unsigned long)dsm.epoch);
    const char *p = (const char *)(h + 1);
    pending.sum = h->sum;
    pending.n = h->count;
    pending.notes = h->count ? xmemdup(p, h->count * sizeof *pending.notes) : NULL;
    p += h->count * sizeof *pending.notes;
    pending.payload_len = h->payload;
    pending.payload = h->payload ? xmemdup(p, h->payload) : NULL;
    pending.extra_len = h->extra;
    pending.extra = h->extra ? xmemdup(p + h->payload, h->extra) : NULL;
}

static void on_release(int src, void *body, size_t len)
{
    (void)src;
    take_release(body, len);
    net_wait_done(&pending.w);
    dsm_notice_news();      /* the waiter sleeps on news */
}

/* ---- idle nodes ---------------------------------------------------------- */

static void apply_notices(void);

struct wake_hdr { uint64_t epoch, count, len; uint32_t why, pad; };

/* At an idle node: the wake that came, until the node takes it.  Node 0
 * sends the next one only after a barrier with this node, so there is at
 * most one. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool ready;
    struct wake_hdr h;
    char *body;
} wake = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void on_wake(int src, void *body, size_t len)
{
    struct wake_hdr *h = body;
    if (len < sizeof *h || len != sizeof *h + h->count * sizeof(struct bar_notice) + h->len)
        dsm_fatal("malformed wake-up from node %d", src);
    dsm_lock(&wake.mu);
    if (wake.ready)
        dsm_fatal("internal: a second wake-up before this idle node took the first");
    wake.h = *h;
    wake.body = xmemdup(h + 1, len - sizeof *h);
    wake.ready = true;
    pthread_cond_signal(&wake.cv);
    dsm_unlock(&wake.mu);
}

void dsm_barrier_wake_idle(uint32_t why, const void *data, size_t len)
{
    if (dsm.node != 0)
        dsm_fatal("internal: only node 0 wakes idle nodes");
    dsm_lock(&missed.mu);
    struct wake_hdr h = { .epoch = dsm.epoch, .count = merge_notices(missed.v, missed.n), .len = len,
                          .why = why };
    struct dsm_buf body = { 0 };
    dsm_buf_put(&body, missed.v, h.count * sizeof *missed.v);
    dsm_buf_put(&body, data, len);
    missed.n = 0;
    dsm_unlock(&missed.mu);
    for (int n = dsm_barrier_group_size(); n < dsm.nodes; n++)
        net_send(n, OP_IDLE_WAKE, &h, sizeof h, body.p, body.n);
    dsm_buf_free(&body);
}

uint32_t dsm_barrier_idle_wait(void **data, size_t *len)
{
    dsm_lock(&wake.mu);
    while (!wake.ready)
        pthread_cond_wait(&wake.cv, &wake.mu);
    struct wake_hdr h = wake.h;
    char *body = wake.body;
    wake.ready = false;
    wake.body = NULL;
    dsm_unlock(&wake.mu);
    pending.n = h.count;
    pending.notes = xmemdup(body, h.count * sizeof *pending.notes);
    apply_notices();
    dsm.epoch = h.epoch;
    *len = h.len;
    *data = h.len ? xmemdup(body + h.count * sizeof *pending.notes, h.len) : NULL;
    free(body);
    return h.why;
}

void dsm_barrier_register(void)
{
    net_register(OP_BAR_ARRIVE, on_arrive);
    net_register(OP_BAR_RELEASE, on_release);
    net_register(OP_BAR_UPDATE, on_update);
    net_register(OP_IDLE_WAKE, on_wake);
}

static void apply_notices(void)
{
    if (!pending.n) {
        free(pending.notes);
        pending.notes = NULL;
        return;
    }
    uint64_t *pages = xcalloc(pending.n, sizeof *pages);
    int32_t *writers = xcalloc(pending.n, sizeof *writers);
    for (size_t i = 0; i < pending.n; i++) {
        pages[i] = pending.notes[i].page;
        writers[i] = pending.notes[i].writer;
    }
    /* Forgotten first: a refreshed page the home unshared registers again. */
    dsm_ps_forget_shares(pages, writers, pending.n);
    size_t n = dsm_refresh_copies(pages, writers, pending.n);
    dsm_invalidate(pages, writers, n);
    free(pages);
    free(writers);
    free(pending.notes);
    pending.notes = NULL;
}

void dsm_barrier_update(void)
{
    struct dsm_plist bar = { 0 };
    dsm_bar_take(&bar);
    if (bar.n) {
        if (host_seg_on())     /* the nodes then leave the release to node 0 (on_own) */
            atomic_store(&host_seg_arrival(dsm.node, dsm.epoch)->grew, dsm.epoch + 1);
        struct net_wait w;
        net_wait_init(&w, 1);
        struct notice_hdr h = { .cookie = (uint64_t)(uintptr_t)&w, .epoch = dsm.epoch, .count = bar.n };
        net_send(0, OP_BAR_UPDATE, &h, sizeof h, bar.pages, bar.n * sizeof *bar.pages);
        net_wait(&w);
    }
    dsm_plist_free(&bar);
}

/* Between dsm_idle_begin and dsm_idle_end, and the page kept lagging
 * there; whether a barrier has published this node's writes since
 * dsm_idle_begin; barriers that publish nothing (dsm_barrier_quiet).  The
 * application thread's. */
static bool idling, idle_published, quiet;
static uint64_t idle_keep = DSM_NO_PAGE;

void dsm_idle_begin(const void *keep)
{
    int64_t p = keep ? dsm_page_of((uintptr_t)keep) : -1;
    idle_keep = p < 0 ? DSM_NO_PAGE : (uint64_t)p;
    idling = true;
    idle_published = false;
}

void dsm_idle_end(void)
{
    idling = false;
    dsm_ps_lower(DSM_NO_PAGE);
}

void dsm_barrier_quiet(bool on)
{
    quiet = on;
}

/* Checking build: a barrier that publishes nothing while this node holds
 * a write to a page homed elsewhere (a fault since its last release) would
 * hide that write from the page's home.  Pages homed here may be listed:
 * another node's atomic noted them (its notice and this barrier's announce
 * them; the next release does the rest). */
static void check_quiet(void)
{
#ifdef OMPDSM_CHECKING
    dsm_lock(&dsm.lists_mu);
    for (size_t i = 0; i < dsm.rel.n; i++)
        if (dsm_home_known(dsm.rel.pages[i]) != dsm.node)
            dsm_fatal("internal: a barrier that publishes nothing, with page %lu written since the last release",
                      (unsigned long)dsm.rel.pages[i]);
    dsm_unlock(&dsm.lists_mu);
#endif
}

/* add: this node's addend to the barrier's sum (pending.sum after it). */
static void *barrier(enum bar_kind kind, const void *payload, size_t plen, size_t *out_len, uint64_t add)
{
    /* Timed only for OMPDSM_STATS: two readings of the clock cost a tenth
     * of an empty barrier at 2 nodes. */
    uint64_t t0 = dsm_cfg.stats ? dsm_now_ns() : 0;
    /* An idle node's copies lag only from a barrier's acquire to its next
     * barrier's arrival (as long as they would have without the lag), but
     * the one likely to be installed again. */
    if (idling)
        dsm_ps_lower(idle_keep);
    dsm_flush_output();
    struct dsm_plist rel = { 0 }, bar = { 0 };
    /* An idle node's barriers after the first (the next region's start,
     * a migration's) have nothing to publish either. */
    if (quiet || (idling && idle_published))
        check_quiet();
    else
        dsm_release(&rel, true);
    idle_published = idling;
    dsm_plist_free(&rel);
    dsm_lock_settle();
    dsm_bar_take(&bar);

    net_wait_init(&pending.w, 1);
    size_t xlen = 0;
    void *x = extra.provide ? extra.provide(&xlen) : NULL;
    struct bar_hdr h = { .epoch = dsm.epoch, .count = bar.n, .payload = hdr_len(plen, "payload"),
                         .extra = hdr_len(xlen, "extra"), .sum = add,
                         .members = (uint32_t)dsm_barrier_group_size(), .kind = kind };
    struct dsm_buf body = { 0 };
    dsm_buf_put(&body, bar.pages, bar.n * sizeof *bar.pages);
    dsm_buf_put(&body, payload, plen);
    dsm_buf_put(&body, x, xlen);
    free(x);
    publish_arrival(&h, &body);
    dsm_buf_free(&body);
    dsm_plist_free(&bar);
    atomic_store(&arrived_at, dsm.epoch + 1);
    bool own = wait_release();
    atomic_store(&arrived_at, 0);
    if (own) {
        complete_on_own();
    } else if (atomic_load(&pending.w.pending)) {
        struct host_box *box = host_seg_release(dsm.node, dsm.epoch);
        take_release(box->data, box->len);
    }
    /* The boxes of this barrier are read: their nodes may write them again. */
    last.epoch = dsm.epoch;
    last.members = h.members;
    if (host_seg_on())
        atomic_store_explicit(&host_seg_news(dsm.node)->done, dsm.epoch + 1, memory_order_release);
    dsm_wait_applied();
    dsm_ps_lag(idling);
    apply_notices();
    dsm_drop_suspects();
    dsm_ps_lag(false);
    dsm_quiet_catch();
    if (pending.extra_len && extra.consume)
        extra.consume(pending.extra, pending.extra_len);
    free(pending.extra);
    pending.extra = NULL;
    dsm.epoch++;
    dsm_notice_prune();
    STAT_ADD(barriers, 1);
    if (t0)
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
    barrier(BAR_PLAIN, NULL, 0, NULL, 0);
}

uint64_t dsm_barrier_sum(uint64_t mine)
{
    barrier(BAR_SUM, NULL, 0, NULL, mine);
    return pending.sum;
}

void *dsm_barrier_bcast(const void *payload, size_t len, size_t *out_len)
{
    return barrier(BAR_BCAST, payload, dsm.node == 0 ? len : 0, out_len, 0);
}

void *dsm_barrier_gather(const void *payload, size_t len, size_t *out_len)
{
    return barrier(BAR_GATHER, payload, len, out_len, 0);
}
