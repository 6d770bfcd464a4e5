/*
 * buf.c: the growable byte buffer's slow paths (see buf.h).
 */
#include "buf.h"
#include "xalloc.h"

#include <stdlib.h>

void dsm_buf_grow(struct dsm_buf *b, size_t more)
{
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more)
        cap *= 2;
    b->p = xrealloc_filled(b->p, b->cap, cap);
    b->cap = cap;
}

void dsm_buf_free(struct dsm_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}
