/*
 * node_lock.c: a lock among the threads of one node, taken before the
 * distributed lock of the same name (lock.c).
 *
 * The lock manager queues nodes, not threads: it keeps one request per
 * node and lock.  So a node's threads first take the lock among
 * themselves; the one that has it asks the manager.  A named lock here is
 * an entry of a small hash table, made when a thread first wants it and
 * dropped when nobody holds or waits for it; waiting threads sleep on one
 * condition variable (a node runs a few threads, and a release wakes those
 * that wait for any lock, which then look again).
 */
#include "dsm.h"
#include "../util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

struct entry {
    uint64_t key;
    uint32_t space;
    bool held;
    int waiting;
    struct entry *next;
};

#define BUCKETS 64

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct entry *buckets[BUCKETS];
} nl = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static struct entry **slot(uint32_t space, uint64_t key)
{
    struct entry **e = &nl.buckets[(key ^ (key >> 12) ^ space) % BUCKETS];
    while (*e && ((*e)->key != key || (*e)->space != space))
        e = &(*e)->next;
    return e;
}

static struct entry *entry(uint32_t space, uint64_t key)
{
    struct entry **e = slot(space, key);
    if (!*e) {
        *e = xcalloc(1, sizeof **e);
        (*e)->key = key;
        (*e)->space = space;
    }
    return *e;
}

static bool take(uint32_t space, uint64_t key, bool wait)
{
    dsm_lock(&nl.mu);
    struct entry *e = entry(space, key);
    if (wait) {
        e->waiting++;
        while (e->held)
            pthread_cond_wait(&nl.cv, &nl.mu);
        e->waiting--;
    }
    bool got = !e->held;
    e->held = true;
    dsm_unlock(&nl.mu);
    return got;
}

void dsm_node_lock(uint32_t space, uint64_t key)
{
    take(space, key, true);
}

bool dsm_node_trylock(uint32_t space, uint64_t key)
{
    return take(space, key, false);
}

void dsm_node_unlock(uint32_t space, uint64_t key)
{
    dsm_lock(&nl.mu);
    struct entry **s = slot(space, key), *e = *s;
    if (e) {
        e->held = false;
        if (e->waiting)
            pthread_cond_broadcast(&nl.cv);
        else {
            *s = e->next;
            free(e);
        }
    }
    dsm_unlock(&nl.mu);
}
