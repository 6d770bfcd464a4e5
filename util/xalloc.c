/*
 * xalloc.c: allocations whose failure is fatal (see xalloc.h).
 */
#include "xalloc.h"
#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Older kernels (before 5.14) lack MADV_POPULATE_WRITE: nothing is done. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static void *checked(void *p, size_t size)
{
    if (!p)
        dsm_fatal("out of memory (%zu bytes asked for)", size);
    return p;
}

void *xmalloc(size_t size)
{
    return checked(malloc(size ? size : 1), size);
}

void *xcalloc(size_t n, size_t size)
{
    if (n && size > (size_t)-1 / n)
        dsm_fatal("out of memory (%zu x %zu bytes asked for)", n, size);
    return checked(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xrealloc(void *p, size_t size)
{
    return checked(realloc(p, size ? size : 1), size);
}

void xpopulate(void *addr, size_t len)
{
    static bool unsupported;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)addr + page - 1) & ~(page - 1), to = ((uintptr_t)addr + len) & ~(page - 1);
    if (to > from && !__atomic_load_n(&unsupported, __ATOMIC_RELAXED) &&
        madvise((void *)from, to - from, MADV_POPULATE_WRITE) && errno == EINVAL)
        __atomic_store_n(&unsupported, true, __ATOMIC_RELAXED);
}

void *xrealloc_filled(void *p, size_t old, size_t size)
{
    char *b = xrealloc(p, size);
    if (size > old && size - old >= (1 << 20))
        xpopulate(b + old, size - old);
    return b;
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s) + 1);
}

void *xmemdup(const void *p, size_t len)
{
    void *q = xmalloc(len);
    if (len)
        memcpy(q, p, len);
    return q;
}

void *xgrow_to(void *v, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 16;
    while (c < need && c <= (size_t)-1 / 2)
        c *= 2;
    if (c < need || c > (size_t)-1 / size)
        dsm_fatal("out of memory (%zu x %zu bytes asked for)", need, size);
    *cap = c;
    return xrealloc(v, c * size);
}
