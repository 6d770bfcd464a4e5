/*
 * ws.c: node 0's worksharing service: dynamic and guided chunks, and the
 * turn of ordered iterations.
 *
 * A construct is named by (region, seq): the parallel region's number and
 * the construct's number within it, which every thread computes alike.
 * Node 0 creates the state of a construct when the first request for it
 * arrives and drops every construct of a region when the region ends (its
 * closing barrier guarantees that no request for it is still on the way).
 *
 * Requests from node 0 itself take the same path as a function call;
 * other nodes send a message and sleep until the answer comes.  An ordered
 * turn that is not yet due is answered later, when the iteration before it
 * is done.
 */
#include "loop.h"

#include "../dsm/dsm.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>


struct waiter {
    int node;
    uint64_t cookie, iter;
    struct waiter *next;
};

struct construct {
    uint64_t region, seq;
    uint64_t next;              /* first iteration not yet handed out */
    uint64_t ord_next;          /* iteration whose ordered part may run */
    struct waiter *waiting;
    struct construct *link;
};

static struct {
    pthread_mutex_t mu;
    struct construct *list;
} ws = { .mu = PTHREAD_MUTEX_INITIALIZER };

struct next_req {
    uint64_t cookie;
    struct omp_ws_ask ask;
};
struct chunk_rep {
    uint64_t cookie, lo, hi;
};
struct ord_req {
    uint64_t cookie, region, seq, iter;
};

struct chunk_wait {
    struct net_wait w;
    uint64_t lo, hi;
};

/* ---- at node 0 ---------------------------------------------------------- */

static struct construct *find(uint64_t region, uint64_t seq)
{
    for (struct construct *c = ws.list; c; c = c->link)
        if (c->region == region && c->seq == seq)
            return c;
    struct construct *c = xcalloc(1, sizeof *c);
    c->region = region;
    c->seq = seq;
    c->link = ws.list;
    ws.list = c;
    return c;
}

static void hand_out(const struct omp_ws_ask *a, uint64_t *lo, uint64_t *hi)
{
    dsm_lock(&ws.mu);
    struct construct *c = find(a->region, a->seq);
    uint64_t left = a->n - c->next, take = (uint64_t)(a->chunk > 0 ? a->chunk : 1);
    if (a->kind == OMP_SCHED_GUIDED) {
        uint64_t share = (left + (uint64_t)a->nthreads - 1) / (uint64_t)a->nthreads;
        if (share > take)
            take = share;
    }
    if (take > left)
        take = left;
    *lo = c->next;
    *hi = c->next + take;
    c->next += take;
    dsm_unlock(&ws.mu);
}

static void on_next(int src, void *body, size_t len)
{
    struct next_req *r = body;
    if (len != sizeof *r)
        dsm_fatal("malformed worksharing request from node %d", src);
    struct chunk_rep rep = { .cookie = r->cookie };
    hand_out(&r->ask, &rep.lo, &rep.hi);
    net_send(src, OP_WS_CHUNK, &rep, sizeof rep, NULL, 0);
}

static void on_chunk(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    struct chunk_rep *r = body;
    struct chunk_wait *cw = (struct chunk_wait *)(uintptr_t)r->cookie;
    cw->lo = r->lo;
    cw->hi = r->hi;
    net_wait_done(&cw->w);
}

/* Sends a message, so never called with ws.mu held: the progress thread
 * takes ws.mu inside its handlers while it holds the transport's lock. */
static void let_go(int node, uint64_t cookie)
{
    if (node == 0)
        net_wait_done((struct net_wait *)(uintptr_t)cookie);
    else
        net_send_done(node, cookie);
}

static void ordered_wait_at_0(int node, const struct ord_req *r)
{
    dsm_lock(&ws.mu);
    struct construct *c = find(r->region, r->seq);
    bool due = c->ord_next == r->iter;
    if (!due) {
        struct waiter *w = xmalloc(sizeof *w);
        *w = (struct waiter){ .node = node, .cookie = r->cookie, .iter = r->iter, .next = c->waiting };
        c->waiting = w;
    }
    dsm_unlock(&ws.mu);
    if (due)
        let_go(node, r->cookie);
}

static void ordered_done_at_0(const struct ord_req *r)
{
    dsm_lock(&ws.mu);
    struct construct *c = find(r->region, r->seq);
    c->ord_next = r->iter;
    struct waiter *due = NULL;
    for (struct waiter **p = &c->waiting; *p; p = &(*p)->next) {
        if ((*p)->iter == r->iter) {
            due = *p;
            *p = due->next;
            break;
        }
    }
    dsm_unlock(&ws.mu);
    if (due) {
        let_go(due->node, due->cookie);
        free(due);
    }
}

static void on_ordered_wait(int src, void *body, size_t len)
{
    (void)len;
    ordered_wait_at_0(src, body);
}

static void on_ordered_done(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    ordered_done_at_0(body);
}

void omp_ws_register(void)
{
    net_register(OP_WS_NEXT, on_next);
    net_register(OP_WS_CHUNK, on_chunk);
    net_register(OP_ORD_WAIT, on_ordered_wait);
    net_register(OP_ORD_DONE, on_ordered_done);
}

void omp_ws_reset(void)
{
    if (omp_rt.node != 0)
        return;
    dsm_lock(&ws.mu);
    while (ws.list) {
        struct construct *c = ws.list;
        ws.list = c->link;
        if (c->waiting)
            dsm_fatal("a parallel region ended with threads waiting for their ordered turn");
        free(c);
    }
    dsm_unlock(&ws.mu);
}

/* ---- at any node -------------------------------------------------------- */

void omp_ws_next(const struct omp_ws_ask *ask, uint64_t *lo, uint64_t *hi)
{
    if (omp_rt.node == 0) {
        hand_out(ask, lo, hi);
        return;
    }
    struct chunk_wait cw;
    net_wait_init(&cw.w, 1);
    struct next_req r = { .cookie = (uint64_t)(uintptr_t)&cw, .ask = *ask };
    net_send(0, OP_WS_NEXT, &r, sizeof r, NULL, 0);
    net_wait(&cw.w);
    *lo = cw.lo;
    *hi = cw.hi;
}

void omp_ws_ordered_wait(uint64_t seq, uint64_t iter)
{
    struct net_wait w;
    net_wait_init(&w, 1);
    struct ord_req r = { .cookie = (uint64_t)(uintptr_t)&w, .region = omp_rt.region, .seq = seq, .iter = iter };
    if (omp_rt.node == 0)
        ordered_wait_at_0(0, &r);
    else
        net_send(0, OP_ORD_WAIT, &r, sizeof r, NULL, 0);
    net_wait(&w);
}

void omp_ws_ordered_done(uint64_t seq, uint64_t next_iter)
{
    dsm_flush_output();
    struct ord_req r = { .region = omp_rt.region, .seq = seq, .iter = next_iter };
    if (omp_rt.node == 0)
        ordered_done_at_0(&r);
    else
        net_send(0, OP_ORD_DONE, &r, sizeof r, NULL, 0);
}
