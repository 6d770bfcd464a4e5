/*
 * cancel.c: cancellation (OMP_CANCELLATION=true): `cancel` and
 * `cancellation point` for parallel, for, sections and taskgroup, and the
 * barriers that are cancellation points.  With OMP_CANCELLATION false (the
 * default) cancel does nothing and nothing is ever cancelled, as in libgomp.
 *
 * What is cancelled is kept at each node: the region (by its number) and
 * one worksharing construct, named by the region and the number of team
 * barriers its threads have passed in it: the same at every thread, as
 * every thread meets the same barriers, and a construct that can be
 * cancelled ends with one (GCC schedules a static loop without telling the
 * runtime, so the runtime's count of constructs does not name it); the
 * thread that
 * cancels sets them at its node and tells the team's other nodes
 * (OP_CANCEL), whose threads then see it at their next cancellation point.
 * A taskgroup's cancellation is a flag of the taskgroup (task.c), at the
 * node that made it (a task run elsewhere tells that node, OP_TASK_CANCEL):
 * its tasks that have not started are discarded where they are queued.
 *
 * A cancelled region's threads do not all meet the same barriers: the one
 * that cancels goes straight to the region's end while others wait in a
 * barrier that is a cancellation point.  So in a team that may cancel,
 * those barriers and the region's end are rounds of one kind: every thread
 * of the team adds to a sum whether it knows of a cancellation and whether
 * it is at the region's end.  A round returns "cancelled" to the threads in
 * a barrier, which GCC's code sends to the region's end; the threads at the
 * end go round again until all of them are there, and then end the region
 * as usual.  Without a cancellation all threads meet the same rounds, and
 * the end costs one round more than without OMP_CANCELLATION.
 */
#include "gomp_abi.h"
#include "omp_rt.h"
#include "task.h"

#include "../dsm/dsm.h"
#include "../net/net.h"

#include <pthread.h>
#include <stdatomic.h>

/* GCC's `which` (gomp-constants.h) */
enum { CANCEL_PARALLEL = 1, CANCEL_LOOP = 2, CANCEL_SECTIONS = 4, CANCEL_TASKGROUP = 8 };

/* A round's sum: threads that know of a cancellation, above those at the end. */
#define ROUND_CANCELLED (1ULL << 32)
#define ROUND_AT_END 1ULL

static struct {
    _Atomic uint64_t region;            /* the cancelled region's number + 1, 0: none */
    pthread_mutex_t mu;
    uint64_t ws_region, ws_seq;         /* a cancelled worksharing construct (region + 1) */
    _Atomic uint64_t round;             /* this node's threads' part of a round */
} cancelled = { .mu = PTHREAD_MUTEX_INITIALIZER };

struct cancel_msg {
    uint64_t region, seq;
    int32_t which;
};

/* The team barriers the calling thread has passed in its region: the
 * number of the construct it is in. */
static __thread struct {
    uint64_t region, ends;
} in_region;

static uint64_t construct_number(void)
{
    if (in_region.region != omp_rt.region + 1)
        in_region.region = omp_rt.region + 1, in_region.ends = 0;
    return in_region.ends;
}

static bool region_cancelled(void)
{
    return atomic_load(&cancelled.region) == omp_rt.region + 1;
}

static bool construct_cancelled(uint64_t seq)
{
    dsm_lock(&cancelled.mu);
    bool yes = cancelled.ws_region == omp_rt.region + 1 && cancelled.ws_seq == seq;
    dsm_unlock(&cancelled.mu);
    return yes;
}

static void note(int which, uint64_t region, uint64_t seq)
{
    if (which == CANCEL_PARALLEL) {
        atomic_store(&cancelled.region, region + 1);
        return;
    }
    dsm_lock(&cancelled.mu);
    cancelled.ws_region = region + 1;
    cancelled.ws_seq = seq;
    dsm_unlock(&cancelled.mu);
}

static void on_cancel(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    const struct cancel_msg *m = body;
    note(m->which, m->region, m->seq);
}

void omp_cancel_register(void)
{
    net_register(OP_CANCEL, on_cancel);
}

bool GOMP_cancellation_point(int which)
{
    if (!omp_icv.cancellation || ((omp_thr.size == 1 || omp_thr.nest) && which != CANCEL_TASKGROUP))
        return false;
    switch (which) {
    case CANCEL_PARALLEL:
        return region_cancelled();
    case CANCEL_LOOP:
    case CANCEL_SECTIONS:
        return construct_cancelled(construct_number());
    case CANCEL_TASKGROUP:
        return omp_task_group_cancelled();
    default:
        return false;
    }
}

/* do_cancel false: the cancel's if clause is false, a cancellation point. */
bool GOMP_cancel(int which, bool do_cancel)
{
    OMP_RT_ENTRY;
    if (!omp_icv.cancellation)
        return false;
    if (!do_cancel)
        return GOMP_cancellation_point(which);
    if (which == CANCEL_TASKGROUP) {
        omp_task_cancel_group();
        return true;
    }
    if (omp_thr.size == 1 || omp_thr.nest)
        return true;            /* a team of one: nobody else to tell; a nested team's go on (nest.c) */
    uint64_t seq = which == CANCEL_PARALLEL ? 0 : construct_number();
    note(which, omp_rt.region, seq);
    struct cancel_msg m = { .region = omp_rt.region, .seq = seq, .which = which };
    for (int node = 0; node < omp_rt.team_nodes; node++)
        if (node != omp_rt.node)
            net_send(node, OP_CANCEL, &m, sizeof m, NULL, 0);
    return true;
}

/* The leader's part of a round: the node's sum, added up over the team. */
static void add_up(void *arg)
{
    (void)arg;
    uint64_t sum = atomic_exchange(&cancelled.round, 0);
    if (omp_rt.team_nodes > 1)
        sum = dsm_barrier_sum(sum);
    omp_pool_value = (void *)(uintptr_t)sum;
}

static uint64_t round_of(bool at_end)
{
    omp_task_drain();
    atomic_fetch_add(&cancelled.round, (region_cancelled() ? ROUND_CANCELLED : 0) | (at_end ? ROUND_AT_END : 0));
    omp_pool_barrier(add_up, NULL);
    uint64_t sum = (uint64_t)(uintptr_t)omp_pool_value;
    if (sum >= ROUND_CANCELLED)
        atomic_store(&cancelled.region, omp_rt.region + 1);
    return sum;
}

bool omp_cancel_active(void)
{
    return omp_icv.cancellation && omp_thr.size > 1 && !omp_thr.nest;
}

void omp_cancel_passed_barrier(void)
{
    in_region.ends = construct_number() + 1;
}

bool omp_cancel_barrier(void)
{
    omp_cancel_passed_barrier();
    return round_of(false) >= ROUND_CANCELLED;
}

bool GOMP_barrier_cancel(void)
{
    OMP_RT_ENTRY;
    if (omp_cancel_active())
        return omp_cancel_barrier();
    omp_rt_end_barrier((uintptr_t)__builtin_return_address(0));
    return false;
}

void omp_cancel_region_end(void)
{
    if (!omp_cancel_active())
        return;
    while ((round_of(true) & (ROUND_CANCELLED - 1)) < (uint64_t)omp_thr.size)
        ;
}
