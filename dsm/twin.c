/*
 * twin.c: the memory of twins, kept for the next ones.
 *
 * A node twins the pages it writes in an interval and drops the twins at
 * the release.  Given back to the C library, that memory went back to the
 * system at each release (the heap's top is trimmed), and the next
 * interval's twins came from fresh pages, which the kernel zeroes and maps
 * one fault at a time: in NAS FT's time steps at 2 nodes, 7 % of the
 * samples were the kernel clearing pages for twins (malloc, and the copy
 * into a new twin).
 *
 * Twins come from chunks mapped here (populated at once: every page of a
 * chunk is written in full as it becomes a twin, and the kernel's faults,
 * one a page, cost twice as much as one populating call), taken page by
 * page as they are first needed, and a dropped twin goes on a free list
 * that the next twin takes first.  So a node holds as much twin memory as it once needed at
 * the same time, and never gives it back before it exits.  With
 * AddressSanitizer a twin on the free list is poisoned, so a use after
 * dsm_twin_free is reported as it would be for malloc'd memory.
 */
#include "dsm.h"
#include "../util/log.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

enum { CHUNK_BYTES = 1 << 20 };

/* A dropped twin: its first bytes link it to the next. */
struct free_twin {
    struct free_twin *next;
};

static struct {
    pthread_mutex_t mu;
    struct free_twin *free;     /* dropped twins */
    char *fresh;                /* the part of the last chunk never handed out */
    size_t fresh_left;          /* its bytes */
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* A new chunk becomes the fresh part (pool.mu held). */
static void map_chunk(void)
{
    size_t bytes = dsm.page_size > CHUNK_BYTES ? dsm.page_size : CHUNK_BYTES;
    bytes -= bytes % dsm.page_size;
    void *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (c == MAP_FAILED)
        dsm_fatal("cannot map %zu bytes for the twins of written pages: %s", bytes, strerror(errno));
    pool.fresh = c;
    pool.fresh_left = bytes;
}

void *dsm_twin_alloc(void)
{
    pthread_mutex_lock(&pool.mu);
    void *t = pool.free;
    if (t) {
        UNPOISON(t, dsm.page_size);
        pool.free = pool.free->next;
    } else {
        if (!pool.fresh_left)
            map_chunk();
        t = pool.fresh;
        pool.fresh += dsm.page_size;
        pool.fresh_left -= dsm.page_size;
    }
    pthread_mutex_unlock(&pool.mu);
    return t;
}

void dsm_twin_free(void *twin)
{
    if (!twin)
        return;
    struct free_twin *f = twin;
    pthread_mutex_lock(&pool.mu);
    f->next = pool.free;
    pool.free = f;
    POISON(f, dsm.page_size);
    pthread_mutex_unlock(&pool.mu);
}
