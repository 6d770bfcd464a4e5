/*
 * task.c: explicit tasks, deferred and run by the threads of the team, on
 * any node.
 *
 * A task created in a parallel region of several nodes is queued at the
 * node that created it, with its data copied to the shared heap.  Its
 * node runs it at the next task scheduling point (taskwait, the end of a
 * taskgroup, a barrier, the end of the region) unless another node has
 * taken it first: a node that waits (in a barrier, or for its own tasks
 * that others run) asks the nodes that have announced tasks for one
 * (OP_TASK_STEAL) and runs what it gets.  With several threads per node,
 * the node's threads run its queued tasks first; while the node waits in a
 * barrier, every thread of it that waits there steals too (pool.c).  A
 * request names the thief's barrier epoch, and a node in another interval
 * gives nothing.
 *
 * Where a task can run.  Its data must mean the same on the node that runs
 * it.  Node 0's thread runs on a stack in shared memory, so the addresses
 * of its locals are valid everywhere; the other nodes' threads run on
 * private stacks.  A task whose data holds the address of something on the
 * creating thread's private stack (a local shared into the task) stays on
 * its node; every other task may move.  `single` is always executed by
 * node 0 (single.c), so tasks made in a single region move.  The data is
 * scanned word by word at creation for such addresses.
 *
 * Memory.  A moved task must see what its creator wrote before creating it,
 * and its creator what it wrote.  A node publishes its queued tasks (a
 * release whose notices every node has queued, notice.c) only when a node
 * asked for one and found none published; the thief applies its notices
 * before it runs the task; when the task is done the thief publishes its
 * writes the same way before it tells the creator (OP_TASK_DONE).  The
 * creator applies the notices it got when it next waits for the task
 * (taskwait, the end of a taskgroup), even if it finds the task complete
 * by then, and before it runs a sibling that depended on it.  A node that
 * runs a task while it waits in a barrier has already sent its arrival: it
 * also hands the pages the task wrote to the barrier (dsm_barrier_update),
 * which cannot complete before the task's creator, still busy, arrives.
 *
 * Completion.  A task counts as complete when it and the tasks it created
 * are (a task waits for its children at its end).  This is stronger than
 * OpenMP asks, and lets a task's parent and taskgroup live at the creating
 * node only: a node has a count of the tasks it created and that are not
 * complete, and arrives at a barrier only when it is 0 (the barrier is a
 * task scheduling point); so the barrier completes with every task done.
 *
 * Detach.  A task with a detach clause completes when its body is done
 * and its event is fulfilled, whichever comes last, at the node that
 * created it: the event names that node and the task's record there, and
 * omp_fulfill_event on another node publishes the caller's writes and
 * sends the fulfilment there (OP_TASK_FULFILL), as a task run elsewhere
 * sends its completion.  An included task with a detach clause (if(0),
 * final, or outside any region) makes its creator wait for the event.
 *
 * Dependences (depend clauses) hold a task back, at its creating node,
 * until the siblings it depends on are complete (depend.c); it is queued
 * then, and may move like any other.  taskyield does nothing; untied tasks
 * are tied.  if(0), final and included tasks run at
 * once, as do tasks made while more than TASKS_QUEUED_MAX are queued (as
 * libgomp throttles).
 */
#include "gomp_abi.h"

#define API __attribute__((visibility("default")))
API int omp_in_final(void);
#include "omp_rt.h"
#include "task.h"

#include "../dsm/dsm.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* GCC's task flags (gomp-constants.h) */
#define TASK_FLAG_FINAL (1u << 1)
#define TASK_FLAG_DEPEND (1u << 3)
#define TASK_FLAG_UP (1u << 8)
#define TASK_FLAG_GRAINSIZE (1u << 9)
#define TASK_FLAG_IF (1u << 10)
#define TASK_FLAG_NOGROUP (1u << 11)
#define TASK_FLAG_REDUCTION (1u << 12)
#define TASK_FLAG_DETACH (1u << 13)

enum { TASKS_QUEUED_MAX = 256, WAIT_MAX_US = 1000 };

struct steal_req { uint64_t cookie, epoch; };
enum { GIVE_UNPUBLISHED = 1, GIVE_BUSY = 2 };
struct give {
    uint64_t cookie;
    void (*fn)(void *);
    void *data;
    const struct task_red *red;
    uint64_t ticket;
    uint32_t status, pad;
};
struct done { uint64_t ticket; };      /* also OP_TASK_CANCEL's */
struct fulfil { uint64_t event; };
struct hint { uint64_t epoch; };

static struct {
    pthread_mutex_t mu;
    struct task *head, *tail;     /* queued, oldest first */
    size_t queued, unpublished;
    uint64_t ever_queued;         /* tasks queued so far, numbering them */
    bool hungry;                  /* a thief found only unpublished tasks */
    _Atomic long outstanding;     /* created here, not complete */
    struct task *_Atomic done;    /* completed elsewhere, to free */
    uint64_t hinted;              /* epoch + 1 of our last hint */
    uint64_t *hint;               /* per node: its last hint (on_hint) */
    int victim;                   /* where the next steal starts */
} tq = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void on_fulfil(int src, void *body, size_t len);
static void detached_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, bool if_clause, unsigned flags, void **depend, void *detach,
                          const void *caller);

/* Per thread: the task another node made that it runs (creator -1: none). */
static __thread struct stolen {
    int creator;
    uint64_t ticket;
} stolen = { .creator = -1 };

/* Per thread: its implicit task, the task it runs, and its final depth. */
static __thread struct ctx implicit_ctx;
static __thread struct ctx *cur;
static __thread int final_depth;

static struct ctx *current(void)
{
    return cur ? cur : &implicit_ctx;
}
/* The private stack of this thread, if it does not run on shared memory. */
static __thread uintptr_t stack_lo, stack_hi;

int omp_in_final(void)
{
    return final_depth > 0;
}

/* ---- data --------------------------------------------------------------- */

/* The task's data as the task sees it, in the shared heap (the program's
 * own allocation, made on behalf of the code that created the task). */
static void *task_data(void *data, void (*cpyfn)(void *, void *), long size, long align, const void *caller)
{
    if (align < (long)sizeof(void *))
        align = sizeof(void *);
    void *buf = omp_rt_memalign((size_t)align, size > 0 ? (size_t)size : 1, caller);
    if (!buf)
        dsm_fatal("out of memory for a task's data (%ld bytes)", size);
    if (cpyfn)
        omp_rt_call_user_copy(cpyfn, buf, data);
    else if (size > 0)
        memcpy(buf, data, (size_t)size);
    return buf;
}

static void find_private_stack(void)
{
    int here;
    if (stack_hi || dsm_page_of((uintptr_t)&here) >= 0)
        return;
    pthread_attr_t a;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &a) || pthread_attr_getstack(&a, &lo, &size))
        dsm_fatal("cannot find this thread's stack");
    pthread_attr_destroy(&a);
    stack_lo = (uintptr_t)lo;
    stack_hi = stack_lo + size;
}

/* Whether no word of the data points into this thread's private stack. */
static bool movable(const void *buf, long size)
{
    find_private_stack();
    if (!stack_hi)
        return true;
    const char *p = buf;
    for (long i = 0; i + (long)sizeof(uintptr_t) <= size; i += (long)sizeof(uintptr_t)) {
        uintptr_t w;
        memcpy(&w, p + i, sizeof w);
        if (w >= stack_lo && w < stack_hi)
            return false;
    }
    return true;
}

/* ---- running ------------------------------------------------------------ */

static void wait_children(struct ctx *c);

/* Runs fn(data) as a task of its own; returns when it and its children are
 * complete. */
static void run_as_task(void (*fn)(void *), void *data, struct group *group, const struct task_red *red,
                        bool final)
{
    struct ctx c = { .group = group, .red = red }, *saved = cur;
    cur = &c;
    final_depth += final;
    omp_rt_call_user(fn, data);
    wait_children(&c);
    final_depth -= final;
    cur = saved;
}

/* Appends a task to the queue (queue lock held). */
static void enqueue_locked(struct task *t)
{
    t->next = NULL;
    if (tq.tail)
        tq.tail->next = t;
    else
        tq.head = t;
    tq.tail = t;
    tq.queued++;
    t->queued_as = tq.ever_queued++;
    tq.unpublished += t->movable;
    if (omp_rt.local > 1) {         /* the node's other threads may be waiting */
        omp_pool_ring();
        dsm_notice_news();
    }
}

/* Queues the siblings that waited only for t (queue lock held); remote:
 * t ran on another node. */
static void release_successors(struct task *t, bool remote)
{
    size_t n;
    struct task **ready = omp_dep_done(t, &n);
    for (size_t i = 0; i < n; i++) {
        ready[i]->after_elsewhere = remote;
        if (!ready[i]->inline_deps)
            enqueue_locked(ready[i]);
    }
    free(ready);
}

/* Counts t complete.  The counts are decremented last: a thread that sees
 * one reach 0 may free what it counts (and, after reap, t).  A task done
 * on another node marks its parent and taskgroup: whoever waits for them
 * next must see what it wrote, even if it finds them done already. */
static void complete(struct task *t, bool remote)
{
    struct ctx *parent = t->parent;
    struct group *group = t->group;
    if (remote) {
        atomic_store(&parent->elsewhere, true);
        if (group)
            atomic_store(&group->elsewhere, true);
    }
    if (t->kept || remote) {
        dsm_lock(&tq.mu);
        if (t->kept)
            release_successors(t, remote);
        if (remote) {
            t->next = atomic_load(&tq.done);
            while (!atomic_compare_exchange_weak(&tq.done, &t->next, t))
                ;
        }
        dsm_unlock(&tq.mu);
    }
    if (group)
        atomic_fetch_sub(&group->count, 1);
    atomic_fetch_sub(&parent->children, 1);
    atomic_fetch_sub(&tq.outstanding, 1);
}

/* What freeing a task frees: its data, and its record unless the parent's
 * dependence table still points to it (omp_dep_clear frees it then).  Taken
 * before complete() where the task completes here: once it counts as
 * complete, its parent may clear that table, and free a kept record with it
 * (seen by AddressSanitizer: a read of the record after that free). */
struct leftovers {
    void *data;
    struct task *record;
};

static struct leftovers leftovers(struct task *t)
{
    return (struct leftovers){ t->data, t->kept ? NULL : t };
}

static void free_leftovers(struct leftovers l)
{
    omp_rt_free(l.data);
    free(l.record);
}

/* A task's body is done, or, if detached, its event fulfilled (remote: on
 * another node); the last of them completes it.  A task completed with a
 * part done elsewhere is freed by reap(), as complete() queues it. */
static void finish(struct task *t, bool remote)
{
    if (t->detached) {
        if (remote)
            atomic_store(&t->part_elsewhere, true);
        if (atomic_fetch_sub(&t->parts, 1) != 1)
            return;
        remote = atomic_load(&t->part_elsewhere);
    }
    struct leftovers l = leftovers(t);
    complete(t, remote);
    if (!remote)
        free_leftovers(l);
}

/* Frees the tasks others completed for us.  One thread at a time: a
 * thread whose reap finds the list empty may go on to free the records a
 * dependence table keeps (omp_dep_clear), which another thread's reap may
 * still be reading. */
static void reap(void)
{
    static pthread_mutex_t reap_mu = PTHREAD_MUTEX_INITIALIZER;
    dsm_lock(&reap_mu);
    struct task *t = atomic_exchange(&tq.done, NULL);
    while (t) {
        struct task *next = t->next;
        free_leftovers(leftovers(t));
        t = next;
    }
    dsm_unlock(&reap_mu);
}

/* Unlinks and returns the oldest queued task that match() accepts. */
static struct task *take(bool (*match)(const struct task *, const void *), const void *arg)
{
    dsm_lock(&tq.mu);
    struct task **pp = &tq.head, *prev = NULL, *t;
    while ((t = *pp) && !match(t, arg)) {
        prev = t;
        pp = &t->next;
    }
    if (t) {
        *pp = t->next;
        if (tq.tail == t)
            tq.tail = prev;
        tq.queued--;
        if (t->movable && !t->published)
            tq.unpublished--;
    }
    dsm_unlock(&tq.mu);
    return t;
}

static bool any(const struct task *t, const void *arg)
{
    (void)t;
    (void)arg;
    return true;
}

static bool child_of(const struct task *t, const void *ctx)
{
    return t->parent == ctx;
}

static bool in_group(const struct task *t, const void *group)
{
    return t->group == group;
}

static bool in_cancelled_group(const struct group *g);

/* A task of a cancelled taskgroup stays to be discarded here. */
static bool stealable(const struct task *t, const void *arg)
{
    (void)arg;
    return t->movable && t->published && !in_cancelled_group(t->group);
}

/* This node sees what the notices it got announce: a thief what the
 * task's creator wrote before publishing it, a creator what its tasks run
 * elsewhere wrote (their notices reached it before their OP_TASK_DONE). */
static void see_notices(void)
{
    dsm_notice_apply(NULL, 0);
    dsm_drop_suspects();
}

/* Whether a taskgroup of a task's, from its innermost out, is cancelled. */
static bool in_cancelled_group(const struct group *g)
{
    for (; g; g = g->outer)
        if (atomic_load(&g->cancelled))
            return true;
    return false;
}

/* In a task another node made, its taskgroup is at that node. */
void omp_task_cancel_group(void)
{
    struct group *g = current()->group;
    if (g) {
        atomic_store(&g->cancelled, true);
    } else if (stolen.creator >= 0) {
        struct done d = { .ticket = stolen.ticket };
        net_send(stolen.creator, OP_TASK_CANCEL, &d, sizeof d, NULL, 0);
    }
}

static void on_cancel(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    struct group *g = ((struct task *)(uintptr_t)((struct done *)body)->ticket)->group;
    if (g)
        atomic_store(&g->cancelled, true);
}

bool omp_task_group_cancelled(void)
{
    return in_cancelled_group(current()->group);
}

/* A task of a cancelled taskgroup that has not started is discarded: it
 * completes without running. */
static void run_local(struct task *t)
{
    if (t->after_elsewhere)
        see_notices();
    if (!in_cancelled_group(t->group))
        run_as_task(t->fn, t->data, t->group, t->red, false);
    finish(t, false);
}

/* ---- publishing and stealing -------------------------------------------- */

static void send_hints(void)
{
    struct hint h = { .epoch = dsm.epoch };
    for (int n = 0; n < omp_rt.nodes; n++)
        if (n != omp_rt.node)
            net_send(n, OP_TASK_HINT, &h, sizeof h, NULL, 0);
    tq.hinted = dsm.epoch + 1;
}

/* Makes the tasks queued so far stealable: every node has queued the
 * notices of what this node wrote before it queued them.  Not those queued
 * during the release: with several threads per node, one may publish
 * while another creates tasks, and the data of a task queued meanwhile
 * may have been written after the release took the pages it publishes. */
static void publish(void)
{
    dsm_lock(&tq.mu);
    uint64_t before = tq.ever_queued;
    dsm_unlock(&tq.mu);
    dsm_release_push(true);
    dsm_lock(&tq.mu);
    for (struct task *t = tq.head; t; t = t->next) {
        if (t->queued_as < before && t->movable && !t->published) {
            t->published = true;
            tq.unpublished--;
        }
    }
    tq.hungry = false;
    dsm_unlock(&tq.mu);
    send_hints();
}

static void publish_if_asked(void)
{
    if (__atomic_load_n(&tq.hungry, __ATOMIC_ACQUIRE))
        publish();
}

/* A node's last hint: how many it sent, above the low 32 bits of its
 * epoch + 1 (0 once forgotten).  The count tells a hint that came while a
 * thief asked from the one it asked under, even in the same interval. */
#define HINT_EPOCH 0xffffffffULL

static void on_hint(int src, void *body, size_t len)
{
    (void)len;
    struct hint *h = body;
    uint64_t sent = (__atomic_load_n(&tq.hint[src], __ATOMIC_ACQUIRE) >> 32) + 1;
    __atomic_store_n(&tq.hint[src], sent << 32 | ((h->epoch + 1) & HINT_EPOCH), __ATOMIC_RELEASE);
    dsm_notice_news();
    omp_pool_ring();        /* threads asleep in the node barrier may take them */
}

static void on_steal(int src, void *body, size_t len)
{
    (void)len;
    struct steal_req *r = body;
    struct give g = { .cookie = r->cookie };
    /* A thief in another interval (it asked while waiting in a barrier
     * that has been released since) gets nothing: our tasks belong to
     * the next interval, and the barrier it would report their pages to
     * is over. */
    struct task *t = r->epoch == __atomic_load_n(&dsm.epoch, __ATOMIC_RELAXED) ? take(stealable, NULL) : NULL;
    if (t) {
        g.fn = t->fn;
        g.data = t->data;
        g.red = t->red;
        g.ticket = (uint64_t)(uintptr_t)t;
    } else {
        dsm_lock(&tq.mu);
        if (tq.unpublished) {
            g.status |= GIVE_UNPUBLISHED;
            __atomic_store_n(&tq.hungry, true, __ATOMIC_RELEASE);
        }
        dsm_unlock(&tq.mu);
        if (atomic_load(&tq.outstanding))
            g.status |= GIVE_BUSY;
        dsm_notice_news();      /* the creator may be waiting: let it publish */
    }
    net_send(src, OP_TASK_GIVE, &g, sizeof g, NULL, 0);
}

struct give_wait {
    struct net_wait w;
    struct give g;
};

static void on_give(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    struct give *g = body;
    struct give_wait *gw = (struct give_wait *)(uintptr_t)g->cookie;
    gw->g = *g;
    net_wait_done(&gw->w);
}

static void on_done(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    struct done *d = body;
    finish((struct task *)(uintptr_t)d->ticket, true);
    dsm_notice_news();
}

/* Runs a task another node created; arrived: this node waits in a barrier. */
static void run_stolen(const struct give *g, int creator, bool arrived)
{
    see_notices();
    if (arrived)
        dsm_share_unshared();
    struct stolen outer = stolen;
    stolen = (struct stolen){ .creator = creator, .ticket = g->ticket };
    run_as_task(g->fn, g->data, NULL, g->red, false);
    stolen = outer;
    dsm_flush_output();
    dsm_release_push(true);
    if (arrived)
        dsm_barrier_update();
    struct done d = { .ticket = g->ticket };
    net_send(creator, OP_TASK_DONE, &d, sizeof d, NULL, 0);
}

static bool hinted(int n)
{
    return (__atomic_load_n(&tq.hint[n], __ATOMIC_ACQUIRE) & HINT_EPOCH) == ((dsm.epoch + 1) & HINT_EPOCH);
}

/* Asks the nodes that announced tasks in interval `epoch` (this node's)
 * for one, in turn, and runs the first it gets; false if none had one to
 * give.  Several threads of the node may steal at once.  A node that has
 * nothing (no task queued, none running) is not asked again until it
 * hints again; but its answer may be older than its latest hint (it
 * answered a request of the interval before, then made tasks and hinted),
 * and that hint is kept. */
static bool steal_one(uint64_t epoch, bool arrived)
{
    int from = __atomic_load_n(&tq.victim, __ATOMIC_RELAXED);
    for (int i = 1; i <= omp_rt.nodes; i++) {
        int v = (from + i) % omp_rt.nodes;
        if (v == omp_rt.node || !hinted(v))
            continue;
        uint64_t hint = __atomic_load_n(&tq.hint[v], __ATOMIC_ACQUIRE);
        struct give_wait gw;
        net_wait_init(&gw.w, 1);
        struct steal_req r = { .cookie = (uint64_t)(uintptr_t)&gw, .epoch = epoch };
        net_send(v, OP_TASK_STEAL, &r, sizeof r, NULL, 0);
        net_wait(&gw.w);
        if (gw.g.fn) {
            __atomic_store_n(&tq.victim, v, __ATOMIC_RELAXED);
            run_stolen(&gw.g, v, arrived);
            return true;
        }
        if (!gw.g.status)
            __atomic_compare_exchange_n(&tq.hint[v], &hint, hint & ~HINT_EPOCH, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE);
    }
    return false;
}

static bool idle_wanted(void)
{
    if (omp_rt_team_size() == 1)
        return false;
    for (int n = 0; n < omp_rt.nodes; n++)
        if (n != omp_rt.node && hinted(n))
            return true;
    return false;
}

static bool idle_work(void)
{
    return steal_one(dsm.epoch, true);
}

/* The node's other threads, while its first waits in a barrier's release
 * (they wait in the node barrier around it): they take other nodes' tasks
 * too, as it does.  The barrier cannot be released while one of them runs
 * such a task (its creator has not arrived), and a request that reaches
 * a node already past the barrier gets nothing (on_steal). */
bool omp_task_steal_arrived(void)
{
    uint64_t at = dsm_barrier_arrived();
    return at && idle_wanted() && steal_one(at - 1, true);
}

bool omp_task_elsewhere(void)
{
    return idle_wanted();
}

void omp_task_register(void)
{
    tq.hint = xcalloc((size_t)omp_rt.nodes, sizeof *tq.hint);
    net_register(OP_TASK_HINT, on_hint);
    net_register(OP_TASK_STEAL, on_steal);
    net_register(OP_TASK_GIVE, on_give);
    net_register(OP_TASK_DONE, on_done);
    net_register(OP_TASK_FULFILL, on_fulfil);
    net_register(OP_TASK_CANCEL, on_cancel);
    dsm_barrier_work(idle_wanted, idle_work);
}

/* ---- waiting ------------------------------------------------------------ */

/* Until *count is 0: runs queued tasks that match, lets others take ours,
 * helps others when steal says so. */
static void wait_for(_Atomic long *count, bool (*match)(const struct task *, const void *), const void *arg,
                     bool steal)
{
    unsigned us = 50;
    while (atomic_load(count)) {
        uint32_t seen = dsm_news();
        reap();
        publish_if_asked();
        struct task *t = take(match, arg);
        if (t) {
            run_local(t);
            us = 50;
            continue;
        }
        if (!atomic_load(count))
            break;
        if (steal && steal_one(dsm.epoch, false)) {
            us = 50;
            continue;
        }
        dsm_news_wait(seen, us);
        us = us < WAIT_MAX_US ? 2 * us : WAIT_MAX_US;
    }
    reap();
}

/* Children, or a taskgroup's tasks, may all be done before their waiter
 * comes: it sees what those that ran elsewhere wrote all the same. */
static void wait_children(struct ctx *c)
{
    if (atomic_load(&c->children))
        wait_for(&c->children, child_of, c, false);
    if (atomic_exchange(&c->elsewhere, false))
        see_notices();
    reap();                 /* before the table frees the records it keeps */
    omp_dep_clear(c);
}

bool omp_task_queued(void)
{
    return __atomic_load_n(&tq.queued, __ATOMIC_ACQUIRE) != 0;
}

bool omp_task_help(void)
{
    struct task *t = __atomic_load_n(&tq.queued, __ATOMIC_ACQUIRE) ? take(any, NULL) : NULL;
    if (t)
        run_local(t);
    return t != NULL;
}

void omp_task_drain(void)
{
    if (atomic_load(&tq.outstanding)) {
        wait_for(&tq.outstanding, any, NULL, true);
        see_notices();
    }
    reap();
    omp_dep_clear(&implicit_ctx);
}

/* ---- the ABI ------------------------------------------------------------ */

/* Outside a team of several threads a task runs at once, except in a
 * team of one (level 1) while detached tasks are pending there: it waits
 * in the queue after them, as their events may come from tasks made
 * later.  In a nested team too (nest.c). */
static bool run_now(bool if_clause, unsigned flags)
{
    if (!if_clause || (flags & TASK_FLAG_FINAL) || final_depth > 0 || tq.queued >= TASKS_QUEUED_MAX ||
        omp_thr.nest)
        return true;
    if (omp_thr.active)
        return false;
    return omp_thr.level != 1 || !atomic_load(&tq.outstanding);
}

/* A record for a task of the current task whose data is ready, counted
 * as its child (and in its taskgroup) until complete. */
static struct task *new_task(void (*fn)(void *), void *buf, long size)
{
    struct task *t = xcalloc(1, sizeof *t);
    t->fn = fn;
    t->data = buf;
    t->parent = current();
    t->group = current()->group;
    t->red = omp_task_reductions();
    t->movable = movable(buf, size);
    atomic_fetch_add(&current()->children, 1);
    if (t->group)
        atomic_fetch_add(&t->group->count, 1);
    atomic_fetch_add(&tq.outstanding, 1);
    return t;
}

/* Queues a task, or, with depend clauses, enters it in its parent's
 * table, to be queued when its predecessors are complete. */
static void defer(struct task *t, void **depend)
{
    /* Once queued, another thread of the node may run and free it. */
    bool movable = t->movable;
    dsm_lock(&tq.mu);
    if (depend)
        omp_dep_add(t->parent, t, depend);
    if (!atomic_load(&t->npred))
        enqueue_locked(t);
    dsm_unlock(&tq.mu);
    if (movable && tq.hinted != dsm.epoch + 1)
        send_hints();
    publish_if_asked();
}

/* A task with depend clauses that must run now (if(0), final, a full
 * queue): it waits for its predecessors, running queued siblings. */
static void run_now_after_deps(void (*fn)(void *), void *buf, void **depend, bool final)
{
    struct task *t = new_task(fn, NULL, 0);
    t->inline_deps = true;
    dsm_lock(&tq.mu);
    omp_dep_add(t->parent, t, depend);
    dsm_unlock(&tq.mu);
    if (atomic_load(&t->npred))
        wait_for(&t->npred, child_of, current(), false);
    dsm_lock(&tq.mu);       /* release_successors has let it go */
    bool elsewhere = t->after_elsewhere;
    dsm_unlock(&tq.mu);
    if (elsewhere)
        see_notices();
    run_as_task(fn, buf, t->group, t->red, final);
    struct leftovers l = leftovers(t);
    complete(t, false);
    free_leftovers(l);
}

/* A task that runs now, on the creating thread, once the siblings its
 * depend clauses name are complete. */
static void run_included(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                         long arg_align, unsigned flags, void **depend, const void *caller)
{
    void *buf = cpyfn ? task_data(data, cpyfn, arg_size, arg_align, caller) : data;
    bool final = (flags & TASK_FLAG_FINAL) != 0;
    if (depend && omp_rt_team_size() > 1)
        run_now_after_deps(fn, buf, depend, final);
    else
        run_as_task(fn, buf, current()->group, omp_task_reductions(), final);
    if (buf != data)
        omp_rt_free(buf);
}

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    OMP_RT_ENTRY;
    (void)priority;
    reap();
    publish_if_asked();
    const void *caller = __builtin_return_address(0);
    if (!(flags & TASK_FLAG_DEPEND))
        depend = NULL;
    if (flags & TASK_FLAG_DETACH) {
        detached_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach, caller);
        return;
    }
    if (run_now(if_clause, flags)) {
        run_included(fn, data, cpyfn, arg_size, arg_align, flags, depend, caller);
        return;
    }
    void *buf = task_data(data, cpyfn, arg_size, arg_align, caller);
    defer(new_task(fn, buf, arg_size), depend);
}

static void nothing(void *arg)
{
    (void)arg;
}

/* ---- detach ------------------------------------------------------------- */

/* An event: the creating node above EVENT_NODE_SHIFT, the address of the
 * task's record (or, with EVENT_INCLUDED, of its creator's wait) below. */
#define EVENT_NODE_SHIFT 48
#define EVENT_INCLUDED 1ULL

struct included_wait {
    _Atomic long pending;
    _Atomic bool elsewhere;
};

static uint64_t event_of(const void *p, uint64_t kind)
{
    return (uint64_t)omp_rt.node << EVENT_NODE_SHIFT | (uintptr_t)p | kind;
}

/* GCC passes the address of the program's event variable as detach, and
 * the event is the first word of the task's data, which libgomp sets too. */
static void give_event(uint64_t event, void *detach, void *data)
{
    memcpy(detach, &event, sizeof event);
    if (data)
        memcpy(data, &event, sizeof event);
}

static void detached_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, bool if_clause, unsigned flags, void **depend, void *detach,
                          const void *caller)
{
    if (!if_clause || (flags & TASK_FLAG_FINAL) || final_depth > 0 || omp_thr.level == 0 || omp_thr.nest) {
        struct included_wait w = { .pending = 1 };
        give_event(event_of(&w, EVENT_INCLUDED), detach, data);
        run_included(fn, data, cpyfn, arg_size, arg_align, flags, depend, caller);
        wait_for(&w.pending, any, NULL, false);
        if (atomic_load(&w.elsewhere))
            see_notices();
        return;
    }
    struct task *t = new_task(fn, NULL, 0);
    t->detached = true;
    t->parts = 2;
    give_event(event_of(t, 0), detach, data);
    t->data = task_data(data, cpyfn, arg_size, arg_align, caller);
    t->movable = movable(t->data, arg_size);
    defer(t, depend);
}

/* The fulfilment of an event of this node's (elsewhere: sent by another). */
static void fulfil_here(uint64_t event, bool elsewhere)
{
    uintptr_t p = (uintptr_t)(event & ((1ULL << EVENT_NODE_SHIFT) - 1));
    if (p & EVENT_INCLUDED) {
        struct included_wait *w = (struct included_wait *)(p & ~(uintptr_t)EVENT_INCLUDED);
        if (elsewhere)
            atomic_store(&w->elsewhere, true);
        atomic_store(&w->pending, 0);
    } else {
        finish((struct task *)p, elsewhere);
    }
    dsm_notice_news();
    omp_pool_ring();
}

static void on_fulfil(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    fulfil_here(((struct fulfil *)body)->event, true);
}

API void omp_fulfill_event(uint64_t event)
{
    OMP_RT_ENTRY;
    int node = (int)(event >> EVENT_NODE_SHIFT);
    if (node < 0 || node >= omp_rt.nodes || !(event & ((1ULL << EVENT_NODE_SHIFT) - 1)))
        dsm_fatal("omp_fulfill_event: %#llx is not an event of a detached task", (unsigned long long)event);
    if (node == omp_rt.node) {
        fulfil_here(event, false);
        return;
    }
    dsm_flush_output();
    dsm_release_push(true);
    struct fulfil f = { .event = event };
    net_send(node, OP_TASK_FULFILL, &f, sizeof f, NULL, 0);
}

void omp_task_wait_depend(void **depend)
{
    reap();
    publish_if_asked();
    if (omp_rt_team_size() > 1)
        run_now_after_deps(nothing, NULL, depend, false);
}

void GOMP_taskwait_depend(void **depend)
{
    OMP_RT_ENTRY;
    omp_task_wait_depend(depend);
}

void GOMP_taskwait(void)
{
    OMP_RT_ENTRY;
    wait_children(current());
}

void GOMP_taskyield(void)
{
    OMP_RT_ENTRY;
}

void GOMP_taskgroup_start(void)
{
    OMP_RT_ENTRY;
    struct group *g = xcalloc(1, sizeof *g);
    g->outer = current()->group;
    g->red = omp_task_reductions();
    current()->group = g;
}

const struct task_red *omp_task_reductions(void)
{
    struct ctx *c = current();
    return c->group ? c->group->red : c->red;
}

void omp_task_region_reductions(const struct task_red *red)
{
    implicit_ctx.red = red;
}

void omp_task_set_reductions(const struct task_red *red)
{
    struct ctx *c = current();
    if (!c->group)
        dsm_fatal("internal: task reductions outside a taskgroup");
    c->group->red = red;
}

void GOMP_taskgroup_end(void)
{
    OMP_RT_ENTRY;
    struct group *g = current()->group;
    if (!g)
        dsm_fatal("internal: taskgroup end without a start");
    if (atomic_load(&g->count))
        wait_for(&g->count, in_group, g, false);
    if (atomic_exchange(&g->elsewhere, false))
        see_notices();
    current()->group = g->outer;
    free(g);
}

/* ---- taskloop ----------------------------------------------------------- */

/* How many tasks a taskloop of n iterations makes (libgomp's rules). */
static unsigned long taskloop_tasks(unsigned long n, unsigned flags, unsigned long num_tasks)
{
    if (n == 0)
        return 0;
    if (flags & TASK_FLAG_GRAINSIZE) {
        unsigned long grain = num_tasks ? num_tasks : 1, k = n / grain;
        return k ? k : 1;
    }
    if (num_tasks == 0)
        num_tasks = (unsigned long)omp_rt_team_size();
    return num_tasks < n ? num_tasks : n;
}

/* One task of a taskloop: its data begins with the bounds of its
 * iterations, two longs (or two unsigned long longs, of the same size). */
static void taskloop_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, unsigned flags, const void *bounds, const void *caller)
{
    void *buf = task_data(data, cpyfn, arg_size, arg_align, caller);
    memcpy(buf, bounds, 2 * sizeof(long));
    if (!(flags & TASK_FLAG_IF) || run_now(true, flags)) {
        run_as_task(fn, buf, current()->group, omp_task_reductions(), (flags & TASK_FLAG_FINAL) != 0);
        omp_rt_free(buf);
    } else {
        defer(new_task(fn, buf, arg_size), NULL);
    }
}

/* Splits n iterations, from start by step, into tasks; bound() turns an
 * iteration number into the loop variable's value. */
#define TASKLOOP(type, start, end, step, up)                                                      \
    do {                                                                                          \
        const void *caller = __builtin_return_address(0);                                         \
        type n = (up) ? ((end) > (start) ? ((end) - (start) + (step) - 1) / (step) : 0)           \
                      : ((start) > (end) ? ((start) - (end) - (step) - 1) / -(step) : 0);         \
        unsigned long tasks = taskloop_tasks((unsigned long)n, flags, num_tasks);                 \
        /* reduction: the data's third word points to the reductions */                          \
        uintptr_t *red = (flags & TASK_FLAG_REDUCTION) ? ((uintptr_t **)data)[2] : NULL;          \
        if (red && !(flags & TASK_FLAG_NOGROUP) && n == 0) {                                      \
            red[2] = 0;         /* tells the caller nothing was registered */                    \
            return;                                                                               \
        }                                                                                         \
        if (!(flags & TASK_FLAG_NOGROUP)) {                                                       \
            GOMP_taskgroup_start();                                                               \
            if (red)                                                                              \
                omp_task_red_register(red, caller);                                               \
        }                                                                                         \
        type first = 0;                                                                           \
        for (unsigned long i = 0; i < tasks; i++) {                                               \
            type cnt = n / (type)tasks + ((type)i < n % (type)tasks);                             \
            type b[2] = { (start) + first * (step), (start) + (first + cnt) * (step) };           \
            taskloop_task(fn, data, cpyfn, arg_size, arg_align, flags, b, caller);                \
            first += cnt;                                                                         \
        }                                                                                         \
        if (!(flags & TASK_FLAG_NOGROUP))                                                         \
            GOMP_taskgroup_end();                                                                 \
    } while (0)

void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                   long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                   long end, long step)
{
    OMP_RT_ENTRY;
    (void)priority;
    TASKLOOP(long, start, end, step, (flags & TASK_FLAG_UP) != 0);
}

void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                       long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                       gomp_ull start, gomp_ull end, gomp_ull step)
{
    OMP_RT_ENTRY;
    (void)priority;
    TASKLOOP(gomp_ull, start, end, step, (flags & TASK_FLAG_UP) != 0);
}

/* ---- error directives ----------------------------------------------------- */

void GOMP_error(const char *msg, size_t len)
{
    dsm_fatal("error directive: %.*s", (int)(len == (size_t)-1 ? strlen(msg) : len), msg);
}

void GOMP_warning(const char *msg, size_t len)
{
    dsm_warn("warning directive: %.*s", (int)(len == (size_t)-1 ? strlen(msg) : len), msg);
}
