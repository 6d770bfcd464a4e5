/*
 * sys_out.c: system calls that write their results into the caller's
 * memory, when that memory is shared.
 *
 * The kernel writes a stat() result, a pipe's descriptors or getcwd()'s
 * path without a fault in user space; where this node's copy of the page
 * is read-only (a home page that other nodes read is, so that the home
 * notices its own next write) or not held, the call fails with EFAULT,
 * and the DSM never sees the access.  A master whose global struct stat,
 * int fds[2] and char cwd[] the threads of other nodes had read got -1,
 * -1 and NULL from stat, pipe and getcwd at 2 nodes.
 *
 * So these calls, given a result buffer in shared memory, first write to
 * each of its pages in user space (an atomic OR with 0: a write fault the
 * DSM serves, with no change to the data), which leaves the pages
 * writable here until the next release, then make the call; should
 * another thread of the node have had the page taken back meanwhile (a
 * release, an invalidation), the call fails with EFAULT again and is made
 * once more.  Path names in shared memory are read first (the kernel
 * reads them the same way).  read, write and the like, whose buffers may
 * be large, copy through a private buffer instead (shared_io.c).
 *
 * Covered: stat, lstat, fstat, fstatat, statx, getcwd (with a buffer),
 * readlink, pipe, pipe2, clock_gettime and clock_getres, getrusage,
 * times, uname, wait, waitpid.
 *
 * Calls that also read what they are given (a sleep's request, poll's
 * array, select's sets and timeout) work on private copies instead, read
 * from the shared memory before the call and written back after it, in
 * user space, where the DSM serves the faults: a global struct timespec
 * that the master set made nanosleep fail with EFAULT at once on the
 * other nodes, without sleeping.  What goes back is what the kernel
 * writes, and only where it changed.  Covered: nanosleep,
 * clock_nanosleep, poll (and _FORTIFY_SOURCE's __poll_chk), select.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

/* Makes the pages of [p, p + len) writable here, their data unchanged. */
static void writable(void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p, end = a + len, page = dsm.page_size;
    for (uintptr_t at = a; at < end; at = (at | (page - 1)) + 1)
        __atomic_fetch_or((unsigned char *)at, 0, __ATOMIC_RELAXED);
}

/* The pages of a path name are read by the kernel: held here first. */
static void path_held(const char *path)
{
    if (dsm_range_shared(path, 1))
        (void)strlen(path);
}

/* Runs call (an expression that sets ret) until it stops failing with
 * EFAULT on the shared buffer [p, p + len), twice at most. */
#define RESULT_INTO(p, len, call)                                      \
    do {                                                               \
        bool shared_ = dsm_range_shared((p), (len));                   \
        for (int try_ = 0; try_ < 3; try_++) {                         \
            if (shared_)                                               \
                writable((void *)(p), (len));                          \
            call;                                                      \
            if (!shared_ || !(ret == -1 && errno == EFAULT))           \
                break;                                                 \
        }                                                              \
    } while (0)

/* fn, whose result goes to [out, out + len) and which reads the path name
 * `path` (NULL: none). */
#define RESULT_FN(type, fn, params, args, out, len, path) \
    API type fn params                                    \
    {                                                     \
        REAL(fn);                                         \
        type ret;                                         \
        path_held(path);                                  \
        RESULT_INTO(out, len, ret = real_##fn args);      \
        return ret;                                       \
    }

RESULT_FN(int, stat, (const char *path, struct stat *st), (path, st), st, sizeof *st, path)
RESULT_FN(int, lstat, (const char *path, struct stat *st), (path, st), st, sizeof *st, path)
RESULT_FN(int, fstat, (int fd, struct stat *st), (fd, st), st, sizeof *st, NULL)
RESULT_FN(int, fstatat, (int dir, const char *path, struct stat *st, int flags), (dir, path, st, flags), st,
          sizeof *st, path)
RESULT_FN(int, statx, (int dir, const char *path, int flags, unsigned mask, struct statx *st),
          (dir, path, flags, mask, st), st, sizeof *st, path)
RESULT_FN(ssize_t, readlink, (const char *path, char *buf, size_t len), (path, buf, len), buf, len, path)
RESULT_FN(int, pipe, (int fds[2]), (fds), fds, 2 * sizeof *fds, NULL)
RESULT_FN(int, pipe2, (int fds[2], int flags), (fds, flags), fds, 2 * sizeof *fds, NULL)
RESULT_FN(int, clock_gettime, (clockid_t clock, struct timespec *ts), (clock, ts), ts, sizeof *ts, NULL)
RESULT_FN(int, clock_getres, (clockid_t clock, struct timespec *ts), (clock, ts), ts, sizeof *ts, NULL)
RESULT_FN(int, getrusage, (int who, struct rusage *ru), (who, ru), ru, sizeof *ru, NULL)
RESULT_FN(clock_t, times, (struct tms *t), (t), t, sizeof *t, NULL)
RESULT_FN(int, uname, (struct utsname *u), (u), u, sizeof *u, NULL)
RESULT_FN(pid_t, waitpid, (pid_t pid, int *status, int options), (pid, status, options), status, sizeof *status,
          NULL)
RESULT_FN(pid_t, wait, (int *status), (status), status, sizeof *status, NULL)

/* getcwd with a buffer of the caller's (libc_alloc.c stands in front). */
char *omp_sys_getcwd(char *buf, size_t size)
{
    REAL(getcwd);
    int ret;
    char *path;
    RESULT_INTO(buf, size, path = real_getcwd(buf, size); ret = path ? 0 : -1);
    return path;
}

/* ---- arguments read and written through private copies ------------------ */

/* The argument [p, p + len) as the call is to see it: p itself, or, in
 * shared memory, buf holding a copy of it. */
static void *in_private(void *p, size_t len, void *buf)
{
    if (!dsm_range_shared(p, len))
        return p;
    memcpy(buf, p, len);
    return buf;
}

/* What the call left in the private copy `used` goes back to p, if it
 * changed anything: an unchanged argument is not written (no fault, and
 * another thread may have changed it meanwhile, which the kernel would
 * not have undone either). */
static void back_from_private(void *p, const void *used, size_t len)
{
    if (used == p || !memcmp(p, used, len))
        return;
    int e = errno;
    memcpy(p, used, len);
    errno = e;
}

/* The remaining time goes back only when the sleep was interrupted: the
 * kernel writes it then only. */
API int nanosleep(const struct timespec *req, struct timespec *rem)
{
    REAL(nanosleep);
    struct timespec in, out;
    struct timespec *r = in_private((void *)req, sizeof *req, &in), *left = in_private(rem, sizeof *rem, &out);
    int ret = real_nanosleep(r, left);
    if (ret == -1 && errno == EINTR)
        back_from_private(rem, left, sizeof *rem);
    return ret;
}

API int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem)
{
    REAL(clock_nanosleep);
    struct timespec in, out;
    struct timespec *r = in_private((void *)req, sizeof *req, &in), *left = in_private(rem, sizeof *rem, &out);
    int ret = real_clock_nanosleep(clock, flags, r, left);
    if (ret == EINTR && !(flags & TIMER_ABSTIME))
        back_from_private(rem, left, sizeof *rem);
    return ret;
}

/* Only each entry's revents is the kernel's to write. */
API int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    REAL(poll);
    size_t len = (size_t)n * sizeof *fds;
    if (len / sizeof *fds != n || !dsm_range_shared(fds, len))
        return real_poll(fds, n, timeout);
    struct pollfd few[16], *copy = n <= 16 ? few : malloc(len);
    if (!copy) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(copy, fds, len);
    int ret = real_poll(copy, n, timeout);
    for (nfds_t i = 0; ret >= 0 && i < n; i++)
        back_from_private(&fds[i].revents, &copy[i].revents, sizeof fds[i].revents);
    if (copy != few)
        free(copy);
    return ret;
}

/* _FORTIFY_SOURCE's checked form: the check, then the call. */
API int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t room);
API int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t room)
{
    if (room / sizeof *fds < n)
        __chk_fail();
    return poll(fds, n, timeout);
}

/* The sets come back when the call succeeded (they are left as they were
 * otherwise); the timeout always (Linux counts it down, interrupted too). */
API int select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *timeout)
{
    REAL(select);
    fd_set sets[3];
    struct timeval t;
    fd_set *r = in_private(rd, sizeof *rd, &sets[0]), *w = in_private(wr, sizeof *wr, &sets[1]),
           *e = in_private(ex, sizeof *ex, &sets[2]);
    struct timeval *tv = in_private(timeout, sizeof *timeout, &t);
    int ret = real_select(n, r, w, e, tv);
    if (ret >= 0) {
        back_from_private(rd, r, sizeof *rd);
        back_from_private(wr, w, sizeof *wr);
        back_from_private(ex, e, sizeof *ex);
    }
    back_from_private(timeout, tv, sizeof *timeout);
    return ret;
}
