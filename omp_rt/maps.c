/*
 * maps.c: memory the program maps itself, shared as its heap is.
 *
 * A program may take memory from mmap rather than malloc: a large array
 * (an anonymous mapping), or an input file mapped to be read in place.
 * Such a mapping is the calling node's own memory: the threads of other
 * nodes that follow the pointer read whatever their own process has at
 * that address (a sum over a mapped file of 300,000 ints at 2 nodes came
 * out negative, with no error).  So the program's calls for a private
 * mapping, or a shared mapping of a file, at an address of the kernel's
 * choosing, get a block of the shared heap instead, page-aligned and
 * zero-filled, and for a file filled with its contents from the offset
 * (zeros past its end).  A shared mapping of a file that may be written is
 * written back to the file by msync and munmap on the node that mapped
 * it.  munmap of a whole block frees it (of a part: nothing happens);
 * mremap moves it to a new block.  The protection asked for is not kept: a
 * read-only mapping can be written.
 *
 * The program's calls reach these functions through wrappers linked into
 * it (ompdsm-cc links with -Wl,--wrap=mmap ...: wrap_maps.c), not through
 * an mmap of libompdsm's standing in front of the C library's: UCX's
 * memory hooks rewrite the first instructions of whichever mmap the
 * program would call, and its calls then never reach the runtime.  Calls
 * from libraries (the C library's malloc, UCX, the runtime) never come
 * here.
 *
 * Left to the kernel: fixed addresses, anonymous shared mappings (memory
 * shared with child processes), stacks.  The calls that pass go straight
 * to the system call, as the C library's functions would.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

struct block {
    uintptr_t at;
    size_t len;
    int fd;         /* a shared mapping of a file: a duplicate of its descriptor, else -1 */
    off_t off;
};

static struct {
    pthread_mutex_t mu;
    struct block *v;
    size_t n, cap;
} maps = { .mu = PTHREAD_MUTEX_INITIALIZER };

static size_t page_round(size_t len)
{
    return (len + dsm.page_size - 1) & ~(dsm.page_size - 1);
}

/* Under maps.mu: the block that holds address p, or NULL. */
static struct block *block_holding(uintptr_t p)
{
    for (size_t i = 0; i < maps.n; i++)
        if (p - maps.v[i].at < maps.v[i].len)
            return &maps.v[i];
    return NULL;
}

static void note(struct block b)
{
    pthread_mutex_lock(&maps.mu);
    maps.v = xgrow(maps.v, &maps.cap, maps.n + 1, sizeof *maps.v);
    maps.v[maps.n++] = b;
    pthread_mutex_unlock(&maps.mu);
}

/* Takes the block that starts at p and is at most len long out of the
 * list, into *out; false if there is none. */
static bool take(uintptr_t p, size_t len, struct block *out)
{
    pthread_mutex_lock(&maps.mu);
    struct block *b = block_holding(p);
    bool whole = b && b->at == p && page_round(len) >= b->len;
    if (whole) {
        *out = *b;
        *b = maps.v[--maps.n];
    }
    pthread_mutex_unlock(&maps.mu);
    return whole;
}

/* Fills [p, p + len) from the file at off (shared_io.c's pread copies
 * through a private buffer); what lies past the end of the file stays
 * zero.  False, with errno, if the file cannot be read. */
static bool load(int fd, char *p, size_t len, off_t off)
{
    for (size_t done = 0; done < len;) {
        ssize_t k = pread(fd, p + done, len - done, off + (off_t)done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return false;
        if (k == 0)
            break;
        done += (size_t)k;
    }
    return true;
}

/* Writes bytes [from, from + len) of a shared mapping of a file back to
 * it, as far as the file reaches: a mapping never makes its file longer. */
static int write_back(const struct block *b, size_t from, size_t len)
{
    struct stat st;
    if (fstat(b->fd, &st))
        return -1;
    off_t at = b->off + (off_t)from;
    if (st.st_size <= at)
        return 0;
    if ((off_t)len > st.st_size - at)
        len = (size_t)(st.st_size - at);
    for (size_t done = 0; done < len;) {
        ssize_t k = pwrite(b->fd, (const char *)b->at + from + done, len - done, at + (off_t)done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        done += (size_t)k;
    }
    return 0;
}

static bool ours(void *addr, int flags, int fd)
{
    if (addr || (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE | MAP_GROWSDOWN | MAP_STACK)))
        return false;
    if (flags & MAP_ANONYMOUS)
        return (flags & MAP_TYPE) == MAP_PRIVATE;
    return fd >= 0;
}

API void *omp_rt_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off, const void *caller)
{
    if (!omp_heap_for_program(caller) || !len || !ours(addr, flags, fd))
        return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    size_t size = page_round(len);
    char *p = omp_rt_memalign(dsm.page_size, size, caller);
    if (!p) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    memset(p, 0, size);
    struct block b = { (uintptr_t)p, size, -1, off };
    bool file = !(flags & MAP_ANONYMOUS);
    if (file && !load(fd, p, len, off)) {
        int e = errno;
        omp_rt_free(p);
        errno = e;
        return MAP_FAILED;
    }
    if (file && (flags & MAP_TYPE) != MAP_PRIVATE && (prot & PROT_WRITE))
        b.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    note(b);
    return p;
}

API int omp_rt_munmap(void *p, size_t len)
{
    struct block b;
    if (!dsm_range_shared(p, len))
        return (int)syscall(SYS_munmap, p, len);
    if (!take((uintptr_t)p, len, &b))
        return 0;
    int rc = b.fd >= 0 ? write_back(&b, 0, b.len) : 0;
    if (b.fd >= 0)
        close(b.fd);
    omp_rt_free(p);
    return rc;
}

API int omp_rt_msync(void *p, size_t len, int flags)
{
    if (!dsm_range_shared(p, len))
        return (int)syscall(SYS_msync, p, len, flags);
    pthread_mutex_lock(&maps.mu);
    struct block *b = block_holding((uintptr_t)p), copy = b ? *b : (struct block){ .fd = -1 };
    pthread_mutex_unlock(&maps.mu);
    if (copy.fd < 0)
        return 0;
    size_t from = (uintptr_t)p - copy.at;
    return write_back(&copy, from, len < copy.len - from ? len : copy.len - from);
}

API void *omp_rt_mremap(void *p, size_t old_len, size_t new_len, int flags, void *to, const void *caller)
{
    if (!dsm_range_shared(p, old_len ? old_len : 1))
        return (void *)syscall(SYS_mremap, p, old_len, new_len, flags, to);
    struct block b;
    if (!(flags & MREMAP_MAYMOVE) || (flags & MREMAP_FIXED) || !take((uintptr_t)p, old_len, &b)) {
        errno = (flags & MREMAP_MAYMOVE) ? EINVAL : ENOMEM;
        return MAP_FAILED;
    }
    size_t size = page_round(new_len);
    char *q = omp_rt_memalign(dsm.page_size, size, caller);
    if (!q) {
        note(b);
        errno = ENOMEM;
        return MAP_FAILED;
    }
    memcpy(q, p, size < b.len ? size : b.len);
    if (size > b.len)
        memset(q + b.len, 0, size - b.len);
    omp_rt_free(p);
    b.at = (uintptr_t)q;
    b.len = size;
    note(b);
    return q;
}
