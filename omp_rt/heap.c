/*
 * heap.c: malloc and friends, interposed, so that memory the program
 * allocates is shared as OpenMP says it is.
 *
 * Who gets shared memory: calls made from the program's own code (the
 * caller's return address lies in the executable) once the runtime has
 * started.  Everything else -- the C library's internal allocations
 * (fopen, printf buffers), UCX, the runtime itself, allocations before
 * start-up -- comes from the C library's private heap.  C library
 * functions that return memory to the program (strdup, getline ...) are
 * interposed in libc_alloc.c, so that their results are shared too.
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
 *
 * The malloc family defined at the end interposes the C library's for the
 * whole process.  Under AddressSanitizer, whose own malloc family then
 * comes first, the program's calls are wrapped at link time instead
 * (wrap_main.c); both call the omp_rt_* entry points with the caller's
 * address.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../net/net.h"
#include "../util/log.h"

#include <dlfcn.h>
#include <errno.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLAB (64UL << 10)
#define SMALL_MAX 2048
#define USER_SPACE (1ULL << 47)

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

/* ---- the private heap ----------------------------------------------------------- */

/* Memory that is not the program's, and the heap's own bookkeeping.  It
 * comes from the C library's allocator, called by its internal names since
 * our malloc stands in front of it; with AddressSanitizer, from ASan's
 * allocator, which then stands in front of ours (and checks every private
 * block: the runtime's, UCX's, the C library's). */
#ifdef __SANITIZE_ADDRESS__

static void *private_malloc(size_t n) { return malloc(n); }
static void *private_calloc(size_t n, size_t size) { return calloc(n, size); }
static void *private_realloc(void *p, size_t n) { return realloc(p, n); }
static void *private_memalign(size_t align, size_t n) { return memalign(align, n); }
static void private_free(void *p) { free(p); }
static size_t private_usable_size(void *p) { return malloc_usable_size(p); }
static void private_heap_init(void) { }

#else

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static void *private_malloc(size_t n) { return __libc_malloc(n); }
static void *private_calloc(size_t n, size_t size) { return __libc_calloc(n, size); }
static void *private_realloc(void *p, size_t n) { return __libc_realloc(p, n); }
static void *private_memalign(size_t align, size_t n) { return __libc_memalign(align, n); }
static void private_free(void *p) { __libc_free(p); }

/* The C library's malloc_usable_size has no internal name: it is looked up
 * at start-up. */
static size_t (*libc_usable_size)(void *);

static size_t private_usable_size(void *p)
{
    return libc_usable_size ? libc_usable_size(p) : 0;
}

static void private_heap_init(void)
{
    libc_usable_size = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
}

#endif

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

bool omp_heap_for_program(const void *caller)
{
    return from_program(caller);
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

/* The allocator's own tables come from private_*, not xmalloc (xalloc.h):
 * the C library's heap directly, never back through the malloc above. */
static void push(struct stack *s, uintptr_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->v = private_realloc(s->v, s->cap * sizeof *s->v);
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
            private_free(gone);
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
        struct run *n = private_malloc(sizeof *n);
        if (!n)
            dsm_fatal("out of memory for the shared heap's free lists");
        *n = (struct run){ .at = at, .pages = pages, .next = next };
        *r = n;
        prev = n;
    }
    if (next && prev->at + prev->pages * dsm.page_size == next->at) {
        prev->pages += next->pages;
        prev->next = next->next;
        private_free(next);
    }
}

static size_t page_index(uintptr_t p)
{
    return (p - heap.lo) >> dsm.page_shift;
}

/* A run of whole pages starting at a multiple of align (a power of two):
 * for an alignment above the page, take align - page bytes more and give
 * back the pages before and after the aligned run. */
static void *alloc_large(size_t size, size_t align)
{
    size_t pages = (size + dsm.page_size - 1) >> dsm.page_shift;
    size_t slack = align > dsm.page_size ? (align >> dsm.page_shift) - 1 : 0;
    uintptr_t at = take_pages(pages + slack);
    if (!at)
        return NULL;
    uintptr_t start = slack ? (at + align - 1) & ~(uintptr_t)(align - 1) : at;
    size_t head = (start - at) >> dsm.page_shift;
    if (head)
        give_pages(at, head);
    if (slack > head)
        give_pages(start + (pages << dsm.page_shift), slack - head);
    heap.run_pages[page_index(start)] = (uint32_t)pages;
    return (void *)start;
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
    dsm_lock(&heap.mu);
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
    dsm_unlock(&heap.mu);
}

/* A request that this node's arena could not hold even empty is refused
 * as the C library refuses one that no memory could back: NULL, ENOMEM
 * (sizes near SIZE_MAX would otherwise wrap in the page arithmetic).  The
 * first such request that a machine could have satisfied (within x86-64's
 * 128 TiB user address space) is reported once, since the cure is a larger
 * region.  Running out of an arena that
 * could hold the block stays a fatal error (exhausted()). */
static bool refused(size_t size, size_t align)
{
    size_t pad = align > dsm.page_size ? align : 0;
    if (size <= heap.arena_size && pad <= heap.arena_size - size)
        return false;
    static _Atomic bool told;
    if (size < USER_SPACE && pad < USER_SPACE - size && !atomic_exchange(&told, true))
        dsm_warn("an allocation of %zu bytes (aligned to %zu) is larger than this node's shared heap (%zu bytes): "
                 "it returns NULL (raise OMPDSM_REGION_SIZE to allow it)", size, align, heap.arena_size);
    errno = ENOMEM;
    return true;
}

/* align: a power of two. */
static void *shared_alloc(size_t size, size_t align)
{
    if (size == 0)
        size = 1;
    if (refused(size, align))
        return NULL;
    int c = align <= 16 ? class_of(size) : -1;
    dsm_lock(&heap.mu);
    void *p = c >= 0 ? alloc_small(c) : alloc_large(size, align);
    dsm_unlock(&heap.mu);
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
    private_heap_init();
    heap.run_pages = table((heap.arena_size >> dsm.page_shift) * sizeof *heap.run_pages);
    net_register(OP_HEAP_FREE, on_remote_free);
#ifdef __SANITIZE_ADDRESS__
    /* The program may keep pointers to private blocks (from strdup, say) in
     * shared ones: LeakSanitizer must scan the shared heap.  It reads only
     * the pages this node can read when it looks. */
    __lsan_register_root_region((void *)heap.base, heap.end - heap.base);
#endif
    heap.on = true;
}

/* ---- the allocation entry points -------------------------------------------------- */

/* Every call names its caller: a call from the program's code gets shared
 * memory, any other call private memory.  Programs reach these through
 * the malloc family below, or, in AddressSanitizer builds, through the
 * program's own wrappers (wrap_main.c). */

#define API __attribute__((visibility("default")))

API void *omp_rt_malloc(size_t size, const void *caller)
{
    if (!from_program(caller))
        return private_malloc(size);
    return shared_alloc(size, 16);
}

API void omp_rt_free(void *p)
{
    if (in_heap(p))
        shared_free(p);
    else
        private_free(p);
}

API void *omp_rt_calloc(size_t n, size_t size, const void *caller)
{
    if (!from_program(caller))
        return private_calloc(n, size);
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = shared_alloc(bytes, 16);
    if (p)
        memset(p, 0, bytes);
    return p;
}

static size_t usable(const void *p)
{
    if (owner_of(p) != omp_rt.node)
        return 0;   /* unknown here: realloc copies what the caller asks for */
    dsm_lock(&heap.mu);
    size_t n = block_size((uintptr_t)p);
    dsm_unlock(&heap.mu);
    return n;
}

/* A block of the shared heap stays in it whoever grows it: the C library
 * growing the program's getline buffer must not move it to private memory.
 * On failure (NULL, ENOMEM) the old block is left as it was. */
API void *omp_rt_realloc(void *p, size_t size, const void *caller)
{
    if (!in_heap(p) && !from_program(caller))
        return private_realloc(p, size);
    if (!p)
        return shared_alloc(size, 16);
    if (size == 0) {
        omp_rt_free(p);
        return NULL;
    }
    size_t old = in_heap(p) ? usable(p) : private_usable_size(p);
    if (in_heap(p) && old >= size)
        return p;
    void *q = shared_alloc(size, 16);
    if (!q)
        return NULL;
    /* A block of another node's arena: its size is not known here, so copy
     * what the caller asks for (the pages exist whatever their contents). */
    memcpy(q, p, old && old < size ? old : size);
    omp_rt_free(p);
    return q;
}

API void *omp_rt_reallocarray(void *p, size_t n, size_t size, const void *caller)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return omp_rt_realloc(p, bytes, caller);
}

/* memalign, aligned_alloc and valloc follow the C library's (glibc 2.36)
 * rules: an alignment above SIZE_MAX / 2 + 1 is EINVAL, any other is
 * rounded up to a power of two, at least malloc's 16. */
API void *omp_rt_memalign(size_t align, size_t size, const void *caller)
{
    if (!from_program(caller))
        return private_memalign(align, size);
    if (align > SIZE_MAX / 2 + 1) {
        errno = EINVAL;
        return NULL;
    }
    size_t a = 16;
    while (a < align)
        a <<= 1;
    return shared_alloc(size, a);
}

API int omp_rt_posix_memalign(void **out, size_t align, size_t size, const void *caller)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p = omp_rt_memalign(align, size, caller);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* valloc: page-aligned; pvalloc: also a whole number of pages. */
API void *omp_rt_valloc(size_t size, const void *caller)
{
    return omp_rt_memalign((size_t)sysconf(_SC_PAGESIZE), size, caller);
}

API void *omp_rt_pvalloc(size_t size, const void *caller)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), rounded;
    if (__builtin_add_overflow(size, page - 1, &rounded)) {
        errno = ENOMEM;
        return NULL;
    }
    return omp_rt_memalign(page, rounded & ~(page - 1), caller);
}

API size_t omp_rt_usable_size(void *p)
{
    if (!p)
        return 0;
    if (in_heap(p))
        return usable(p);
    return private_usable_size(p);
}

/* ---- the interposed functions --------------------------------------------------- */

/* With AddressSanitizer, its runtime is loaded first and its malloc family
 * comes first in the symbol search order: definitions here would never be
 * called, so there are none (see wrap_main.c). */
#ifndef __SANITIZE_ADDRESS__

API void *malloc(size_t size)
{
    return omp_rt_malloc(size, __builtin_return_address(0));
}

API void free(void *p)
{
    omp_rt_free(p);
}

API void *calloc(size_t n, size_t size)
{
    return omp_rt_calloc(n, size, __builtin_return_address(0));
}

API void *realloc(void *p, size_t size)
{
    return omp_rt_realloc(p, size, __builtin_return_address(0));
}

API int posix_memalign(void **out, size_t align, size_t size)
{
    return omp_rt_posix_memalign(out, align, size, __builtin_return_address(0));
}

API void *aligned_alloc(size_t align, size_t size)
{
    return omp_rt_memalign(align, size, __builtin_return_address(0));
}

API void *memalign(size_t align, size_t size)
{
    return omp_rt_memalign(align, size, __builtin_return_address(0));
}

API void *reallocarray(void *p, size_t n, size_t size)
{
    return omp_rt_reallocarray(p, n, size, __builtin_return_address(0));
}

API void *valloc(size_t size)
{
    return omp_rt_valloc(size, __builtin_return_address(0));
}

API void *pvalloc(size_t size)
{
    return omp_rt_pvalloc(size, __builtin_return_address(0));
}

API size_t malloc_usable_size(void *p)
{
    return omp_rt_usable_size(p);
}

#endif
