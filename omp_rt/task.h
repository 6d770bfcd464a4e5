/*
 * task.h: the records of tasks, shared by task.c (queueing, stealing,
 * waiting) and depend.c (the order depend clauses impose).
 *
 * Every field that another node's message can change (counts, the done
 * flag, successors) is changed under the task queue's lock, or atomically.
 */
#ifndef OMP_RT_TASK_H
#define OMP_RT_TASK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dep_table;
struct task_red;

struct group {
    _Atomic long count;           /* its tasks not complete */
    _Atomic bool elsewhere;       /* one of its tasks completed on another node */
    struct group *outer;
    const struct task_red *red;   /* the task reductions its tasks take part in (task_red.c) */
    _Atomic bool cancelled;       /* cancel taskgroup (cancel.c): its tasks not started are discarded */
};

/* A running task, or a thread's implicit task. */
struct ctx {
    _Atomic long children;        /* its child tasks not complete */
    _Atomic bool elsewhere;       /* a child completed on another node since the last taskwait */
    struct group *group;          /* the innermost taskgroup it is in */
    struct dep_table *deps;       /* its children's depend clauses (depend.c) */
    const struct task_red *red;   /* the task reductions it was created in */
};

/* A task at the node that created it. */
struct task {
    struct task *next;
    void (*fn)(void *);
    void *data;
    struct ctx *parent;
    struct group *group;
    const struct task_red *red;   /* in the shared heap: valid on every node */
    bool movable, published;
    bool after_elsewhere;         /* released by a predecessor run on another node */
    bool inline_deps;             /* run by its creator once its predecessors are done */
    uint64_t queued_as;           /* the queue's count of tasks queued before it */
    /* depend.c, under the queue's lock */
    _Atomic long npred;           /* earlier siblings it waits for */
    struct task **succ;           /* siblings that wait for it */
    size_t nsucc, capsucc;
    bool done, kept;              /* kept: its parent's table points to it */
    /* detach: complete when both its body and its event's fulfilment are */
    bool detached;
    _Atomic int parts;            /* of those two, not done yet */
    _Atomic bool part_elsewhere;  /* one was done on another node */
};

/* depend.c.  omp_dep_add() enters task t, created under parent ctx with
 * GCC's depend array, into the parent's table and counts in t->npred the
 * earlier siblings it must wait for; omp_dep_done() marks t complete and
 * returns (malloc'd, *n of them) the siblings that no longer wait; both
 * with the queue's lock held.  omp_dep_clear() frees the table once the
 * parent has no child left. */
/* task.c: the task reductions of the calling thread's innermost taskgroup
 * or, outside one, of its task; and the innermost taskgroup's, replaced. */
const struct task_red *omp_task_reductions(void);
void omp_task_set_reductions(const struct task_red *red);
/* The reductions of a parallel region's implicit tasks (parallel.c), for
 * the calling thread. */
void omp_task_region_reductions(const struct task_red *red);
/* Waits for the sibling tasks that GCC's depend array names, as an
 * included task with those clauses and no body would (taskwait depend, a
 * target construct's depend clauses). */
void omp_task_wait_depend(void **depend);
/* cancel taskgroup: cancels the innermost taskgroup of the calling task,
 * if there is one; whether it, or a taskgroup around it, is cancelled. */
void omp_task_cancel_group(void);
bool omp_task_group_cancelled(void);
/* task_red.c: the private copies of `threads` threads for the compiler's
 * task reduction arrays (data), and their record; caller: the program's
 * code that asked.  Registering them makes them the innermost taskgroup's. */
const struct task_red *omp_task_red_make(uintptr_t *data, int threads, const void *caller);
void omp_task_red_register(uintptr_t *data, const void *caller);
/* The task reductions of a worksharing construct (data: the calling
 * thread's array); every thread of the team calls it. */
void omp_task_red_workshare(uintptr_t *data, const void *caller);

void omp_dep_add(struct ctx *parent, struct task *t, void **depend);
struct task **omp_dep_done(struct task *t, size_t *n);
void omp_dep_clear(struct ctx *c);

#endif
