/*
 * parallel.c: parallel regions (GOMP_parallel and its combined forms) and
 * the loop in which nodes other than 0 wait for them.
 *
 * Starting a region is one DSM barrier whose release carries the region
 * from node 0 to every node: the outlined function, its data (an address
 * on node 0's shared stack or in shared memory) and, for combined
 * constructs, the loop or sections to set up.  The barrier also publishes
 * what node 0 wrote sequentially.  Ending a region is a second barrier.
 * Function pointers are valid on every node because every node runs the
 * same executable at the same address (ompdsm-run disables address space
 * randomisation; omp_rt_register() checks it).
 *
 * A parallel region met inside another one runs with a team of one thread
 * (nesting is inactive, as libgomp does by default), as does one whose
 * if clause is false or that asks for one thread.
 *
 * A team of k threads, fewer than the nodes (num_threads(k),
 * omp_set_num_threads(k), OMP_NUM_THREADS=k), runs on nodes 0 .. k-1: its
 * barriers are among those nodes only (dsm_barrier_group).  The other
 * nodes learn the region from its starting barrier, like every node, and
 * sit it out: they serve pages, diffs, locks and atomics from their
 * progress threads and wait until node 0 wakes them, at the end of the
 * region (with the write notices they missed and the state that decides
 * home migrations), or for a home migration, which needs every node.  A
 * request for more threads than nodes gives the team of all nodes (one
 * thread per node), reported once.
 */
#include "omp_rt.h"
#include "gomp_abi.h"
#include "loop.h"

#include "../dsm/dsm.h"
#include "../migrate/migrate.h"
#include "../net/boot.h"
#include "../profiler/prof.h"
#include "../util/clock.h"
#include "../util/log.h"

#include <stdlib.h>
#include <string.h>

enum cmd_kind { CMD_REGION = 1, CMD_EXIT = 2 };

/* Why node 0 wakes the idle nodes of a team (MIG_WAKE: a migration). */
enum { WAKE_REGION_END = 2 };

struct region_cmd {
    uint32_t kind;
    int32_t status;                     /* CMD_EXIT */
    int32_t team;                       /* CMD_REGION: nodes 0 .. team-1 run it */
    void (*fn)(void *);
    void *data;
    struct omp_loop_args loop;          /* loop.kind 0: none */
    unsigned sections;                  /* combined parallel sections */
    struct omp_icv icv;                 /* node 0's, as omp_set_* left them */
};

/* The team of the innermost region this node runs. */
static struct {
    int size, num;
} team = { 1, 0 };

int omp_rt_team_size(void)
{
    return team.size;
}

int omp_rt_thread_num(void)
{
    return team.num;
}

void omp_rt_barrier(void)
{
    if (team.size == 1)
        return;
    omp_task_drain();
    uint64_t t0 = dsm_now_ns();
    dsm_barrier();
    prof_sync(PROF_BARRIER, t0, dsm_now_ns(), 0);
}

void omp_rt_end_barrier(uintptr_t loop)
{
    if (team.size == 1)
        return;
    omp_task_drain();
    uint64_t t0 = dsm_now_ns(), in = dsm_stats.pages_migrated_in;
    bool migrated = mig_counted_barrier(loop);
    prof_sync(migrated ? PROF_MIGRATION : PROF_BARRIER, t0, dsm_now_ns(), dsm_stats.pages_migrated_in - in);
}

static void enter_team(int size)
{
    omp_rt.level = 1;
    omp_rt.active = size > 1;
    omp_rt.ws_seq = 0;
    omp_rt.region++;
    omp_rt.team = size;
    omp_rt.in_team = true;
    team.size = size;
    team.num = omp_rt.node;
    dsm_barrier_group(size);
    mig_team_starts();
}

/* loop: the worksharing loop that ends the region, or 0.
 * Node 0 then wakes the nodes that sat the region out. */
static void leave_team(uintptr_t loop)
{
    omp_rt_end_barrier(loop);
    omp_ws_reset();
    omp_steal_reset();
    if (omp_rt.node == 0 && team.size < omp_rt.nodes) {
        size_t len;
        void *state = mig_state_export(&len);
        dsm_barrier_wake_idle(WAKE_REGION_END, state, len);
        free(state);
    }
    dsm_barrier_group(omp_rt.nodes);
    team.size = 1;
    team.num = 0;
    omp_rt.team = 1;
    omp_rt.in_team = false;
    omp_rt.level = 0;
    omp_rt.active = false;
}

/* A node outside the team of a region: idle until node 0 wakes it at the
 * end, taking part in the home migrations of the region meanwhile. */
static void sit_out(void)
{
    omp_rt.region++;
    for (;;) {
        void *data;
        size_t len;
        uint32_t why = dsm_barrier_idle_wait(&data, &len);
        if (why == MIG_WAKE) {
            mig_migrate();
        } else if (why == WAKE_REGION_END) {
            mig_state_import(data, len);
            free(data);
            return;
        } else {
            dsm_fatal("internal: an idle node woken for %u", why);
        }
        free(data);
    }
}

static void set_up_worksharing(const struct region_cmd *c)
{
    if (c->loop.kind)
        omp_loop_init(&c->loop);
    if (c->sections)
        omp_sections_init(c->sections);
}

static void run_region(const struct region_cmd *c)
{
    omp_icv = c->icv;
    if (omp_rt.node >= c->team) {
        sit_out();
        return;
    }
    enter_team(c->team);
    set_up_worksharing(c);
    omp_rt_call_user(c->fn, c->data);
    leave_team(c->loop.kind ? c->loop.where : omp_loop_last_site());
}

int omp_rt_worker_loop(void)
{
    for (;;) {
        size_t len;
        struct region_cmd *c = dsm_barrier_bcast(NULL, 0, &len);
        if (!c || len != sizeof *c)
            dsm_fatal("internal: bad parallel region command (%zu bytes)", len);
        if (c->kind == CMD_EXIT) {
            int status = c->status;
            free(c);
            return status;
        }
        run_region(c);
        free(c);
    }
}

void omp_rt_broadcast_exit(int status)
{
    if (omp_rt.in_team)
        dsm_fatal("internal: the ordinary end of the job inside a parallel region");
    struct region_cmd c = { .kind = CMD_EXIT, .status = status };
    free(dsm_barrier_bcast(&c, sizeof c, NULL));
}

/* A region with a team of one thread (nested, if(0), num_threads(1)):
 * no communication; the active level is the enclosing one. */
static void run_alone(const struct region_cmd *c)
{
    int size = team.size, num = team.num, level = omp_rt.level;
    uint64_t seq = omp_rt.ws_seq;
    team.size = 1;
    team.num = 0;
    omp_rt.level++;
    set_up_worksharing(c);
    omp_rt_call_user(c->fn, c->data);
    team.size = size;
    team.num = num;
    omp_rt.level = level;
    omp_rt.ws_seq = seq;
}

/* The size of the team of a new region: num_threads is the clause's value
 * (1 for if(0) too), 0 without a clause, then the nthreads ICV
 * (omp_set_num_threads, OMP_NUM_THREADS) decides; at most one thread per
 * node and OMP_THREAD_LIMIT. */
static int team_size_for(unsigned num_threads)
{
    long k = num_threads ? (long)num_threads : omp_icv.nthreads > 0 ? omp_icv.nthreads : omp_rt.nodes;
    if (k > omp_rt.nodes) {
        static bool told;
        if (!told && omp_rt.node == 0)
            dsm_warn("a parallel region asks for %ld threads (num_threads, omp_set_num_threads or "
                     "OMP_NUM_THREADS): ompdsm runs one OpenMP thread per node; the team has %d threads",
                     k, omp_rt.nodes);
        told = true;
        k = omp_rt.nodes;
    }
    if (k > omp_icv.thread_limit)
        k = omp_icv.thread_limit;
    return (int)k;
}

static void start_region(struct region_cmd *c, unsigned num_threads)
{
    int size = omp_rt.level > 0 ? 1 : team_size_for(num_threads);
    if (size == 1) {
        run_alone(c);
        return;
    }
    c->kind = CMD_REGION;
    c->team = size;
    c->icv = omp_icv;
    free(dsm_barrier_bcast(c, sizeof *c, NULL));
    run_region(c);
}

/* num_threads is 1 for if(0) and num_threads(1): a team of one; otherwise
 * team_size_for() decides. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    OMP_RT_ENTRY;
    (void)flags;
    struct region_cmd c = { .fn = fn, .data = data };
    start_region(&c, num_threads);
}

void omp_rt_parallel_loop(void (*fn)(void *), void *data, unsigned num_threads, const struct omp_loop_args *loop)
{
    struct region_cmd c = { .fn = fn, .data = data, .loop = *loop };
    start_region(&c, num_threads);
}

void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                            unsigned flags)
{
    OMP_RT_ENTRY;
    (void)flags;
    struct region_cmd c = { .fn = fn, .data = data, .sections = count };
    start_region(&c, num_threads);
}

/* The interface of GCC before 4.9: the caller runs fn itself between the
 * two calls. */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    OMP_RT_ENTRY;
    if (omp_rt.level > 0)
        dsm_fatal("nested GOMP_parallel_start is not supported");
    struct region_cmd c = { .kind = CMD_REGION, .fn = fn, .data = data, .icv = omp_icv,
                            .team = team_size_for(num_threads) };
    free(dsm_barrier_bcast(&c, sizeof c, NULL));
    enter_team(c.team);
}

void GOMP_parallel_end(void)
{
    OMP_RT_ENTRY;
    leave_team(omp_loop_last_site());
}

/* Every node must run the same executable at the same address: function
 * pointers travel in region commands. */
static void check_same_image(void)
{
    uintptr_t mine[2] = { (uintptr_t)&GOMP_parallel, (uintptr_t)dsm.segs[0].base };
    if (omp_rt.nodes == 1)
        return;
    size_t lens[omp_rt.nodes];
    uintptr_t *all = boot_allgather(BOOT_TAG_SAME_IMAGE, mine, sizeof mine, lens);
    for (int n = 0; n < omp_rt.nodes; n++)
        if (all[2 * n] != mine[0] || all[2 * n + 1] != mine[1])
            dsm_fatal("node %d runs the program at another address than node %d: start every node with "
                      "the same binary and address space randomisation off (ompdsm-run does this)",
                      n, omp_rt.node);
    free(all);
}

void omp_rt_register(void)
{
    omp_ws_register();
    omp_steal_register();
    omp_exit_register();
    omp_profiled_init();
    check_same_image();     /* also a barrier: every node's handlers are in place */
    prof_init(omp_rt.exe_base);
}
