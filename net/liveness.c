/*
 * liveness.c: detects a node that stops responding without dying.
 *
 * A node that dies is seen by its launcher (waitpid), which ends the job.
 * A node that stops (SIGSTOP, a hung machine, a lost link) is not, and UCX
 * cannot tell on its shared-memory transports.  So the nodes form a ring:
 * every node sends a heartbeat to its successor every period and checks
 * that its predecessor's heartbeats keep coming.  After OMPDSM_NODE_TIMEOUT
 * seconds without one, the node stops with a message naming its
 * predecessor; its non-zero exit makes the launcher (ompdsm-run, mpirun,
 * srun -K) end the job.
 *
 * A thread of its own does it, asleep between periods: the progress thread
 * may be held up by the stopped node itself (a handler waiting for a page
 * lock that a thread of this node holds while it waits for that node), and
 * a node whose heartbeats stop for that reason would be named in place of
 * the one that stopped (seen: a 4-node job whose node 2 was stopped ended
 * with node 0 naming node 3).  For the same reason a heartbeat is not
 * waited for longer than half a period while another thread holds the
 * transport: the judgement must come on time.
 */
#include "liveness.h"
#include "net.h"
#include "../util/clock.h"
#include "../util/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static struct {
    int pred, succ;
    double timeout;                  /* seconds, as OMPDSM_NODE_TIMEOUT said */
    uint64_t timeout_ns, period_ns, last_tick;
    _Atomic uint64_t last_heard;     /* from pred, monotonic ns */
    bool running;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;               /* signalled by net_liveness_stop */
    bool stopped;                    /* under mu */
} live = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void on_heartbeat(int src, void *body, size_t len)
{
    (void)body;
    (void)len;
    if (src == live.pred)
        atomic_store(&live.last_heard, dsm_now_ns());
}

static uint64_t silence(uint64_t now)
{
    /* A heartbeat handled by another thread since `now` was read is newer
     * than now. */
    uint64_t heard = atomic_load(&live.last_heard);
    return now > heard ? now - heard : 0;
}

/* Sends the heartbeat, retrying every millisecond while another thread
 * holds the transport, for at most half a period. */
static void beat(uint64_t now)
{
    while (!net_try_send(live.succ, NET_OP_HEARTBEAT) && dsm_now_ns() - now < live.period_ns / 2)
        nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
}

/* One period's work.  If this node itself was stopped for a while, its
 * predecessor's silence proves nothing: the clock starts again.  Before a
 * node is named, the transport is progressed once here, in case its
 * heartbeat has arrived and only waits to be handled. */
static void tick(void)
{
    uint64_t now = dsm_now_ns();
    if (now - live.last_tick > live.timeout_ns / 2)
        atomic_store(&live.last_heard, now);
    live.last_tick = now;
    beat(now);
    if (silence(now) <= live.timeout_ns)
        return;
    net_poll();
    now = dsm_now_ns();
    uint64_t silent = silence(now);
    if (silent > live.timeout_ns)
        dsm_fatal("node %d stopped responding: no heartbeat for %.1f s (OMPDSM_NODE_TIMEOUT=%g)",
                  live.pred, (double)silent / 1e9, live.timeout);
}

static void *liveness_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&live.mu);
    while (!live.stopped) {
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        uint64_t ns = (uint64_t)at.tv_nsec + live.period_ns;
        at.tv_sec += (time_t)(ns / 1000000000u);
        at.tv_nsec = (long)(ns % 1000000000u);
        while (!live.stopped && pthread_cond_timedwait(&live.cv, &live.mu, &at) != ETIMEDOUT)
            ;
        if (live.stopped)
            break;
        pthread_mutex_unlock(&live.mu);
        tick();
        pthread_mutex_lock(&live.mu);
    }
    pthread_mutex_unlock(&live.mu);
    return NULL;
}

void net_liveness_register(int node, int nodes, double timeout)
{
    net_register(NET_OP_HEARTBEAT, on_heartbeat);
    if (nodes < 2 || timeout <= 0)
        return;
    live.pred = (node + nodes - 1) % nodes;
    live.succ = (node + 1) % nodes;
    live.timeout = timeout;
    live.timeout_ns = (uint64_t)(timeout * 1e9);
    /* Four beats per timeout, at most one a second. */
    live.period_ns = live.timeout_ns / 4;
    if (live.period_ns > 1000000000u)
        live.period_ns = 1000000000u;
    live.last_tick = dsm_now_ns();
    atomic_store(&live.last_heard, live.last_tick);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&live.cv, &ca);
    pthread_condattr_destroy(&ca);
    int err = pthread_create(&live.thread, NULL, liveness_main, NULL);
    if (err)
        dsm_fatal("cannot start the liveness thread: %s", strerror(err));
    pthread_setname_np(live.thread, "ompdsm-liveness");
    live.running = true;
}

void net_liveness_stop(void)
{
    if (!live.running)
        return;
    pthread_mutex_lock(&live.mu);
    live.stopped = true;
    pthread_cond_signal(&live.cv);
    pthread_mutex_unlock(&live.mu);
    pthread_join(live.thread, NULL);
    live.running = false;
}
