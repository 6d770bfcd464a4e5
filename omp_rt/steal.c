/*
 * steal.c: nonmonotonic dynamic loops, `schedule(dynamic)` as GCC emits
 * it, as ranges that each node takes its chunks from and that nodes out
 * of work steal from.
 *
 * Handing out every chunk at node 0 (ws.c) costs the other nodes a round
 * trip per chunk, and scatters the chunks, and so the pages they write,
 * over the nodes at random.  Here each node starts with the chunks a
 * static schedule would give it, takes them from its own range with no
 * message, and only a node that has run out asks another for work: the
 * node it asks gives the upper half of what it has left.  The chunks stay
 * whole, each runs once, on one thread; their order per thread is free,
 * which the nonmonotonic modifier allows (GCC's default for
 * schedule(dynamic) since OpenMP 5.0).  Loops declared monotonic, ordered
 * loops and sections keep node 0's service.
 *
 * The loop's last chunk is its thread's last: GCC implements lastprivate
 * as "the thread whose last chunk ended the loop copies out".  The node
 * whose range ends the loop keeps that chunk out of its range (nobody can
 * steal it) and runs it once it has found no work anywhere, and takes no
 * chunk after it.
 *
 * A thread takes a batch of chunks at a time, a share of what its node
 * has left (as guided does within the node's range): one chunk at a time
 * would cost a lock per chunk for little, and the tail of the range still
 * goes one chunk at a time, to the node's threads or to the node that
 * steals it.  One thread of a node at a time asks the others for work.
 *
 * A construct is named by (region, seq), as in ws.c.  A request may reach
 * a node before it has started the loop: it then creates the range with
 * its static share.  Every request is answered before the thief goes on,
 * so none is in flight when the region ends and the ranges are dropped
 * (omp_steal_reset(), after the region's closing barrier).
 */
#include "loop.h"

#include "../dsm/dsm.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

/* Chunks [lo, hi) of a construct that this node has not handed out. */
struct range {
    uint64_t region, seq;
    uint64_t lo, hi;
    bool held;                  /* the loop's last chunk, kept out of [lo, hi) */
    bool ended;                 /* this node has run it */
    bool stealing;              /* one of the node's threads is asking the others */
    struct range *link;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t stolen;      /* a thread's asking ended */
    struct range *list;
} st = { .mu = PTHREAD_MUTEX_INITIALIZER, .stolen = PTHREAD_COND_INITIALIZER };

struct steal_req {
    uint64_t cookie, region, seq, chunks;
    int32_t team, pad;
};
struct steal_rep {
    uint64_t cookie, lo, hi;
};
struct steal_wait {
    struct net_wait w;
    uint64_t lo, hi;
};

/* The range of a construct at this node, created with this node's static
 * share of the loop's chunks; st.mu held. */
static struct range *range_of(uint64_t region, uint64_t seq, uint64_t chunks, int team)
{
    for (struct range *r = st.list; r; r = r->link)
        if (r->region == region && r->seq == seq)
            return r;
    struct range *r = xmalloc(sizeof *r);
    uint64_t node = (uint64_t)omp_rt.node, t = (uint64_t)team;
    *r = (struct range){ .region = region, .seq = seq, .lo = chunks * node / t, .hi = chunks * (node + 1) / t,
                         .link = st.list };
    r->held = r->hi == chunks && r->lo < r->hi;
    r->hi -= r->held;
    st.list = r;
    return r;
}

/* A thief's request: the upper half of what is left here (the last chunk
 * too, as this node may be busy with a whole batch). */
static void on_steal(int src, void *body, size_t len)
{
    struct steal_req *q = body;
    if (len != sizeof *q || q->team < 1 || omp_rt.node >= q->team)
        dsm_fatal("malformed request for loop chunks from node %d", src);
    dsm_lock(&st.mu);
    struct range *r = range_of(q->region, q->seq, q->chunks, q->team);
    uint64_t left = r->hi - r->lo, give = left > 1 ? left / 2 : left;
    struct steal_rep rep = { .cookie = q->cookie, .lo = r->hi - give, .hi = r->hi };
    r->hi -= give;
    dsm_unlock(&st.mu);
    net_send(src, OP_WS_STOLEN, &rep, sizeof rep, NULL, 0);
}

static void on_stolen(int src, void *body, size_t len)
{
    struct steal_rep *rep = body;
    if (len != sizeof *rep)
        dsm_fatal("malformed loop chunks from node %d", src);
    struct steal_wait *sw = (struct steal_wait *)(uintptr_t)rep->cookie;
    sw->lo = rep->lo;
    sw->hi = rep->hi;
    net_wait_done(&sw->w);
}

/* Asks the other nodes of the team in turn for chunks until one gives
 * some: they become this node's range.  False when none has any left. */
static bool steal(const struct omp_ws_ask *a, uint64_t chunks)
{
    for (int k = 1; k < a->nodes; k++) {
        int victim = (omp_rt.node + k) % a->nodes;
        struct steal_wait sw;
        net_wait_init(&sw.w, 1);
        struct steal_req q = { .cookie = (uint64_t)(uintptr_t)&sw, .region = a->region, .seq = a->seq,
                               .chunks = chunks, .team = a->nodes };
        net_send(victim, OP_WS_STEAL, &q, sizeof q, NULL, 0);
        net_wait(&sw.w);
        if (sw.lo < sw.hi) {
            dsm_lock(&st.mu);
            struct range *r = range_of(a->region, a->seq, chunks, a->nodes);
            r->lo = sw.lo;
            r->hi = sw.hi;
            dsm_unlock(&st.mu);
            return true;
        }
    }
    return false;
}

/* Iterations [lo, hi) of chunks first .. first+k-1. */
static bool chunks_of(const struct omp_ws_ask *a, uint64_t first, uint64_t k, uint64_t *lo, uint64_t *hi)
{
    uint64_t c = (uint64_t)a->chunk;
    *lo = first * c;
    *hi = (first + k) * c < a->n ? (first + k) * c : a->n;
    return true;
}

/* One thread of the node at a time asks the other nodes, and the others
 * wait for what it brings: two ranges brought at once would not fit in
 * the node's one range.  False once the asking found nothing. */
static bool steal_for_node(const struct omp_ws_ask *a, uint64_t chunks, struct range *r)
{
    if (r->stealing) {
        while (r->stealing)
            pthread_cond_wait(&st.stolen, &st.mu);
        return true;            /* look at the range again */
    }
    r->stealing = true;
    dsm_unlock(&st.mu);
    bool got = steal(a, chunks);
    dsm_lock(&st.mu);
    r->stealing = false;
    pthread_cond_broadcast(&st.stolen);
    return got;
}

bool omp_steal_next(const struct omp_ws_ask *a, uint64_t *lo, uint64_t *hi)
{
    uint64_t c = (uint64_t)a->chunk, chunks = (a->n + c - 1) / c;
    dsm_lock(&st.mu);
    struct range *r;
    do {
        r = range_of(a->region, a->seq, chunks, a->nodes);
        uint64_t left = r->hi - r->lo, take = left / (2 * (uint64_t)a->nthreads);
        take = take ? take : left ? 1 : 0;
        uint64_t first = r->lo;
        r->lo += take;
        if (take || r->ended) {
            dsm_unlock(&st.mu);
            return take && chunks_of(a, first, take, lo, hi);
        }
    } while (steal_for_node(a, chunks, r));
    /* Nothing left anywhere: the last chunk, if this node holds it. */
    bool held = r->held;
    r->held = false;
    r->ended = true;
    dsm_unlock(&st.mu);
    return held && chunks_of(a, chunks - 1, 1, lo, hi);
}

void omp_steal_reset(void)
{
    dsm_lock(&st.mu);
    while (st.list) {
        struct range *r = st.list;
        st.list = r->link;
        free(r);
    }
    dsm_unlock(&st.mu);
}

void omp_steal_register(void)
{
    net_register(OP_WS_STEAL, on_steal);
    net_register(OP_WS_STOLEN, on_stolen);
}
