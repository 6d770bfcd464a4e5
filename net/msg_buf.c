/*
 * msg_buf.c: the kept buffers of large messages (msg_buf.h).
 *
 * Each buffer carries its capacity in a header before the bytes handed
 * out.  Up to MSG_BUF_KEPT buffers wait in `kept`; a request takes the
 * smallest that fits, and a buffer given back when all places are taken
 * replaces the smallest kept one if it is larger, so that what stays is
 * what the largest messages need.  A release sends and receives its
 * diffs in chunks of up to 8 MB (dsm/diff_out.c), several per peer when it
 * publishes whole arrays, and the chunks it sent serve to receive later
 * and the reverse.
 */
#include "msg_buf.h"
#include "../util/xalloc.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

struct buf {
    size_t cap;
    alignas(max_align_t) char data[];
};

static struct {
    pthread_mutex_t lock;
    struct buf *kept[MSG_BUF_KEPT];
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct buf *buf_of(void *data)
{
    return (struct buf *)((char *)data - offsetof(struct buf, data));
}

/* The kept buffer that fits len most closely or, if none does, the
 * largest (removed from the pool); NULL if none is kept. */
static struct buf *take(size_t len)
{
    int best = -1;
    for (int i = 0; i < MSG_BUF_KEPT; i++) {
        struct buf *b = pool.kept[i];
        if (!b)
            continue;
        if (best < 0) {
            best = i;
            continue;
        }
        size_t have = pool.kept[best]->cap;
        bool fits = b->cap >= len, fitted = have >= len;
        if (fits ? !fitted || b->cap < have : !fitted && b->cap > have)
            best = i;
    }
    if (best < 0)
        return NULL;
    struct buf *b = pool.kept[best];
    pool.kept[best] = NULL;
    return b;
}

/* A kept buffer too small grows in place where it can (the C library
 * remaps a large block, so the pages it had stay and only the new ones
 * are fresh); the capacity has room for messages a little larger, as
 * the next batch of the same pages usually is.  Measured: a receive into
 * 37 MB of fresh pages took 60-100 ms where one into kept pages took 8. */
void *msg_buf_get(size_t len)
{
    struct buf *b = NULL;
    if (len >= MSG_BUF_KEEP_MIN) {
        pthread_mutex_lock(&pool.lock);
        b = take(len);
        pthread_mutex_unlock(&pool.lock);
    }
    if (!b || b->cap < len) {
        size_t cap = len >= MSG_BUF_KEEP_MIN ? len + len / 8 : len;
        b = xrealloc_filled(b, b ? sizeof *b + b->cap : 0, sizeof *b + cap);
        b->cap = cap;
    }
    return b->data;
}

size_t msg_buf_cap(const void *data)
{
    return buf_of((void *)data)->cap;
}

/* Keeps b in a free place or in place of the smallest kept buffer, if b is
 * larger; returns what is left to free. */
static struct buf *keep(struct buf *b)
{
    int smallest = 0;
    for (int i = 0; i < MSG_BUF_KEPT; i++) {
        if (!pool.kept[i]) {
            pool.kept[i] = b;
            return NULL;
        }
        if (pool.kept[i]->cap < pool.kept[smallest]->cap)
            smallest = i;
    }
    struct buf *out = pool.kept[smallest];
    if (out->cap >= b->cap)
        return b;
    pool.kept[smallest] = b;
    return out;
}

void msg_buf_put(void *data)
{
    if (!data)
        return;
    struct buf *b = buf_of(data);
    if (b->cap >= MSG_BUF_KEEP_MIN) {
        pthread_mutex_lock(&pool.lock);
        b = keep(b);
        pthread_mutex_unlock(&pool.lock);
    }
    free(b);
}

void msg_buf_release_all(void)
{
    pthread_mutex_lock(&pool.lock);
    for (int i = 0; i < MSG_BUF_KEPT; i++) {
        free(pool.kept[i]);
        pool.kept[i] = NULL;
    }
    pthread_mutex_unlock(&pool.lock);
}
