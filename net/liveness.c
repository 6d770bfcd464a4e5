/*
 * liveness.c: detects a node that stops responding without dying.
 *
 * A node that dies is seen by its launcher (waitpid), which ends the job.
 * A node that stops (SIGSTOP, a hung machine, a lost link) is not, and UCX
 * cannot tell on its shared-memory transports.  So the nodes form a ring:
 * every node's progress thread sends a heartbeat to its successor every
 * period and checks that its predecessor's heartbeats keep coming.  After
 * OMPDSM_NODE_TIMEOUT seconds without one, the node stops with a message
 * naming its predecessor; its non-zero exit makes the launcher (ompdsm-run,
 * mpirun, srun -K) end the job.  One message per node per period: the
 * progress thread wakes for it and sleeps otherwise.
 */
#include "liveness.h"
#include "net.h"
#include "../util/clock.h"
#include "../util/log.h"

#include <stdatomic.h>
#include <stdbool.h>


static struct {
    int pred, succ;
    double timeout;                  /* seconds, as OMPDSM_NODE_TIMEOUT said */
    uint64_t timeout_ns, period_ns, next_beat, last_tick;
    _Atomic uint64_t last_heard;     /* from pred, monotonic ns */
    _Atomic bool stopped;
} live;

static void on_heartbeat(int src, void *body, size_t len)
{
    (void)body;
    (void)len;
    if (src == live.pred)
        atomic_store(&live.last_heard, dsm_now_ns());
}

/* Runs in the progress thread at least once per period.  If this node
 * itself was stopped for a while, its predecessor's silence proves nothing:
 * the clock starts again. */
static void tick(void)
{
    if (atomic_load(&live.stopped))
        return;
    uint64_t now = dsm_now_ns();
    if (now - live.last_tick > live.timeout_ns / 2)
        atomic_store(&live.last_heard, now);
    live.last_tick = now;
    if (now >= live.next_beat) {
        net_send(live.succ, NET_OP_HEARTBEAT, NULL, 0, NULL, 0);
        live.next_beat = now + live.period_ns;
    }
    /* A heartbeat handled by another thread since `now` was read is newer
     * than now. */
    uint64_t heard = atomic_load(&live.last_heard);
    uint64_t silent = now > heard ? now - heard : 0;
    if (silent > live.timeout_ns)
        dsm_fatal("node %d stopped responding: no heartbeat for %.1f s (OMPDSM_NODE_TIMEOUT=%g)",
                  live.pred, (double)silent / 1e9, live.timeout);
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
    live.next_beat = 0;
    live.last_tick = dsm_now_ns();
    atomic_store(&live.last_heard, live.last_tick);
    net_set_timer((unsigned)(live.period_ns / 1000000u), tick);
}

void net_liveness_stop(void)
{
    atomic_store(&live.stopped, true);
}
