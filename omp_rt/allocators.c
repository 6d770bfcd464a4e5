/*
 * allocators.c: the OpenMP memory allocators (omp_alloc and its family,
 * omp_init_allocator, the default allocator), and GOMP_alloc, which GCC
 * calls for the allocate clause and directive.
 *
 * Every memory space is the node-spanning shared heap (heap.c): a program
 * has one kind of memory here, and memory one thread allocates may be used
 * by any thread of the team, on any node, as with malloc.  The traits that
 * shape an allocation are honoured: alignment, pool_size (the bytes an
 * allocator may have allocated at once, counted across all nodes), fallback
 * and fb_data; sync_hint, access, pinned and partition are checked and have
 * no effect.  An allocator made by omp_init_allocator lives in the shared
 * heap too, so its handle may be passed to threads of other nodes.
 *
 * Each block starts with a header that says where the memory came from and
 * how large it is, so that omp_free and omp_realloc need no allocator.
 */
#include "gomp_abi.h"
#include "omp_rt.h"

#include "../util/env.h"
#include "../util/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

/* omp.h's values (GCC 12). */
enum {
    NULL_ALLOCATOR = 0, DEFAULT_MEM_ALLOC = 1, LAST_PREDEFINED = 8,     /* omp_thread_mem_alloc */
    LAST_MEMSPACE = 4,                                                  /* omp_low_lat_mem_space */
};
enum { ATK_SYNC_HINT = 1, ATK_ALIGNMENT, ATK_ACCESS, ATK_POOL_SIZE, ATK_FALLBACK, ATK_FB_DATA, ATK_PINNED,
       ATK_PARTITION };
enum { ATV_FALSE = 0, ATV_TRUE = 1, ATV_CONTENDED = 3, ATV_UNCONTENDED, ATV_SERIALIZED, ATV_PRIVATE, ATV_ALL,
       ATV_THREAD, ATV_PTEAM, ATV_CGROUP, ATV_DEFAULT_MEM_FB, ATV_NULL_FB, ATV_ABORT_FB, ATV_ALLOCATOR_FB,
       ATV_ENVIRONMENT, ATV_NEAREST, ATV_BLOCKED, ATV_INTERLEAVED };
#define ATV_DEFAULT ((uintptr_t)-1)

struct trait {
    int key;
    uintptr_t value;
};

/* An allocator of omp_init_allocator (in the shared heap). */
struct allocator {
    uint64_t magic;
    size_t alignment;
    size_t pool_size;           /* 0: no limit */
    size_t used;                /* under GOMP_atomic_start, when pool_size */
    int fallback;
    uintptr_t fb_data;
};
#define ALLOCATOR_MAGIC 0x6f6d70616c6c6f63ull

/* Before each block handed out. */
struct header {
    void *block;                /* what the heap returned */
    size_t size;                /* what was asked for */
    uintptr_t allocator;        /* that counted it (0: no pool) */
    size_t unused;
};

static const char *const names[] = {
    "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc", "omp_high_bw_mem_alloc",
    "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc", "omp_thread_mem_alloc",
};

/* def-allocator-var: OMP_ALLOCATOR, or what this thread set. */
static __thread uintptr_t thread_default;

static uintptr_t environment_default(void)
{
    const char *v = dsm_env("OMP_ALLOCATOR");
    for (size_t i = 0; v && i < sizeof names / sizeof *names; i++)
        if (dsm_is_word(v, names[i]))
            return i + 1;
    return DEFAULT_MEM_ALLOC;
}

static uintptr_t resolve(uintptr_t a)
{
    if (a != NULL_ALLOCATOR)
        return a;
    if (!thread_default)
        thread_default = environment_default();
    return thread_default;
}

static struct allocator *custom(uintptr_t a)
{
    if (a <= LAST_PREDEFINED)
        return NULL;
    struct allocator *c = (struct allocator *)a;
    if (c->magic != ALLOCATOR_MAGIC)
        dsm_fatal("an OpenMP allocator handle that omp_init_allocator did not return (or one destroyed)");
    return c;
}

/* Counts size bytes against the allocator's pool; false if they do not fit. */
static bool take_from_pool(struct allocator *c, size_t size)
{
    GOMP_atomic_start();
    bool fits = size <= c->pool_size - c->used;
    if (fits)
        c->used += size;
    GOMP_atomic_end();
    return fits;
}

static void give_to_pool(struct allocator *c, size_t size)
{
    GOMP_atomic_start();
    c->used -= size;
    GOMP_atomic_end();
}

/* Allocates for the program (caller: its return address): size bytes
 * aligned to align (a power of two), through allocator a or its fallbacks. */
static void *allocate(size_t align, size_t size, uintptr_t a, const void *caller)
{
    for (int hops = 0; hops < 16; hops++) {     /* allocator_fb may go round in a circle */
        a = resolve(a);
        struct allocator *c = custom(a);
        size_t al = c && c->alignment > align ? c->alignment : align;
        if (al < sizeof(struct header))
            al = sizeof(struct header);
        bool pooled = c && c->pool_size;
        void *block = NULL;
        if (size <= SIZE_MAX - sizeof(struct header) - al && (!pooled || take_from_pool(c, size))) {
            block = omp_rt_malloc(size + sizeof(struct header) + al, caller);
            if (!block && pooled)
                give_to_pool(c, size);
        }
        if (block) {
            uintptr_t user = ((uintptr_t)block + sizeof(struct header) + al - 1) & ~(uintptr_t)(al - 1);
            struct header *h = (struct header *)user - 1;
            *h = (struct header){ .block = block, .size = size, .allocator = pooled ? a : 0 };
            return (void *)user;
        }
        int fb = c ? c->fallback : ATV_NULL_FB;
        if (fb == ATV_DEFAULT_MEM_FB && a != DEFAULT_MEM_ALLOC)
            a = DEFAULT_MEM_ALLOC;
        else if (fb == ATV_ALLOCATOR_FB && c->fb_data)
            a = c->fb_data;
        else if (fb == ATV_ABORT_FB)
            dsm_fatal("an OpenMP allocator with the abort_fb fallback could not allocate %zu bytes", size);
        else
            return NULL;
    }
    return NULL;
}

static void release(void *p)
{
    if (!p)
        return;
    struct header *h = (struct header *)p - 1;
    struct allocator *c = (struct allocator *)h->allocator;
    if (c && c->magic == ALLOCATOR_MAGIC)       /* not destroyed meanwhile */
        give_to_pool(c, h->size);
    omp_rt_free(h->block);
}

static bool power_of_two(size_t x)
{
    return x && !(x & (x - 1));
}

API void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    if (!size || !power_of_two(alignment))
        return NULL;
    return allocate(alignment, size, allocator, __builtin_return_address(0));
}

API void *omp_alloc(size_t size, uintptr_t allocator)
{
    return size ? allocate(1, size, allocator, __builtin_return_address(0)) : NULL;
}

static void *zeroed(size_t alignment, size_t n, size_t size, uintptr_t allocator, const void *caller)
{
    if (!n || !size || !power_of_two(alignment) || n > SIZE_MAX / size)
        return NULL;
    void *p = allocate(alignment, n * size, allocator, caller);
    if (p)
        memset(p, 0, n * size);
    return p;
}

API void *omp_aligned_calloc(size_t alignment, size_t n, size_t size, uintptr_t allocator)
{
    return zeroed(alignment, n, size, allocator, __builtin_return_address(0));
}

API void *omp_calloc(size_t n, size_t size, uintptr_t allocator)
{
    return zeroed(1, n, size, allocator, __builtin_return_address(0));
}

API void *omp_realloc(void *p, size_t size, uintptr_t allocator, uintptr_t free_allocator)
{
    (void)free_allocator;
    if (!size) {
        release(p);
        return NULL;
    }
    void *q = allocate(1, size, allocator, __builtin_return_address(0));
    if (q && p) {
        size_t old = ((struct header *)p - 1)->size;
        memcpy(q, p, old < size ? old : size);
        release(p);
    }
    return q;
}

API void omp_free(void *p, uintptr_t allocator)
{
    (void)allocator;
    release(p);
}

/* A trait's value, or false if omp_init_allocator must refuse it. */
static bool valid(const struct trait *t)
{
    uintptr_t v = t->value;
    switch (t->key) {
    case ATK_SYNC_HINT:
        return v == ATV_DEFAULT || v == ATV_CONTENDED || v == ATV_UNCONTENDED || v == ATV_SERIALIZED
            || v == ATV_PRIVATE;
    case ATK_ALIGNMENT:
        return power_of_two(v);
    case ATK_ACCESS:
        return v == ATV_DEFAULT || v == ATV_ALL || v == ATV_THREAD || v == ATV_PTEAM || v == ATV_CGROUP;
    case ATK_POOL_SIZE:
    case ATK_FB_DATA:
        return true;
    case ATK_FALLBACK:
        return v == ATV_DEFAULT || (v >= ATV_DEFAULT_MEM_FB && v <= ATV_ALLOCATOR_FB);
    case ATK_PINNED:
        return v == ATV_DEFAULT || v == ATV_FALSE || v == ATV_TRUE;
    case ATK_PARTITION:
        return v == ATV_DEFAULT || (v >= ATV_ENVIRONMENT && v <= ATV_INTERLEAVED);
    default:
        return false;
    }
}

API uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const struct trait traits[])
{
    struct allocator a = { .magic = ALLOCATOR_MAGIC, .alignment = 1, .fallback = ATV_DEFAULT_MEM_FB };
    if (memspace > LAST_MEMSPACE || ntraits < 0)
        return NULL_ALLOCATOR;
    for (int i = 0; i < ntraits; i++) {
        const struct trait *t = &traits[i];
        if (!valid(t))
            return NULL_ALLOCATOR;
        if (t->key == ATK_ALIGNMENT)
            a.alignment = t->value;
        else if (t->key == ATK_POOL_SIZE)
            a.pool_size = t->value == ATV_DEFAULT ? 0 : t->value;
        else if (t->key == ATK_FALLBACK && t->value != ATV_DEFAULT)
            a.fallback = (int)t->value;
        else if (t->key == ATK_FB_DATA)
            a.fb_data = t->value;
    }
    if (a.fallback == ATV_ALLOCATOR_FB && !a.fb_data)
        return NULL_ALLOCATOR;
    struct allocator *c = omp_rt_malloc(sizeof *c, __builtin_return_address(0));
    if (!c)
        return NULL_ALLOCATOR;
    *c = a;
    return (uintptr_t)c;
}

API void omp_destroy_allocator(uintptr_t allocator)
{
    struct allocator *c = custom(allocator);
    if (!c)
        return;
    c->magic = 0;
    omp_rt_free(c);
}

API void omp_set_default_allocator(uintptr_t allocator)
{
    thread_default = allocator;
}

API uintptr_t omp_get_default_allocator(void)
{
    return resolve(NULL_ALLOCATOR);
}

/* The allocate clause and directive: the program's memory too (a private
 * variable allocated so may still be passed to a task on another node). */
void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    return allocate(power_of_two(alignment) ? alignment : 1, size ? size : 1, allocator,
                    __builtin_return_address(0));
}

void GOMP_free(void *p, uintptr_t allocator)
{
    (void)allocator;
    release(p);
}
