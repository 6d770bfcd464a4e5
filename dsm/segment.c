/*
 * segment.c: the shared address space: memfd-backed segments mapped twice.
 *
 * The shared region is reserved at the same virtual address on every node
 * with MAP_FIXED_NOREPLACE, so a collision is reported (with the mapping that
 * is in the way) instead of silently moving.  The memfd is sparse: only
 * touched pages take memory, and it never touches /dev/shm.
 *
 * Protection changes are coalesced into ranges: one mprotect per run of
 * consecutive pages, both because it is much cheaper and because scattered
 * single-page protections split the mapping into one VMA per page.
 */
#include "dsm.h"
#include "../net/boot.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *collision(uintptr_t base, size_t size, char *buf, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    snprintf(buf, len, "unknown mapping");
    if (!f)
        return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo < base + size && hi > base) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, len, "%s", line);
            break;
        }
    }
    fclose(f);
    return buf;
}

/* AddressSanitizer takes a fixed part of the address space for its shadow
 * memory (x86-64: 0x7fff8000..0x10007fff8000), mapped as anonymous memory. */
static const char *sanitizer_hint(void)
{
#ifdef __SANITIZE_ADDRESS__
    return " (in this AddressSanitizer build, 0x7fff8000..0x10007fff8000 is ASan's shadow memory)";
#else
    return "";
#endif
}

static uintptr_t globals_start, globals_end;

/* Per page, whether the runtime view maps it (dsm_populate).  Nothing
 * unmaps a page of the runtime view again. */
static uint8_t *rt_mapped;

/* Called before anything else by a program whose globals are shared: they
 * must be at the same address on every node, so this is the moment to turn
 * address-space randomisation off if the launcher left it on. */
void dsm_set_globals(uintptr_t start, uintptr_t end)
{
    boot_fix_addresses();
    globals_start = start;
    globals_end = end;
}

static int new_memfd(const char *name, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        dsm_fatal("memfd_create: %s", strerror(errno));
    /* A memfd is created mode 0777.  Other users cannot reach it today (its
     * /proc/PID/fd link needs ptrace rights over this process), but the
     * job's pages are the job's own: say so in the mode as well, in case a
     * descriptor ever leaks or is passed on. */
    if (fchmod(fd, 0600))
        dsm_fatal("cannot make the shared segment private (fchmod 0600): %s", strerror(errno));
    if (ftruncate(fd, (off_t)size))
        dsm_fatal("cannot size the %zu-byte shared segment: %s", size, strerror(errno));
    return fd;
}

static void map_runtime_view(struct dsm_seg *s, uintptr_t base, size_t size);

static void add_segment(const char *name, uintptr_t base, size_t size)
{
    struct dsm_seg *s = &dsm.segs[dsm.nsegs];
    s->memfd = new_memfd(name, size);
    void *app = mmap((void *)base, size, PROT_NONE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
                     s->memfd, 0);
    if (app == MAP_FAILED || (uintptr_t)app != base) {
        char what[600];
        if (errno == EEXIST || (app != MAP_FAILED && (uintptr_t)app != base))
            dsm_fatal("the shared region 0x%lx..0x%lx is already in use by [%s]; "
                      "set OMPDSM_REGION_BASE to a free address%s",
                      (unsigned long)base, (unsigned long)(base + size),
                      collision(base, size, what, sizeof what), sanitizer_hint());
        dsm_fatal("cannot map the shared region at 0x%lx (%zu bytes): %s",
                  (unsigned long)base, size, strerror(errno));
    }
    map_runtime_view(s, base, size);
}

/* Copies the program's global data out (size: whole pages).  Under
 * AddressSanitizer the range holds the redzones ASan puts between global
 * variables, poisoned in its shadow memory: copying all of it is the
 * runtime's business, not an access of the program, and must not be
 * checked.  memcpy would be (ASan intercepts it, whoever calls), so the copy
 * is a loop in an uninstrumented function; volatile keeps the compiler from
 * turning it back into a call to memcpy. */
__attribute__((no_sanitize_address)) static void copy_globals(void *dst, uintptr_t src, size_t size)
{
#ifdef __SANITIZE_ADDRESS__
    volatile uint64_t *d = dst;
    const uint64_t *from = (const uint64_t *)src;
    for (size_t i = 0; i < size / sizeof *d; i++)
        d[i] = from[i];
#else
    memcpy(dst, (const void *)src, size);
#endif
}

/* Turns the executable's writable data (initialised data and bss) into a
 * segment: its contents move into a memfd mapped at the same address.
 * Every node does this with its own identical image; node 0, the home of
 * every page, is the authority, and other nodes fetch from it. */
static void adopt_globals(void)
{
    size_t ps = dsm.page_size;
    if (ps != (size_t)sysconf(_SC_PAGESIZE))
        dsm_fatal("OMPDSM_PAGE_SIZE=%zu: OpenMP programs share their global variables in pages of the "
                  "OS page size; unset OMPDSM_PAGE_SIZE", ps);
    if (globals_start & (ps - 1))
        dsm_fatal("the program's global data does not start on a page boundary: "
                  "link it with ompdsm-cc (which passes -Wl,-z,now)");
    uintptr_t start = globals_start & ~(ps - 1), end = (globals_end + ps - 1) & ~(ps - 1);
    size_t size = end - start;
    struct dsm_seg *s = &dsm.segs[dsm.nsegs];
    s->memfd = new_memfd("ompdsm-globals", size);
    void *copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED)
        dsm_fatal("cannot save the program's global data (%zu bytes): %s", size, strerror(errno));
    copy_globals(copy, start, size);
    if (mmap((void *)start, size, PROT_NONE, MAP_SHARED | MAP_FIXED, s->memfd, 0) == MAP_FAILED)
        dsm_fatal("cannot map the program's global data as shared memory: %s", strerror(errno));
    map_runtime_view(s, start, size);
    memcpy(s->rt, copy, size);
    munmap(copy, size);
}

static void map_runtime_view(struct dsm_seg *s, uintptr_t base, size_t size)
{
    s->rt = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, s->memfd, 0);
    if (s->rt == MAP_FAILED)
        dsm_fatal("cannot map the runtime view of a shared segment (%zu bytes): %s", size, strerror(errno));
    s->base = base;
    s->size = size;
    s->first_page = dsm.npages;
    s->npages = size >> dsm.page_shift;
    dsm.npages += s->npages;
    dsm.nsegs++;
}

void dsm_segments_init(void)
{
    dsm.page_size = dsm_cfg.page_size;
    dsm.page_shift = (unsigned)__builtin_ctzl(dsm.page_size);
    if (globals_end > globals_start)
        adopt_globals();
    add_segment("ompdsm-region", dsm_cfg.region_base, dsm_cfg.region_size);
    rt_mapped = dsm_page_table(sizeof *rt_mapped);
    dsm.alloc_next = dsm_cfg.region_base;
    dsm.alloc_end = dsm_cfg.region_base + dsm_cfg.region_size;
}

struct dsm_seg *dsm_seg_of(uint64_t page)
{
    for (int i = 0; i < dsm.nsegs; i++) {
        struct dsm_seg *s = &dsm.segs[i];
        if (page - s->first_page < s->npages)
            return s;
    }
    dsm_fatal("internal: page %lu outside every segment", (unsigned long)page);
}

int64_t dsm_page_of(uintptr_t addr)
{
    for (int i = 0; i < dsm.nsegs; i++) {
        struct dsm_seg *s = &dsm.segs[i];
        if (addr - s->base < s->size)
            return (int64_t)(s->first_page + ((addr - s->base) >> dsm.page_shift));
    }
    return -1;
}

/* Straight to the system call: UCX's memory hooks, which the C library's
 * mmap reaches, may wait for a lock that a thread of the parent held.  A
 * private mapping of a file still shows the file's later changes in each
 * page until the process writes it, so the pages of main()'s stack that
 * are in use are written at once, while the parent waits. */
void dsm_segments_privatize(uintptr_t stack_in_use)
{
    int64_t in_use = dsm_page_of(stack_in_use);
    for (int i = 0; i < dsm.nsegs; i++) {
        const struct dsm_seg *s = &dsm.segs[i];
        if (syscall(SYS_mmap, s->base, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE,
                    s->memfd, 0) == -1) {
            static const char msg[] = "ompdsm: a forked child cannot map its own copy of the shared memory\n";
            ssize_t told = write(STDERR_FILENO, msg, sizeof msg - 1);
            (void)told;
            _exit(127);
        }
    }
    for (int64_t p = in_use; p >= 0 && dsm_pinned((uint64_t)p); p++) {
        volatile char *q = dsm_app((uint64_t)p);
        *q = *q;
    }
    dsm.nsegs = 0;
}

bool dsm_range_shared(const void *p, size_t len)
{
    uintptr_t addr = (uintptr_t)p;
    if (!p || !len)
        return false;
    for (int i = 0; i < dsm.nsegs; i++) {
        const struct dsm_seg *s = &dsm.segs[i];
        if (addr < s->base + s->size && (addr >= s->base || s->base - addr < len))
            return true;
    }
    return false;
}

char *dsm_app(uint64_t page)
{
    struct dsm_seg *s = dsm_seg_of(page);
    return (char *)s->base + ((page - s->first_page) << dsm.page_shift);
}

char *dsm_rt(uint64_t page)
{
    struct dsm_seg *s = dsm_seg_of(page);
    return s->rt + ((page - s->first_page) << dsm.page_shift);
}

static const int prot_of[] = {
    [PG_INVALID] = PROT_NONE,
    [PG_RO] = PROT_READ,
    [PG_RW] = PROT_READ | PROT_WRITE,
};

void dsm_protect(uint64_t first, uint64_t n, enum dsm_state st)
{
    if (mprotect(dsm_app(first), n << dsm.page_shift, prot_of[st]) == 0)
        return;
    if (errno == ENOMEM)
        dsm_fatal("mprotect failed: the pages of the shared memory this node holds alternate between "
                  "protections more often than vm.max_map_count allows one process (a mapping per run of "
                  "pages); raise it, as root: sysctl vm.max_map_count=1048576");
    dsm_fatal("mprotect of %lu pages at %p: %s", (unsigned long)n, (void *)dsm_app(first), strerror(errno));
}

static bool rt_is_mapped(uint64_t page)
{
    return __atomic_load_n(&rt_mapped[page], __ATOMIC_RELAXED);
}

void dsm_populate(uint64_t first, uint64_t n)
{
    for (uint64_t p = first, end = first + n; p < end;) {
        if (rt_is_mapped(p)) {
            p++;
            continue;
        }
        uint64_t q = p + 1;
        while (q < end && !rt_is_mapped(q))
            q++;
        xpopulate(dsm_rt(p), (q - p) << dsm.page_shift);
        for (; p < q; p++)
            __atomic_store_n(&rt_mapped[p], 1, __ATOMIC_RELAXED);
    }
}

/* The end of the run of consecutive pages of one segment that starts at
 * pages[i]. */
static size_t run_end(const uint64_t *pages, size_t i, size_t n)
{
    size_t j = i + 1;
    while (j < n && pages[j] == pages[j - 1] + 1 && dsm_app(pages[j]) == dsm_app(pages[j - 1]) + dsm.page_size)
        j++;
    return j;
}

void dsm_populate_pages(const uint64_t *pages, size_t n)
{
    for (size_t i = 0, j; i < n; i = j) {
        j = run_end(pages, i, n);
        dsm_populate(pages[i], j - i);
    }
}

/* Pages must be sorted; consecutive pages of one segment share one call. */
void dsm_protect_list(const uint64_t *sorted, size_t n, enum dsm_state st)
{
    for (size_t i = 0, j; i < n; i = j) {
        j = run_end(sorted, i, n);
        dsm_protect(sorted[i], j - i, st);
    }
}
