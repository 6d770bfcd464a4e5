/*
 * depend.c: the order that depend clauses impose on sibling tasks.
 *
 * Siblings are made by one thread, so their parent's table of addresses
 * lives at the node that made them, as do their records.  For each address
 * the table keeps the last sibling that writes it (out, inout,
 * mutexinoutset) and the siblings that read it since (in).  A new writer
 * waits for that writer and those readers; a new reader waits for the
 * writer.  A task waits by counting its unfinished predecessors (npred):
 * it is queued when the count is 0, and each predecessor that completes,
 * here or on another node, counts its successors down and queues those
 * that reach 0.
 *
 * The table points to records after their tasks completed (a later sibling
 * must see that the writer is done), so records it points to are kept
 * until the parent has no child left: a taskwait, the end of the parent
 * task, or the barrier that ends the implicit task.
 *
 * GCC 12's depend array: either {n, n_out, addresses...} with the n_out
 * writers first, or {0, n, n_out, n_mutexinoutset, n_in, addresses...};
 * addresses past those counted (depobj, inoutset) are taken as writers,
 * which orders at least as much as asked.
 */
#include "task.h"

#include "../util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct entry {
    uintptr_t addr;
    struct task *writer;
    struct task **readers;
    size_t nreaders, cap;
    struct entry *next;
};

#define DEP_BUCKETS 64

struct dep_table {
    struct entry *buckets[DEP_BUCKETS];
    struct task **kept;
    size_t nkept, cap;
};

static struct entry *lookup(struct dep_table *tab, uintptr_t addr)
{
    struct entry **b = &tab->buckets[(addr >> 3) % DEP_BUCKETS];
    for (struct entry *e = *b; e; e = e->next)
        if (e->addr == addr)
            return e;
    struct entry *e = xcalloc(1, sizeof *e);
    e->addr = addr;
    e->next = *b;
    *b = e;
    return e;
}

static void keep(struct dep_table *tab, struct task *t)
{
    if (t->kept)
        return;
    tab->kept = xgrow(tab->kept, &tab->cap, tab->nkept + 1, sizeof *tab->kept);
    tab->kept[tab->nkept++] = t;
    t->kept = true;
}

/* t waits for p unless p is done (or is t: a task listing an address
 * twice). */
static void wait_on(struct task *t, struct task *p)
{
    if (!p || p == t || p->done)
        return;
    for (size_t i = 0; i < p->nsucc; i++)
        if (p->succ[i] == t)
            return;
    p->succ = xgrow(p->succ, &p->capsucc, p->nsucc + 1, sizeof *p->succ);
    p->succ[p->nsucc++] = t;
    atomic_fetch_add(&t->npred, 1);
}

static void add_writer(struct dep_table *tab, struct task *t, uintptr_t addr)
{
    struct entry *e = lookup(tab, addr);
    wait_on(t, e->writer);
    for (size_t i = 0; i < e->nreaders; i++)
        wait_on(t, e->readers[i]);
    e->writer = t;
    e->nreaders = 0;
}

static void add_reader(struct dep_table *tab, struct task *t, uintptr_t addr)
{
    struct entry *e = lookup(tab, addr);
    wait_on(t, e->writer);
    e->readers = xgrow(e->readers, &e->cap, e->nreaders + 1, sizeof *e->readers);
    e->readers[e->nreaders++] = t;
}

void omp_dep_add(struct ctx *parent, struct task *t, void **depend)
{
    if (!parent->deps)
        parent->deps = xcalloc(1, sizeof *parent->deps);
    struct dep_table *tab = parent->deps;
    uintptr_t n, writers, readers_from, readers_to;
    void **addr;
    if ((uintptr_t)depend[0]) {
        n = (uintptr_t)depend[0];
        writers = (uintptr_t)depend[1];
        addr = depend + 2;
        readers_from = writers;
        readers_to = n;
    } else {
        n = (uintptr_t)depend[1];
        writers = (uintptr_t)depend[2] + (uintptr_t)depend[3];
        addr = depend + 5;
        readers_from = writers;
        readers_to = writers + (uintptr_t)depend[4];
    }
    keep(tab, t);
    for (uintptr_t i = 0; i < n; i++) {
        if (i >= readers_from && i < readers_to)
            add_reader(tab, t, (uintptr_t)addr[i]);
        else
            add_writer(tab, t, (uintptr_t)addr[i]);
    }
}

struct task **omp_dep_done(struct task *t, size_t *n)
{
    t->done = true;
    struct task **ready = NULL;
    size_t k = 0;
    for (size_t i = 0; i < t->nsucc; i++) {
        if (atomic_fetch_sub(&t->succ[i]->npred, 1) != 1)
            continue;
        if (!ready)
            ready = xcalloc(t->nsucc, sizeof *ready);
        ready[k++] = t->succ[i];
    }
    free(t->succ);
    t->succ = NULL;
    t->nsucc = t->capsucc = 0;
    *n = k;
    return ready;
}

void omp_dep_clear(struct ctx *c)
{
    struct dep_table *tab = c->deps;
    if (!tab)
        return;
    for (int b = 0; b < DEP_BUCKETS; b++) {
        for (struct entry *e = tab->buckets[b], *next; e; e = next) {
            next = e->next;
            free(e->readers);
            free(e);
        }
    }
    for (size_t i = 0; i < tab->nkept; i++)
        free(tab->kept[i]);
    free(tab->kept);
    free(tab);
    c->deps = NULL;
}
