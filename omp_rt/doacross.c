/*
 * doacross.c: loops with cross-iteration dependences, ordered(n) with
 * `ordered depend(sink: ...)` (GOMP_doacross_wait) and `ordered
 * depend(source)` (GOMP_doacross_post).
 *
 * GCC hands the loop over as the iteration counts of its n dimensions (the
 * first one the collapsed loops that are shared out) and each post and
 * wait as a vector of iteration numbers.  The vectors are numbered here in
 * lexicographic order (flat numbers), and the first dimension is shared
 * out statically whatever the schedule clause asks (loop.c): the chunk a
 * dynamic or guided schedule names, dealt round-robin, is one of the orders
 * in which threads could have taken those chunks, and it lets every thread
 * compute which thread runs an iteration.  A thread runs its iterations in
 * order, so "iteration x is done" is "its thread has posted x or later":
 * each node keeps, per thread of its own, the flat number it last posted.
 *
 * A thread waiting for an iteration of a thread of its own node sleeps
 * until that thread posts it: they share the node's memory.  For an
 * iteration of another node it asks that node (OP_DA_WAIT), whose answer
 * (OP_DA_DONE) comes once the iteration's writes are published: the
 * owner's thread publishes its node's writes (a release, whose notices are
 * queued at every node before it answers) when it posts and finds a
 * request its posts satisfy, before it waits for another node, and when it
 * has run its last iteration; the progress thread answers at once a
 * request for what is already published.  The waiter then drops the copies
 * the notices name (an acquire).  The answer says how far the owner has
 * published, so the waiter's next waits on that thread up to there need no
 * message.  No thread polls: waits sleep on a condition variable or on the
 * answer.
 */
#include "gomp_abi.h"
#include "loop.h"

#include "../dsm/dsm.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

#define API __attribute__((visibility("default")))

enum { MAX_DIMS = 32 };

struct remote_waiter {
    int node;
    int local;                  /* the thread waited for, among this node's */
    uint64_t cookie, iter;
    struct remote_waiter *next;
};

/* A doacross loop at this node.  Per thread of the node in the team:
 * posted, the flat number of its last post + 1 (0: none yet), and
 * published, how much of that its node's releases have published. */
struct loop_state {
    uint64_t region, seq;
    uint64_t *posted, *published;
    int sleepers;               /* this node's threads waiting on posts */
    struct remote_waiter *waiting;
    struct loop_state *link;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* a post, or a request for a sleeping owner */
    struct loop_state *list;
} da = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* The calling thread's doacross loop. */
static __thread struct {
    struct loop_state *st;      /* NULL: none, or a team of one */
    unsigned dims;
    uint64_t stride[MAX_DIMS];  /* of each dimension in flat numbers */
    uint64_t total;             /* flat numbers */
    uint64_t n;                 /* iterations of the first dimension */
    long chunk;                 /* of the static schedule; 0: one block per thread */
    uint64_t *known;            /* per thread of the team: published, as far as known here */
} me;

struct wait_req {
    uint64_t cookie, region, seq, iter;
    int32_t local;
};
struct wait_rep {
    uint64_t cookie, published;
};
struct wait_done {
    struct net_wait w;
    uint64_t published;
};

/* With the lock held. */
static struct loop_state *find(uint64_t region, uint64_t seq)
{
    for (struct loop_state *s = da.list; s; s = s->link)
        if (s->region == region && s->seq == seq)
            return s;
    struct loop_state *s = xcalloc(1, sizeof *s);
    s->region = region;
    s->seq = seq;
    s->posted = xcalloc((size_t)dsm.app_threads, sizeof *s->posted);
    s->published = xcalloc((size_t)dsm.app_threads, sizeof *s->published);
    s->link = da.list;
    da.list = s;
    return s;
}

/* The thread of the team that runs iterations v of the first dimension,
 * as static_next (loop.c) deals them. */
static int owner(uint64_t v)
{
    uint64_t size = (uint64_t)omp_rt_team_size();
    if (me.chunk <= 0)
        return (int)omp_split_part(v, me.n, size);
    return (int)((v / (uint64_t)me.chunk) % size);
}

void omp_doacross_begin(uint64_t seq, unsigned dims, const uint64_t *counts, long chunk)
{
    me.st = NULL;
    if (omp_rt_team_size() == 1)
        return;
    if (dims == 0 || dims > MAX_DIMS)
        dsm_fatal("an ordered(n) loop with %u dependence dimensions: ompdsm supports 1 to %d", dims, MAX_DIMS);
    uint64_t stride = 1;
    for (unsigned d = dims; d-- > 0;) {
        me.stride[d] = stride;
        if (__builtin_mul_overflow(stride, counts[d], &stride))
            dsm_fatal("an ordered(n) loop with more than 2^64 iterations");
    }
    me.dims = dims;
    me.total = stride;
    me.n = counts[0];
    me.chunk = chunk;
    free(me.known);
    me.known = xcalloc((size_t)omp_rt_team_size(), sizeof *me.known);
    dsm_lock(&da.mu);
    me.st = find(omp_rt.region, seq);
    dsm_unlock(&da.mu);
}

/* With the lock held: whether a request waits for a post of thread l that
 * it has made. */
static bool servable(const struct loop_state *s, int l)
{
    for (const struct remote_waiter *w = s->waiting; w; w = w->next)
        if (w->local == l && w->iter < s->posted[l])
            return true;
    return false;
}

static void answer(int node, uint64_t cookie, uint64_t published)
{
    struct wait_rep r = { .cookie = cookie, .published = published };
    net_send(node, OP_DA_DONE, &r, sizeof r, NULL, 0);
}

/* Publishes what thread l has posted and answers the requests that
 * satisfies. */
static void publish(struct loop_state *s, int l)
{
    dsm_lock(&da.mu);
    uint64_t upto = s->posted[l];
    dsm_unlock(&da.mu);
    if (omp_rt.team_nodes > 1) {
        dsm_flush_output();
        dsm_release_push(true);
    }
    dsm_lock(&da.mu);
    if (upto > s->published[l])
        s->published[l] = upto;
    struct remote_waiter *due = NULL;
    for (struct remote_waiter **p = &s->waiting; *p;) {
        struct remote_waiter *w = *p;
        if (w->local == l && w->iter < s->published[l]) {
            *p = w->next;
            w->next = due;
            due = w;
        } else {
            p = &w->next;
        }
    }
    uint64_t published = s->published[l];
    dsm_unlock(&da.mu);
    while (due) {
        struct remote_waiter *w = due;
        due = w->next;
        answer(w->node, w->cookie, published);
        free(w);
    }
}

void omp_doacross_end(void)
{
    struct loop_state *s = me.st;
    if (!s)
        return;
    int l = omp_thr.local;
    dsm_lock(&da.mu);
    bool unpublished = s->posted[l] > s->published[l] || servable(s, l);
    dsm_unlock(&da.mu);
    if (unpublished)
        publish(s, l);
    me.st = NULL;
}

static uint64_t flat(const uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned d = 0; d < me.dims; d++)
        x += v[d] * me.stride[d];
    return x;
}

static void post(const uint64_t *v)
{
    struct loop_state *s = me.st;
    if (!s)
        return;
    int l = omp_thr.local;
    dsm_lock(&da.mu);
    s->posted[l] = flat(v) + 1;
    bool serve = servable(s, l);
    if (s->sleepers)
        pthread_cond_broadcast(&da.cv);
    dsm_unlock(&da.mu);
    if (serve)
        publish(s, l);
}

/* Waits until thread `local` of this node has posted x, answering the
 * requests for this thread's own posts meanwhile. */
static void wait_here(struct loop_state *s, int local, uint64_t x)
{
    int l = omp_thr.local;
    dsm_lock(&da.mu);
    while (s->posted[local] <= x) {
        if (servable(s, l)) {
            dsm_unlock(&da.mu);
            publish(s, l);
            dsm_lock(&da.mu);
            continue;
        }
        s->sleepers++;
        pthread_cond_wait(&da.cv, &da.mu);
        s->sleepers--;
    }
    dsm_unlock(&da.mu);
}

static void wait_there(struct loop_state *s, int node, int local, int thread, uint64_t x)
{
    if (me.known[thread] > x)
        return;
    int l = omp_thr.local;
    dsm_lock(&da.mu);
    bool unpublished = s->posted[l] > s->published[l];
    dsm_unlock(&da.mu);
    if (unpublished)            /* nobody may wait for us while we wait */
        publish(s, l);
    struct wait_done done;
    net_wait_init(&done.w, 1);
    struct wait_req r = { .cookie = (uint64_t)(uintptr_t)&done, .region = s->region, .seq = s->seq, .iter = x,
                          .local = local };
    net_send(node, OP_DA_WAIT, &r, sizeof r, NULL, 0);
    net_wait(&done.w);
    me.known[thread] = done.published;
    dsm_notice_apply(NULL, 0);
    dsm_drop_suspects();
}

static void wait_for(const uint64_t *v)
{
    struct loop_state *s = me.st;
    if (!s || v[0] >= me.n)
        return;
    uint64_t x = flat(v);
    if (x >= me.total)
        return;
    int t = owner(v[0]);
    if (t == omp_thr.num)
        return;                 /* an earlier iteration of ours: done */
    uint64_t size = (uint64_t)omp_rt_team_size(), nodes = (uint64_t)omp_rt.nodes;
    int node = (int)omp_split_part((uint64_t)t, size, nodes);
    int local = t - (int)omp_split_start((uint64_t)node, size, nodes);
    if (node == omp_rt.node)
        wait_here(s, local, x);
    else
        wait_there(s, node, local, t, x);
}

/* ---- messages --------------------------------------------------------------- */

static void on_wait(int src, void *body, size_t len)
{
    (void)len;
    const struct wait_req *r = body;
    dsm_lock(&da.mu);
    struct loop_state *s = find(r->region, r->seq);
    uint64_t published = s->published[r->local];
    bool now = published > r->iter;
    if (!now) {
        struct remote_waiter *w = xmalloc(sizeof *w);
        *w = (struct remote_waiter){ .node = src, .local = r->local, .cookie = r->cookie, .iter = r->iter,
                                     .next = s->waiting };
        s->waiting = w;
        if (s->sleepers && s->posted[r->local] > r->iter)
            pthread_cond_broadcast(&da.cv);     /* the owner may sleep on another post */
    }
    dsm_unlock(&da.mu);
    if (now)
        answer(src, r->cookie, published);
}

static void on_done(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    const struct wait_rep *r = body;
    struct wait_done *d = (struct wait_done *)(uintptr_t)r->cookie;
    d->published = r->published;
    net_wait_done(&d->w);
}

void omp_doacross_register(void)
{
    net_register(OP_DA_WAIT, on_wait);
    net_register(OP_DA_DONE, on_done);
}

void omp_doacross_reset(void)
{
    dsm_lock(&da.mu);
    while (da.list) {
        struct loop_state *s = da.list;
        da.list = s->link;
        if (s->waiting)
            dsm_fatal("internal: a parallel region ended with threads waiting in an ordered(n) loop");
        free(s->posted);
        free(s->published);
        free(s);
    }
    dsm_unlock(&da.mu);
}

/* ---- the entry points ------------------------------------------------------- */

API void GOMP_doacross_post(long *counts)
{
    OMP_RT_ENTRY;
    if (!me.st)
        return;
    uint64_t v[MAX_DIMS];
    for (unsigned d = 0; d < me.dims; d++)
        v[d] = (uint64_t)counts[d];
    post(v);
}

API void GOMP_doacross_ull_post(unsigned long long *counts)
{
    OMP_RT_ENTRY;
    if (!me.st)
        return;
    uint64_t v[MAX_DIMS];
    for (unsigned d = 0; d < me.dims; d++)
        v[d] = counts[d];
    post(v);
}

API void GOMP_doacross_wait(long first, ...)
{
    OMP_RT_ENTRY;
    if (!me.st)
        return;
    uint64_t v[MAX_DIMS] = { (uint64_t)first };
    va_list ap;
    va_start(ap, first);
    for (unsigned d = 1; d < me.dims; d++)
        v[d] = (uint64_t)va_arg(ap, long);
    va_end(ap);
    wait_for(v);
}

API void GOMP_doacross_ull_wait(unsigned long long first, ...)
{
    OMP_RT_ENTRY;
    if (!me.st)
        return;
    uint64_t v[MAX_DIMS] = { first };
    va_list ap;
    va_start(ap, first);
    for (unsigned d = 1; d < me.dims; d++)
        v[d] = va_arg(ap, unsigned long long);
    va_end(ap);
    wait_for(v);
}
