/*
 * pool.c: the threads of a node beyond its first, and the barrier among
 * the node's threads of a team.
 *
 * A node runs up to omp_rt.threads OpenMP threads.  Its first thread is
 * the one that runs main() (node 0) or waits for regions (the others);
 * the others are made the first time a region needs them and then sleep
 * on a futex between regions.  omp_pool_run() hands them the region: each
 * runs member(local, arg), which returns only after the barrier that ends
 * the region, and goes back to sleep; the first thread runs its own part.
 *
 * The node barrier.  The node's threads of the team arrive; the leader
 * (local thread 0) waits until all others have, runs the leader's work
 * (the DSM barrier among the nodes, the region's end, a broadcast) and
 * then lets them go.  A waiting thread spins a little (a barrier between
 * threads of one node that all arrive together costs well under a
 * microsecond), then sleeps on a futex: nodes may share cores, and a
 * thread that spins while the leader waits for the network would take the
 * CPU from it.  A barrier is a task scheduling point: a waiting thread runs
 * the tasks its node's threads queue meanwhile (a single region's thread
 * that makes tasks while the others already wait), and a queued task rings
 * the waiters' bell (omp_pool_ring).
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/futex.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Polls of a changing word before sleeping on it: a few microseconds. */
enum { SPIN = 2000 };

static struct {
    int made;                       /* threads 1 .. made exist */
    _Atomic uint32_t runs;          /* omp_pool_run() calls so far */
    void (*member)(int local, void *arg);
    void *arg;
    int n;
    _Atomic uint32_t arrived;       /* threads other than the leader, at the barrier */
    _Atomic uint32_t passed;        /* node barriers completed */
    _Atomic uint32_t bell;          /* rung when a barrier completes or a task is queued */
    _Atomic uint32_t sleepers;      /* threads asleep on the bell */
    _Atomic uint32_t idle;          /* threads waiting for a run in pool_main */
    _Atomic bool quiescing;         /* omp_pool_quiesce waits for `idle` */
} pool;

void *omp_pool_value;

/* arg: the thread's number in the node (low 16 bits) and the count of runs
 * before the one it is made for (it waits for that one to start). */
static void *pool_main(void *arg)
{
    int local = (int)((uintptr_t)arg & 0xffff);
    uint32_t seen = (uint32_t)((uintptr_t)arg >> 16);
    dsm_fault_thread_init();
    for (;;) {
        atomic_fetch_add(&pool.idle, 1);
        if (atomic_load(&pool.quiescing))
            futex_wake(&pool.idle, INT_MAX);
        futex_await_change(&pool.runs, seen, SPIN);
        atomic_fetch_sub(&pool.idle, 1);
        seen = atomic_load_explicit(&pool.runs, memory_order_acquire);
        if (local < pool.n)
            pool.member(local, pool.arg);
    }
    return NULL;
}

static void make_threads(int n)
{
    for (; pool.made < n - 1; pool.made++) {
        uintptr_t arg = (uintptr_t)atomic_load(&pool.runs) << 16 | (uintptr_t)(pool.made + 1);
        char what[64];
        snprintf(what, sizeof what, "OpenMP thread %d of the node", pool.made + 1);
        omp_app_thread_start(pool_main, (void *)arg, what);
    }
}

/* Threads made here block the signals the program's first thread takes
 * (a program's SIGINT handler runs there, as with libgomp's threads it
 * could run anywhere); the DSM's SIGSEGV stays open. */
void omp_app_thread_start(void *(*fn)(void *), void *arg, const char *what)
{
    sigset_t all, old;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    omp_thread_start(fn, arg, what);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* A stack smaller than this is raised to it: the runtime's own work on the
 * thread (faults are handled on a stack of their own) needs it. */
enum { MIN_STACK = 256 << 10 };

/* OMP_STACKSIZE gives the threads the runtime starts their stack, as
 * libgomp's; unset, the C library's default (the stack limit, as for
 * libgomp's threads). */
void omp_thread_start(void *(*fn)(void *), void *arg, const char *what)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    size_t size = omp_rt.stack_size;
    if (size && size < MIN_STACK)
        size = MIN_STACK;
    int err = size ? pthread_attr_setstacksize(&a, size) : 0;
    pthread_t t;
    if (!err)
        err = pthread_create(&t, &a, fn, arg);
    pthread_attr_destroy(&a);
    if (err && size)
        dsm_fatal("cannot start the %s with a stack of %zu bytes (OMP_STACKSIZE): %s", what, size, strerror(err));
    if (err)
        dsm_fatal("cannot start the %s: %s", what, strerror(err));
}

void omp_pool_run(int n, void (*member)(int local, void *arg), void *arg)
{
    if (n < 2)
        return;
    make_threads(n);
    pool.member = member;
    pool.arg = arg;
    pool.n = n;
    atomic_fetch_add_explicit(&pool.runs, 1, memory_order_release);
    futex_wake(&pool.runs, INT_MAX);
}

/* The leader passes a region's last barrier before its other threads have
 * left it: they may still be polling the network for news (wait_helping),
 * for up to a millisecond.  Before the node leaves the job and releases
 * the transport, they must be back here: a node's thread that polled a
 * released worker jumped to a stale address (NAS-style task_fib at 2
 * nodes x 2 threads, about one exit in 40). */
void omp_pool_quiesce(void)
{
    atomic_store(&pool.quiescing, true);
    uint32_t idle;
    while ((idle = atomic_load(&pool.idle)) != (uint32_t)pool.made)
        futex_wait(&pool.idle, idle);
}

void omp_pool_ring(void)
{
    atomic_fetch_add(&pool.bell, 1);
    if (atomic_load(&pool.sleepers))
        futex_wake(&pool.bell, INT_MAX);
}

/* Until *w differs from v, running the node's queued tasks meanwhile, and
 * other nodes' while the node waits in a barrier's release: those come
 * as news of the DSM, not on the bell, so the thread then sleeps on the
 * news for 50 us at first, doubling up to a millisecond, as the thread in
 * the barrier does. */
static void wait_helping(_Atomic uint32_t *w, uint32_t v)
{
    unsigned us = 50;
    for (;;) {
        for (int i = 0; i < SPIN && atomic_load_explicit(w, memory_order_acquire) == v; i++)
            __builtin_ia32_pause();
        if (atomic_load_explicit(w, memory_order_acquire) != v)
            return;
        if (omp_task_help())
            continue;
        uint32_t news = dsm_news();
        if (omp_task_steal_arrived()) {
            us = 50;
            continue;
        }
        if (omp_task_elsewhere()) {
            dsm_news_wait(news, us);
            us = us < 1000 ? 2 * us : 1000;
            continue;
        }
        uint32_t bell = atomic_load(&pool.bell);
        atomic_fetch_add(&pool.sleepers, 1);
        if (atomic_load(w) == v && !omp_task_queued())
            futex_wait(&pool.bell, bell);
        atomic_fetch_sub(&pool.sleepers, 1);
    }
}

void omp_pool_barrier(void (*leader_work)(void *arg), void *arg)
{
    uint32_t others = (uint32_t)omp_rt.local - 1;
    if (omp_thr.level != 1 || others == 0) {
        if (leader_work)
            leader_work(arg);
        return;
    }
    uint32_t passed = atomic_load_explicit(&pool.passed, memory_order_acquire);
    if (omp_thr.local != 0) {
        if (atomic_fetch_add(&pool.arrived, 1) + 1 == others)
            omp_pool_ring();
        wait_helping(&pool.passed, passed);
        return;
    }
    uint32_t a;
    while ((a = atomic_load_explicit(&pool.arrived, memory_order_acquire)) != others)
        wait_helping(&pool.arrived, a);
    atomic_store(&pool.arrived, 0);
    if (leader_work)
        leader_work(arg);
    atomic_fetch_add_explicit(&pool.passed, 1, memory_order_release);
    omp_pool_ring();
}
