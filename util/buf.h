/*
 * buf.h: a growable byte buffer, in which messages are put together
 * (diffs, barrier bodies, migration counts).  It starts at 4 KiB and
 * doubles, so that appending n bytes piece by piece copies O(n) of them;
 * running out of memory is fatal (xalloc.h).  Appending is inline: the
 * diff encoder appends several times per run of changed words.
 */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stddef.h>
#include <string.h>

struct dsm_buf {
    char *p;
    size_t n, cap;
};

/* Grows the capacity to hold `more` bytes after the n in use (buf.c). */
void dsm_buf_grow(struct dsm_buf *b, size_t more);

/* Makes room for `more` bytes after the n in use. */
static inline void dsm_buf_reserve(struct dsm_buf *b, size_t more)
{
    if (b->n + more > b->cap)
        dsm_buf_grow(b, more);
}

static inline void dsm_buf_put(struct dsm_buf *b, const void *src, size_t len)
{
    if (!len)
        return;
    dsm_buf_reserve(b, len);
    memcpy(b->p + b->n, src, len);
    b->n += len;
}

/* Frees the bytes; the buffer is empty again. */
void dsm_buf_free(struct dsm_buf *b);

#endif
