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

struct group {
    _Atomic long count;           /* its tasks not complete */
    _Atomic bool elsewhere;       /* one of its tasks completed on another node */
    struct group *outer;
};

/* A running task, or a thread's implicit task. */
struct ctx {
    _Atomic long children;        /* its child tasks not complete */
    _Atomic bool elsewhere;       /* a child completed on another node since the last taskwait */
    struct group *group;          /* the innermost taskgroup it is in */
    struct dep_table *deps;       /* its children's depend clauses (depend.c) */
};

/* A task at the node that created it. */
struct task {
    struct task *next;
    void (*fn)(void *);
    void *data;
    struct ctx *parent;
    struct group *group;
    bool movable, published;
    bool after_elsewhere;         /* released by a predecessor run on another node */
    bool inline_deps;             /* run by its creator once its predecessors are done */
    uint64_t queued_as;           /* the queue's count of tasks queued before it */
    /* depend.c, under the queue's lock */
    _Atomic long npred;           /* earlier siblings it waits for */
    struct task **succ;           /* siblings that wait for it */
    size_t nsucc, capsucc;
    bool done, kept;              /* kept: its parent's table points to it */
};

/* depend.c.  omp_dep_add() enters task t, created under parent ctx with
 * GCC's depend array, into the parent's table and counts in t->npred the
 * earlier siblings it must wait for; omp_dep_done() marks t complete and
 * returns (malloc'd, *n of them) the siblings that no longer wait; both
 * with the queue's lock held.  omp_dep_clear() frees the table once the
 * parent has no child left. */
void omp_dep_add(struct ctx *parent, struct task *t, void **depend);
struct task **omp_dep_done(struct task *t, size_t *n);
void omp_dep_clear(struct ctx *c);

#endif
