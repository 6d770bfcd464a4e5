/*
 * heap.c: malloc and friends, interposed, so that memory the program
 * allocates is shared as OpenMP says it is.
 *
 * Who gets shared memory: calls made from the program's own code (the
 * caller's return address lies in the executable) once the runtime has
 * started.  Everything else -- the C library's internal allocations
 * (strdup, fopen, printf buffers), UCX, the runtime itself, allocations
 * before start-up -- comes from the C library's private heap.  A string
 * from strdup is therefore private to the node that made it.
 *
 * The shared heap is the upper half of the shared region, cut into one arena
 * per node, each homed at its node, so a node's allocations are local to
 * it.  All bookkeeping lives in private memory: the shared pages hold only
 * the program's data, so allocating never faults and never sends a page.
 *   small blocks (<= 2 KiB)  size classes carved from 64 KiB slabs, a free
 *                            stack per class;
 *   large blocks             runs of whole pages, first fit in an
 *                            address-ordered free list that coalesces.
 * free() of a block from another node's arena is sent to that node.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../dsm/log.h"
#include "../dsm/net.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

#define SLAB (64UL << 10)
#define SMALL_MAX 2048
#define OP_HEAP_FREE 26

static size_t (*real_usable_size)(void *);

static const uint32_t class_size[] = { 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048 };
#define NCLASSES (sizeof class_size / sizeof *class_size)

struct run {                    /* a free run of pages in the large-block area */
    uintptr_t at;
    size_t pages;
    struct run *next;
};

struct stack {
    uintptr_t *v;
    size_t n, cap;
};

static struct {
    bool on;
    uintptr_t text_lo, text_hi;     /* the executable's code */
    uintptr_t base, end;            /* all arenas */
    size_t arena_size;
    uintptr_t lo, hi, brk;          /* this node's arena and its bump pointer */
    pthread_mutex_t mu;
    struct stack free_small[NCLASSES];
    uint8_t *page_class;            /* per page of the arena: size class + 1 of its slab, 0 = large */
    uint32_t *run_pages;            /* per page: pages of the large block starting there */
    struct run *runs;
} heap = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* ---- which calls are the program's ----------------------------------------- */

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            heap.text_lo = info->dlpi_addr + ph->p_vaddr;
            heap.text_hi = heap.text_lo + ph->p_memsz;
        }
    }
    return 1;   /* the first object is the executable */
}

static bool from_program(const void *ret)
{
    return heap.on && (uintptr_t)ret - heap.text_lo < heap.text_hi - heap.text_lo;
}

static bool in_heap(const void *p)
{
    return (uintptr_t)p - heap.base < heap.end - heap.base;
}

/* ---- private bookkeeping ------------------------------------------------------ */

static void *table(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        dsm_fatal("cannot allocate the shared heap's tables: %s", strerror(errno));
    return p;
}

static void push(struct stack *s, uintptr_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->v = __libc_realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v)
            dsm_fatal("out of memory for the shared heap's free lists");
    }
    s->v[s->n++] = v;
}

static _Noreturn void exhausted(size_t size)
{
    dsm_fatal("shared heap exhausted: cannot allocate %zu bytes (this node's arena holds %zu bytes); "
              "raise OMPDSM_REGION_SIZE", size, heap.arena_size);
}

/* ---- large blocks ------------------------------------------------------------- */

static uintptr_t take_pages(size_t pages)
{
    for (struct run **r = &heap.runs; *r; r = &(*r)->next) {
        if ((*r)->pages < pages)
            continue;
        uintptr_t at = (*r)->at;
        (*r)->at += pages * dsm.page_size;
        (*r)->pages -= pages;
        if (!(*r)->pages) {
            struct run *gone = *r;
            *r = gone->next;
            __libc_free(gone);
        }
        return at;
    }
    if (pages * dsm.page_size > heap.hi - heap.brk)
        return 0;
    uintptr_t at = heap.brk;
    heap.brk += pages * dsm.page_size;
    return at;
}

static void give_pages(uintptr_t at, size_t pages)
{
    struct run **r = &heap.runs, *prev = NULL;
    while (*r && (*r)->at < at) {
        prev = *r;
        r = &(*r)->next;
    }
    struct run *next = *r;
    if (prev && prev->at + prev->pages * dsm.page_size == at) {
        prev->pages += pages;
    } else {
        struct run *n = __libc_malloc(sizeof *n);
        if (!n)
            dsm_fatal("out of memory for the shared heap's free lists");
        *n = (struct run){ .at = at, .pages = pages, .next = next };
        *r = n;
        prev = n;
    }
    if (next && prev->at + prev->pages * dsm.page_size == next->at) {
        prev->pages += next->pages;
        prev->next = next->next;
        __libc_free(next);
    }
}

static size_t page_index(uintptr_t p)
{
    return (p - heap.lo) >> dsm.page_shift;
}

static void *alloc_large(size_t size)
{
    size_t pages = (size + dsm.page_size - 1) >> dsm.page_shift;
    uintptr_t at = take_pages(pages);
    if (!at)
        return NULL;
    heap.run_pages[page_index(at)] = (uint32_t)pages;
    return (void *)at;
}

/* ---- small blocks ------------------------------------------------------------- */

static int class_of(size_t size)
{
    for (size_t c = 0; c < NCLASSES; c++)
        if (size <= class_size[c])
            return (int)c;
    return -1;
}

static void *alloc_small(int c)
{
    struct stack *s = &heap.free_small[c];
    if (!s->n) {
        uintptr_t slab = take_pages(SLAB >> dsm.page_shift);
        if (!slab)
            return NULL;
        memset(&heap.page_class[page_index(slab)], c + 1, SLAB >> dsm.page_shift);
        for (uintptr_t b = slab + SLAB - class_size[c]; b >= slab && b < slab + SLAB; b -= class_size[c])
            push(s, b);
    }
    return (void *)s->v[--s->n];
}

/* Size of a block of this node's arena; 0 for a pointer that is not one. */
static size_t block_size(uintptr_t p)
{
    uint8_t c = heap.page_class[page_index(p)];
    if (c)
        return class_size[c - 1];
    return (size_t)heap.run_pages[page_index(p)] << dsm.page_shift;
}

static void free_local(uintptr_t p)
{
    pthread_mutex_lock(&heap.mu);
    uint8_t c = heap.page_class[page_index(p)];
    if (c) {
        push(&heap.free_small[c - 1], p);
    } else {
        size_t i = page_index(p), pages = heap.run_pages[i];
        if (!pages || (p & (dsm.page_size - 1)))
            dsm_fatal("free(%p): not a block of the shared heap (double free?)", (void *)p);
        heap.run_pages[i] = 0;
        give_pages(p, pages);
    }
    pthread_mutex_unlock(&heap.mu);
}

static void *shared_alloc(size_t size, size_t align)
{
    if (size == 0)
        size = 1;
    int c = align <= 16 ? class_of(size) : -1;
    pthread_mutex_lock(&heap.mu);
    void *p = c >= 0 ? alloc_small(c) : alloc_large(size + (align > dsm.page_size ? align : 0));
    if (p && align > dsm.page_size && ((uintptr_t)p & (align - 1)))
        dsm_fatal("alignments above %zu bytes are not supported in the shared heap", dsm.page_size);
    pthread_mutex_unlock(&heap.mu);
    if (!p)
        exhausted(size);
    return p;
}

static int owner_of(const void *p)
{
    return (int)(((uintptr_t)p - heap.base) / heap.arena_size);
}

static void on_remote_free(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    uintptr_t p;
    memcpy(&p, body, sizeof p);
    free_local(p);
}

static void shared_free(void *p)
{
    int owner = owner_of(p);
    if (owner == omp_rt.node)
        free_local((uintptr_t)p);
    else
        net_send(owner, OP_HEAP_FREE, &p, sizeof p, NULL, 0);
}

/* ---- start-up ----------------------------------------------------------------- */

/* Collective: every node lays out the same arenas. */
void omp_heap_init(void)
{
    dl_iterate_phdr(find_text, NULL);
    size_t half = (dsm.alloc_end - dsm.alloc_next) / 2;
    heap.arena_size = (half / (size_t)omp_rt.nodes) & ~(SLAB - 1);
    if (heap.arena_size < SLAB)
        dsm_fatal("OMPDSM_REGION_SIZE is too small for a shared heap on %d nodes", omp_rt.nodes);
    heap.end = dsm.alloc_end;
    heap.base = heap.end - heap.arena_size * (size_t)omp_rt.nodes;
    dsm.alloc_end = heap.base;
    for (int n = 0; n < omp_rt.nodes; n++) {
        uintptr_t a = heap.base + (size_t)n * heap.arena_size;
        dsm_home_record_alloc((uint64_t)dsm_page_of(a), heap.arena_size >> dsm.page_shift, n);
    }
    heap.lo = heap.brk = heap.base + (size_t)omp_rt.node * heap.arena_size;
    heap.hi = heap.lo + heap.arena_size;
    heap.page_class = table(heap.arena_size >> dsm.page_shift);
    real_usable_size = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
    heap.run_pages = table((heap.arena_size >> dsm.page_shift) * sizeof *heap.run_pages);
    net_register(OP_HEAP_FREE, on_remote_free);
    heap.on = true;
}

/* ---- the interposed functions --------------------------------------------------- */

#define API __attribute__((visibility("default")))

API void *malloc(size_t size)
{
    if (!from_program(__builtin_return_address(0)))
        return __libc_malloc(size);
    return shared_alloc(size, 16);
}

API void free(void *p)
{
    if (in_heap(p))
        shared_free(p);
    else
        __libc_free(p);
}

API void *calloc(size_t n, size_t size)
{
    if (!from_program(__builtin_return_address(0)))
        return __libc_calloc(n, size);
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = shared_alloc(bytes, 16);
    memset(p, 0, bytes);
    return p;
}

static size_t usable(const void *p)
{
    if (owner_of(p) != omp_rt.node)
        return 0;   /* unknown here: realloc copies what the caller asks for */
    pthread_mutex_lock(&heap.mu);
    size_t n = block_size((uintptr_t)p);
    pthread_mutex_unlock(&heap.mu);
    return n;
}

API void *realloc(void *p, size_t size)
{
    bool shared = from_program(__builtin_return_address(0));
    if (!p)
        return shared ? shared_alloc(size, 16) : __libc_realloc(NULL, size);
    if (!in_heap(p) && !shared)
        return __libc_realloc(p, size);
    if (size == 0) {
        free(p);
        return NULL;
    }
    size_t old = in_heap(p) ? usable(p) : real_usable_size(p);
    if (in_heap(p) && old >= size)
        return p;
    void *q = shared ? shared_alloc(size, 16) : __libc_malloc(size);
    if (!q)
        return NULL;
    /* A block of another node's arena: its size is not known here, so copy
     * what the caller asks for (the pages exist whatever their contents). */
    memcpy(q, p, old && old < size ? old : size);
    free(p);
    return q;
}

API int posix_memalign(void **out, size_t align, size_t size)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    if (!from_program(__builtin_return_address(0))) {
        void *p = __libc_memalign(align, size);
        if (!p)
            return ENOMEM;
        *out = p;
        return 0;
    }
    *out = shared_alloc(size, align);
    return 0;
}

API void *aligned_alloc(size_t align, size_t size)
{
    if (!from_program(__builtin_return_address(0)))
        return __libc_memalign(align, size);
    return shared_alloc(size, align);
}

API void *memalign(size_t align, size_t size)
{
    if (!from_program(__builtin_return_address(0)))
        return __libc_memalign(align, size);
    return shared_alloc(size, align);
}

API void *valloc(size_t size)
{
    if (!from_program(__builtin_return_address(0)))
        return __libc_memalign(dsm.page_size ? dsm.page_size : 4096, size);
    return shared_alloc(size, dsm.page_size);
}

API size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    if (in_heap(p))
        return usable(p);
    return real_usable_size ? real_usable_size(p) : 0;
}
