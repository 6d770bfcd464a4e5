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
 * A parallel region met inside another one runs with a team of threads of
 * the encountering thread's node (nest.c) where nesting is on, as in
 * libgomp (OMP_MAX_ACTIVE_LEVELS, OMP_NESTED, omp_set_max_active_levels);
 * with a team of one thread where it is off (the default), as does one
 * whose if clause is false or that asks for one thread.
 *
 * A team of k threads is split over the nodes as evenly as possible and
 * numbered node-major (omp_rt.h).  On each node of the team, the node's
 * first thread starts the region's other threads there (pool.c); a team
 * barrier is a barrier among the node's threads whose last step, by the
 * first thread, is the DSM barrier among the team's nodes.
 *
 * A team with fewer threads than the nodes (num_threads(k),
 * omp_set_num_threads(k), OMP_NUM_THREADS=k) runs on nodes 0 .. k-1: its
 * barriers are among those nodes only (dsm_barrier_group).  The other
 * nodes learn the region from its starting barrier, like every node, and
 * sit it out: they serve pages, diffs, locks and atomics from their
 * progress threads and wait until node 0 wakes them, at the end of the
 * region (with the write notices they missed and the state that decides
 * home migrations), or for a home migration, which needs every node.  A
 * request for more threads than all nodes run gives the team of all of
 * them, reported once.
 */
#include "omp_rt.h"
#include "gomp_abi.h"
#include "loop.h"
#include "task.h"

#include "../dsm/dsm.h"
#include "../migrate/migrate.h"
#include "../net/boot.h"
#include "../profiler/prof.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "../util/xalloc.h"

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
    const struct task_red *red;         /* reduction(task, ...): GOMP_parallel_reductions */
    int32_t teams, team_num;            /* the encountering thread's league (teams.c) */
    struct omp_icv icv;                 /* node 0's, as omp_set_* left them */
};

__thread struct omp_thr omp_thr = { .size = 1 };

int omp_rt_team_size(void)
{
    return omp_thr.size;
}

int omp_rt_thread_num(void)
{
    return omp_thr.num;
}

int omp_rt_max_threads(void)
{
    return omp_rt.nodes * omp_rt.threads;
}

long omp_rt_nthreads(void)
{
    int n = omp_thr.nthreads > 0 ? omp_thr.nthreads : omp_icv.nthreads;
    return n > 0 ? n : omp_rt_max_threads();
}

int omp_rt_nthreads_at(int level, int inherited)
{
    int listed = level >= 2 && level - 2 < OMP_NTHREADS_LEVELS ? omp_icv.nthreads_list[level - 2] : 0;
    return listed ? listed : inherited;
}

long omp_rt_team_bound(long k)
{
    long most = (long)omp_rt.nodes * OMP_RT_NODE_THREADS_MAX;
    k = k < omp_icv.thread_limit ? k : omp_icv.thread_limit;
    return k < most ? k : most;
}

/* The leader's part of a team barrier: the DSM barrier among the team's
 * nodes. */
static void among_nodes(void *arg)
{
    (void)arg;
    if (omp_rt.team_nodes < 2)
        return;
    uint64_t t0 = prof_tracing() ? dsm_now_ns() : 0;
    dsm_barrier();
    if (t0)
        prof_sync(PROF_BARRIER, t0, dsm_now_ns(), 0);
}

/* A team of one has nobody to wait for, only its tasks (task.c's
 * run_now: detached ones, and those after them); a nested team's threads
 * wait for each other on their node (nest.c). */
static bool alone_at_barrier(void)
{
    if (omp_thr.nest) {
        omp_nest_barrier();
        return true;
    }
    if (omp_thr.size > 1)
        return false;
    if (omp_thr.level == 1)
        omp_task_drain();
    return true;
}

void omp_rt_barrier(void)
{
    if (alone_at_barrier())
        return;
    omp_cancel_passed_barrier();
    omp_task_drain();
    omp_pool_barrier(among_nodes, NULL);
}

/* The leader's part of a region's or loop's end barrier; arg: the loop. */
static void end_among_nodes(void *arg)
{
    if (omp_rt.team_nodes < 2)
        return;
    uint64_t t0 = prof_tracing() ? dsm_now_ns() : 0, in = dsm_stats.pages_migrated_in;
    bool migrated = mig_counted_barrier(*(const uintptr_t *)arg);
    if (t0)
        prof_sync(migrated ? PROF_MIGRATION : PROF_BARRIER, t0, dsm_now_ns(), dsm_stats.pages_migrated_in - in);
}

void omp_rt_end_barrier(uintptr_t loop)
{
    if (alone_at_barrier())
        return;
    omp_cancel_passed_barrier();
    omp_task_drain();
    omp_pool_barrier(end_among_nodes, &loop);
}

/* The split of a team of `size` threads over the nodes, as even as
 * possible, numbered node-major: this node's count and first number. */
static void split_team(int size)
{
    uint64_t n = (uint64_t)size, nodes = (uint64_t)omp_rt.nodes, node = (uint64_t)omp_rt.node;
    omp_rt.team_nodes = size < omp_rt.nodes ? size : omp_rt.nodes;
    omp_rt.first = (int)omp_split_start(node, n, nodes);
    omp_rt.local = (int)omp_split_start(node + 1, n, nodes) - omp_rt.first;
}

/* The node's part of starting a region, by its first thread. */
static void enter_team(int size)
{
    omp_rt.region++;
    omp_rt.team = size;
    omp_rt.in_team = true;
    split_team(size);
    dsm_barrier_group(omp_rt.team_nodes);
    mig_team_starts();
}

/* The calling thread becomes the node's thread `local` of the team of c. */
static void join_team(const struct region_cmd *c, int local)
{
    omp_thr = (struct omp_thr){ .size = omp_rt.team, .num = omp_rt.first + local, .local = local, .level = 1,
                                .active_level = omp_rt.team > 1, .active = omp_rt.team > 1,
                                .nthreads = omp_rt_nthreads_at(2, 0), .teams = c->teams, .team_num = c->team_num };
    omp_affinity_team_joined();
}

/* loop: the worksharing loop that ends the region, or 0; data: the
 * region's data.  Node 0 then wakes the nodes that sat the region out. */
static void leave_team(uintptr_t loop, const void *data)
{
    omp_cancel_region_end();
    /* The other nodes run no application code from here to the next
     * command, whose data is likely on the page of this one's, once the
     * node's other threads reach its part of the end barrier, which the
     * DSM barrier waits for.  Not before the rounds of a team that may
     * cancel end: their DSM barriers let threads go back to the region
     * (dsm_idle_begin: an idle node's copies lag, and its barriers after
     * the first publish nothing). */
    if (omp_rt.node != 0)
        dsm_idle_begin(data);
    omp_rt_end_barrier(loop);
    omp_ws_reset();
    omp_doacross_reset();
    omp_steal_reset();
    if (omp_rt.node == 0 && omp_rt.team_nodes < omp_rt.nodes) {
        size_t len;
        void *state = mig_state_export(&len);
        dsm_barrier_wake_idle(WAKE_REGION_END, state, len);
        free(state);
    }
    dsm_barrier_group(omp_rt.nodes);
    omp_thr = (struct omp_thr){ .size = 1, .teams = omp_thr.teams, .team_num = omp_thr.team_num };
    omp_rt.team = 1;
    omp_rt.in_team = false;
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
            mig_migrate(true);
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
    omp_task_region_reductions(c->red);
    if (c->loop.kind)
        omp_loop_init(&c->loop);
    if (c->sections)
        omp_sections_init(c->sections);
}

/* The loop that ends the region, for home migration (mig_counted_barrier):
 * a combined loop's call site, or the last loop the region ran.  A region
 * that ran none names itself by its outlined function, the same address at
 * every node: the compiler schedules a `parallel for` without a schedule
 * clause itself (GCC computes the static blocks inline and calls no
 * GOMP_loop function), and with no loop to name, the ends of such regions
 * were never the loop ends at which OMPDSM_MIGRATE=auto and first migrate,
 * so their pages stayed with the master that allocated them. */
static uintptr_t ending_loop(const struct region_cmd *c)
{
    if (c->loop.kind)
        return c->loop.where;
    uintptr_t site = omp_loop_last_site();
    return site ? site : (uintptr_t)(void *)c->fn;
}

/* The part of a region that a node's thread other than the first runs. */
static void member(int local, void *arg)
{
    const struct region_cmd *c = arg;
    join_team(c, local);
    set_up_worksharing(c);
    omp_rt_call_user(c->fn, c->data);
    omp_cancel_region_end();
    omp_rt_end_barrier(ending_loop(c));
    omp_thr = (struct omp_thr){ .size = 1 };
}

/* The node's first thread starts the region on its node, and the others. */
static void start_team(const struct region_cmd *c)
{
    enter_team(c->team);
    join_team(c, 0);
    omp_pool_run(omp_rt.local, member, (void *)c);
    set_up_worksharing(c);
}

/* A region that asks for more threads than the nodes run by default
 * (num_threads, omp_set_num_threads or OMP_NUM_THREADS larger than nodes x
 * threads) gets them, as libgomp starts more threads than there are CPUs:
 * every node makes room for its share, at the same region.  The region's
 * start was a release of every node, and no application thread runs yet,
 * which the DSM needs to stop keeping hot pages (dsm_set_app_threads). */
static void make_room(int team)
{
    int per = (team + omp_rt.nodes - 1) / omp_rt.nodes;
    if (per > dsm.app_threads)
        dsm_set_app_threads(per);
}

static void run_region(const struct region_cmd *c)
{
    omp_icv = c->icv;
    make_room(c->team);
    split_team(c->team);
    if (omp_rt.node >= omp_rt.team_nodes) {
        sit_out();
        return;
    }
    start_team(c);
    omp_rt_call_user(c->fn, c->data);
    leave_team(ending_loop(c), c->data);
}

int omp_rt_worker_loop(void)
{
    for (;;) {
        size_t len;
        struct region_cmd *c = dsm_barrier_bcast(NULL, 0, &len);
        if (!c || (len != sizeof *c && len != sizeof *c + dsm.page_size))
            dsm_fatal("internal: bad parallel region command (%zu bytes)", len);
        if (len > sizeof *c)
            dsm_install_copy(c->data, 0, c + 1);
        dsm_idle_end();
        omp_tls_mirror_apply();
        omp_files_apply();
        omp_proc_state_apply();
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
    struct omp_thr outer = omp_thr;
    struct omp_loop_state loop;
    omp_loop_state_save(&loop);
    /* local stays: the node's state of the enclosing team is keyed by it */
    omp_thr = (struct omp_thr){ .size = 1, .local = outer.local, .level = outer.level + 1,
                                .active_level = outer.active_level, .active = outer.active,
                                .nthreads = omp_rt_nthreads_at(outer.level + 2, outer.nthreads),
                                .teams = outer.teams, .team_num = outer.team_num, .up = &outer };
    const struct task_red *red = omp_task_reductions();
    set_up_worksharing(c);
    omp_rt_call_user(c->fn, c->data);
    alone_at_barrier();
    omp_task_region_reductions(red);
    omp_thr = outer;
    omp_loop_state_restore(&loop);
}

/* The size of the team of a new region: num_threads is the clause's value
 * (1 for if(0) too), 0 without a clause, then omp_rt_nthreads() decides,
 * within omp_rt_team_bound().  A team larger than the nodes run makes room
 * on every node (make_room). */
static int team_size_for(unsigned num_threads)
{
    long k = num_threads ? (long)num_threads : omp_rt_nthreads(), got = omp_rt_team_bound(k);
    if (got < k && got < omp_icv.thread_limit) {
        static bool told;
        if (!told && omp_rt.node == 0)
            dsm_warn("a parallel region asks for %ld threads (num_threads, omp_set_num_threads or "
                     "OMP_NUM_THREADS): %d nodes run at most %d OpenMP threads each; the team has %ld threads",
                     k, omp_rt.nodes, OMP_RT_NODE_THREADS_MAX, got);
        told = true;
    }
    return (int)got;
}

/* Node 0 starts a region at the other nodes.  The region's data (GCC's
 * block of the shared variables' addresses and the firstprivate values)
 * is on node 0's stack, which it writes between regions: every other node
 * would fault on that page and fetch it at every region (100,000 read
 * faults for 100,000 empty `parallel for` at 2 nodes, 13 us each here).
 * The page's bytes, which node 0 holds as its home, go with the command
 * instead, and each node installs them as its copy (dsm_install_copy),
 * as the fetch would have at that moment. */
static void bcast_region(const struct region_cmd *c)
{
    omp_tls_mirror_publish();
    omp_files_publish();
    omp_proc_state_publish();
    const void *page = c->data ? dsm_home_page_bytes(c->data) : NULL;
    if (!page) {
        free(dsm_barrier_bcast(c, sizeof *c, NULL));
        return;
    }
    size_t ps = dsm.page_size;
    char *msg = xmalloc(sizeof *c + ps);
    memcpy(msg, c, sizeof *c);
    memcpy(msg + sizeof *c, page, ps);
    free(dsm_barrier_bcast(msg, sizeof *c + ps, NULL));
    free(msg);
}

/* The team of a region met inside another: a nested team of the
 * encountering thread's node (nest.c) where one more active level is
 * allowed, as in libgomp; else one thread. */
static int nested_size(unsigned num_threads)
{
    long k = num_threads ? (long)num_threads : omp_rt_nthreads();
    if (k < 2 || omp_thr.active_level >= omp_icv.max_active_levels)
        return 1;
    k = k < omp_icv.thread_limit ? k : omp_icv.thread_limit;
    return (int)(k < OMP_RT_NODE_THREADS_MAX ? k : OMP_RT_NODE_THREADS_MAX);
}

/* What each thread of a nested team runs (nest.c). */
static void nested_member(void *arg)
{
    const struct region_cmd *c = arg;
    set_up_worksharing(c);
    omp_rt_call_user(c->fn, c->data);
}

static void run_nested(const struct region_cmd *c, int size)
{
    const struct task_red *red = omp_task_reductions();
    struct omp_loop_state loop;
    omp_loop_state_save(&loop);
    omp_nest_run(size, nested_member, (void *)c);
    omp_task_region_reductions(red);
    omp_loop_state_restore(&loop);
}

static int region_size(unsigned num_threads)
{
    return omp_thr.level > 0 ? nested_size(num_threads) : team_size_for(num_threads);
}

/* The ICVs OpenMP keeps per task, as libgomp: what a thread of a region
 * set with omp_set_schedule, omp_set_dynamic or omp_set_max_active_levels
 * is forgotten when the region ends and the master's task goes on.  (Inside
 * the region the node's threads share them.) */
static void task_icvs_back(const struct omp_icv *before)
{
    omp_icv.sched = before->sched;
    omp_icv.chunk = before->chunk;
    omp_icv.monotonic = before->monotonic;
    omp_icv.dynamic = before->dynamic;
    omp_icv.max_active_levels = before->max_active_levels;
}

static void start_region(struct region_cmd *c, unsigned num_threads)
{
    int size = region_size(num_threads);
    if (omp_thr.level > 0) {
        if (size == 1)
            run_alone(c);
        else
            run_nested(c, size);
        return;
    }
    struct omp_icv before = omp_icv;
    if (size == 1) {
        run_alone(c);
    } else {
        c->kind = CMD_REGION;
        c->team = size;
        c->teams = omp_thr.teams;
        c->team_num = omp_thr.team_num;
        c->icv = omp_icv;
        bcast_region(c);
        run_region(c);
    }
    task_icvs_back(&before);
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

/* reduction(task, ...) on parallel: data's first word points to GCC's
 * array of the reductions (task_red.c), whose copies every thread of the
 * team gets; GCC's code merges them after the region.  Returns the
 * team's size. */
unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    OMP_RT_ENTRY;
    (void)flags;
    int size = region_size(num_threads);
    const struct task_red *red = omp_task_red_make(*(uintptr_t **)data, size, __builtin_return_address(0));
    struct region_cmd c = { .fn = fn, .data = data, .red = red };
    start_region(&c, num_threads);
    if (omp_thr.level == 0)
        omp_task_region_reductions(NULL);       /* GCC's code frees them next */
    return (unsigned)size;
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
    if (omp_thr.level > 0)
        dsm_fatal("nested GOMP_parallel_start is not supported");
    /* The node's other threads read it until the region ends. */
    static struct region_cmd c;
    c = (struct region_cmd){ .kind = CMD_REGION, .fn = fn, .data = data, .icv = omp_icv,
                             .team = team_size_for(num_threads), .teams = omp_thr.teams,
                             .team_num = omp_thr.team_num };
    bcast_region(&c);
    start_team(&c);
}

void GOMP_parallel_end(void)
{
    OMP_RT_ENTRY;
    leave_team(omp_loop_last_site(), NULL);
}

/* Every node must run the same executable at the same address: function
 * pointers travel in region commands; and the same number of threads,
 * which the split of a team assumes. */
static void check_same_image(void)
{
    uintptr_t mine[3] = { (uintptr_t)&GOMP_parallel, (uintptr_t)dsm.segs[0].base, (uintptr_t)omp_rt.threads };
    if (omp_rt.nodes == 1)
        return;
    size_t lens[omp_rt.nodes];
    uintptr_t *all = boot_allgather(BOOT_TAG_SAME_IMAGE, mine, sizeof mine, lens);
    for (int n = 0; n < omp_rt.nodes; n++) {
        if (all[3 * n] != mine[0] || all[3 * n + 1] != mine[1])
            dsm_fatal("node %d runs the program at another address than node %d: start every node with "
                      "the same binary and address space randomisation off (ompdsm-run does this)",
                      n, omp_rt.node);
        if (all[3 * n + 2] != mine[2])
            dsm_fatal("node %d runs %lu OpenMP threads, node %d %lu: every node must have the same "
                      "OMPDSM_THREADS_PER_NODE", n, (unsigned long)all[3 * n + 2], omp_rt.node,
                      (unsigned long)mine[2]);
    }
    free(all);
}

void omp_rt_register(void)
{
    omp_ws_register();
    omp_doacross_register();
    omp_cancel_register();
    omp_steal_register();
    omp_exit_register();
    omp_profiled_init();
    check_same_image();     /* also a barrier: every node's handlers are in place */
    prof_init(omp_rt.exe_base);
}
