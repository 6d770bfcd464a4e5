/*
 * nest.c: nested parallel regions, whose teams are threads of the
 * encountering thread's node.
 *
 * Where nesting is on (OMP_MAX_ACTIVE_LEVELS, OMP_NESTED, a list in
 * OMP_NUM_THREADS, omp_set_max_active_levels, omp_set_nested), a thread
 * that meets a parallel region inside another becomes thread 0 of a new
 * team, whose other threads run on its node.  Inside a team of one thread
 * too, as in libgomp: the new team is then the first active level, and
 * the other nodes wait for the next region as they do while the master
 * runs alone.  The team's memory is the node's: its threads share it as
 * threads of one process, and the DSM keeps it coherent with the other
 * nodes as it does for any thread of the node (faults, and the releases of
 * locks, flushes and the enclosing team's barriers).  So the team needs
 * nothing from other nodes, and its constructs are the node's own:
 *   barriers      a counter and a futex (poll briefly, then sleep);
 *   loops         static blocks as in any team; dynamic and guided chunks
 *                 and the ordered turn from the construct's record here,
 *                 under the team's mutex;
 *   single        thread 0, as in any team; copyprivate's address passes
 *                 through the team's record at a barrier;
 *   tasks         run at once by the thread that makes them (task.c), a
 *                 schedule OpenMP allows; a task that waits for a later
 *                 sibling (a detached task's event fulfilled by another
 *                 task) would wait for ever;
 *   cancellation  the cancelling thread leaves the construct, the others
 *                 go on (they see no cancellation points);
 *   doacross      not supported (a clear error).
 *
 * The node's threads beyond those of the enclosing team are made the first
 * time a nested team needs them and then wait on a futex for the next.
 * A node that ran one thread kept hot pages (dsm/flush.c), which only one
 * thread may write: before its first nested team starts, the thread
 * publishes its writes (a flush, which the region's start implies anyway)
 * and the node runs as one of several threads from then on.
 */
#include "omp_rt.h"
#include "loop.h"

#include "../dsm/dsm.h"
#include "../util/futex.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

/* Polls of a changing word before sleeping on it: a microsecond or two.
 * A nested team's threads are more than the node's CPUs as a rule (the
 * enclosing team has one each already): a thread that polls longer takes
 * the CPU from the one it waits for (nested_rows at 2 nodes: 2000 polls,
 * as the node barrier's, made some runs five times slower). */
enum { SPIN = 100 };

/* A dynamic or guided loop, sections or an ordered loop of the team,
 * named by its number in the region (every thread meets the same ones). */
struct construct {
    uint64_t seq;
    uint64_t next;              /* first iteration not yet handed out */
    uint64_t ord_next;          /* iteration whose ordered part may run */
    struct construct *link;
};

struct omp_nest {
    int size;
    struct omp_thr outer;           /* thread 0's place in the enclosing region */
    void (*body)(void *arg);
    void *arg;
    _Atomic uint32_t arrived, passed;   /* the barrier: threads in it, barriers done */
    _Atomic uint32_t left;          /* threads other than 0 done with the team */
    pthread_mutex_t mu;
    pthread_cond_t turn;            /* an ordered part is done */
    struct construct *constructs;
    void *value[2];                 /* copyprivate: thread 0's address, by barrier parity */
};

/* A thread of the node for nested teams, idle or in one. */
struct worker {
    _Atomic uint32_t go;            /* bumped when it is given a team */
    struct omp_nest *team;
    int num;
    struct worker *next;            /* idle list */
};

static struct {
    pthread_mutex_t mu;
    struct worker *idle;
    int running;                    /* threads of nested teams, beyond their threads 0 */
} workers = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void join(struct omp_nest *t, int num)
{
    const struct omp_thr *o = &t->outer;
    omp_thr = (struct omp_thr){ .size = t->size, .num = num, .local = o->local, .level = o->level + 1,
                                .active_level = o->active_level + 1, .active = true,
                                .nthreads = omp_rt_nthreads_at(o->level + 2, o->nthreads),
                                .teams = o->teams, .team_num = o->team_num, .up = o, .nest = t };
    omp_affinity_team_joined();
}

/* A member's part: the region's body, then the barrier that ends it. */
static void run_member(struct omp_nest *t, int num)
{
    join(t, num);
    t->body(t->arg);
    omp_nest_barrier();
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uint32_t seen = 0;
    dsm_fault_thread_init();
    for (;;) {
        futex_await_change(&w->go, seen, SPIN);
        seen = atomic_load_explicit(&w->go, memory_order_acquire);
        struct omp_nest *t = w->team;
        run_member(t, w->num);
        omp_thr = (struct omp_thr){ .size = 1 };
        dsm_lock(&workers.mu);
        w->next = workers.idle;
        workers.idle = w;
        dsm_unlock(&workers.mu);
        /* Thread 0 frees the team once every member has counted itself out. */
        atomic_fetch_add_explicit(&t->left, 1, memory_order_release);
        futex_wake(&t->left, 1);
    }
    return NULL;
}

/* The node runs up to `more` further threads from now on.  A node that ran
 * one thread publishes its writes first: it kept hot pages. */
static void make_room(int more)
{
    dsm_lock(&workers.mu);
    workers.running += more;
    int need = (omp_rt.local > 1 ? omp_rt.local : 1) + workers.running;
    if (need > dsm.app_threads) {
        if (dsm.app_threads == 1)
            dsm_flush_no_wait();
        dsm_set_app_threads(need);
    }
    dsm_unlock(&workers.mu);
}

static void give_work(struct omp_nest *t)
{
    for (int num = 1; num < t->size; num++) {
        dsm_lock(&workers.mu);
        struct worker *w = workers.idle;
        if (w)
            workers.idle = w->next;
        dsm_unlock(&workers.mu);
        if (!w) {
            w = xcalloc(1, sizeof *w);
            omp_app_thread_start(worker_main, w, "OpenMP thread of a nested team");
        }
        w->team = t;
        w->num = num;
        atomic_fetch_add_explicit(&w->go, 1, memory_order_release);
        futex_wake(&w->go, 1);
    }
}

void omp_nest_run(int size, void (*body)(void *arg), void *arg)
{
    make_room(size - 1);
    struct omp_nest *t = xcalloc(1, sizeof *t);
    t->size = size;
    t->outer = omp_thr;
    t->body = body;
    t->arg = arg;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->turn, NULL);
    give_work(t);
    run_member(t, 0);
    uint32_t left;
    while ((left = atomic_load_explicit(&t->left, memory_order_acquire)) != (uint32_t)size - 1)
        futex_wait(&t->left, left);
    omp_thr = t->outer;
    for (struct construct *c = t->constructs, *next; c; c = next) {
        next = c->link;
        free(c);
    }
    pthread_cond_destroy(&t->turn);
    pthread_mutex_destroy(&t->mu);
    free(t);
    dsm_lock(&workers.mu);
    workers.running -= size - 1;
    dsm_unlock(&workers.mu);
}

void omp_nest_barrier(void)
{
    struct omp_nest *t = omp_thr.nest;
    uint32_t passed = atomic_load_explicit(&t->passed, memory_order_acquire);
    if (atomic_fetch_add_explicit(&t->arrived, 1, memory_order_acq_rel) + 1 == (uint32_t)t->size) {
        atomic_store_explicit(&t->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->passed, 1, memory_order_release);
        futex_wake(&t->passed, INT_MAX);
        return;
    }
    futex_await_change(&t->passed, passed, SPIN);
}

/* The value goes in the slot of the barrier's parity: thread 0 may give the
 * next one (at the next barrier) before a slow thread has read this one. */
void *omp_nest_share(void *value, bool giver)
{
    struct omp_nest *t = omp_thr.nest;
    uint32_t slot = atomic_load_explicit(&t->passed, memory_order_acquire) & 1;
    if (giver)
        t->value[slot] = value;
    omp_nest_barrier();
    return t->value[slot];
}

/* The record of construct seq, made by the first thread to ask; t->mu held. */
static struct construct *find(struct omp_nest *t, uint64_t seq)
{
    for (struct construct *c = t->constructs; c; c = c->link)
        if (c->seq == seq)
            return c;
    struct construct *c = xcalloc(1, sizeof *c);
    c->seq = seq;
    c->link = t->constructs;
    t->constructs = c;
    return c;
}

bool omp_nest_next(uint64_t seq, const struct omp_loop_args *a, uint64_t *lo, uint64_t *hi)
{
    struct omp_nest *t = omp_thr.nest;
    dsm_lock(&t->mu);
    struct construct *c = find(t, seq);
    uint64_t left = a->n - c->next, take = (uint64_t)(a->chunk > 0 ? a->chunk : 1);
    if (a->kind == OMP_SCHED_GUIDED) {
        uint64_t share = (left + (uint64_t)t->size - 1) / (uint64_t)t->size;
        take = share > take ? share : take;
    }
    take = take < left ? take : left;
    *lo = c->next;
    *hi = c->next + take;
    c->next += take;
    dsm_unlock(&t->mu);
    return *lo < *hi;
}

void omp_nest_ordered_wait(uint64_t seq, uint64_t iter)
{
    struct omp_nest *t = omp_thr.nest;
    dsm_lock(&t->mu);
    struct construct *c = find(t, seq);
    while (c->ord_next != iter)
        pthread_cond_wait(&t->turn, &t->mu);
    dsm_unlock(&t->mu);
}

void omp_nest_ordered_done(uint64_t seq, uint64_t next_iter)
{
    struct omp_nest *t = omp_thr.nest;
    dsm_lock(&t->mu);
    find(t, seq)->ord_next = next_iter;
    pthread_cond_broadcast(&t->turn);
    dsm_unlock(&t->mu);
}
