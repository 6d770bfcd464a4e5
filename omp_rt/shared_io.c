/*
 * shared_io.c: reads and writes whose buffer is shared memory.
 *
 * The kernel copies a write()'s buffer out and a read()'s in without a
 * fault in user space: where the program's view of a page is not readable
 * (a copy this node does not hold) or not writable (a clean copy, a page
 * its home shares), the call stops short or fails with EFAULT, and the DSM
 * never sees the access.  A master that wrote an array the loops of
 * several nodes had filled with fwrite wrote half of it at 2 nodes (a
 * third at 3), and an fread back into it read nothing; no error but the
 * counts, which programs rarely check.  The same holds for the C library's
 * own stdio, which hands a large fwrite or fread buffer straight to the
 * kernel.
 *
 * So these calls, when their buffer lies in shared memory, go through a
 * private buffer of the calling thread, BOUNCE bytes at a time: what is
 * written is first copied there by the thread (its reads fault and fetch
 * as any), what is read lands there and is copied out (its writes fault
 * as any).  A regular file is read or written in as many pieces as the
 * call asks for; anything else (a pipe, a socket, a terminal) in one piece
 * of at most BOUNCE bytes, which such a call may always return, so that
 * the call never waits for more than the kernel would have.  Buffers in
 * private memory go straight to the C library.
 *
 * Covered: read, write, pread, pwrite (and their 64 forms), readv, writev,
 * recv, recvfrom, send, sendto, the _FORTIFY_SOURCE __read_chk,
 * __pread_chk, __pread64_chk, __recv_chk, __recvfrom_chk and __fread_chk,
 * and from stdio fread, fwrite, fputs and puts (files.c calls
 * omp_shared_fread and the others).  A printf whose %s argument is a
 * shared string longer than the stream's buffer, and the paths and
 * structures of other system calls, are not.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

enum { BOUNCE = 1 << 20 };

static __thread char *bounce;

static char *bounce_buffer(void)
{
    if (!bounce)
        bounce = xmalloc(BOUNCE);
    return bounce;
}

/* Whether fd may be read or written in several pieces: a regular file. */
static bool in_pieces(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* A transfer: piece() moves up to len bytes between the bounce buffer and
 * the file, at offset off (or the file's position), as the call asks, and
 * returns what the C library's call returns. */
struct xfer {
    ssize_t (*piece)(const struct xfer *x, char *buf, size_t len, off_t off);
    int fd;
    FILE *file;                 /* fread and fwrite */
    int flags;                  /* recv, send and sendto */
    const struct sockaddr *to;  /* sendto */
    socklen_t tolen;
    off_t off;                  /* pread and pwrite; -1: the file's position */
    bool whole;                 /* as many pieces as asked (a regular file) */
};

/* Reads into the program's buffer p: returns the bytes read, or -1 with
 * errno if the first piece failed. */
static ssize_t read_via_bounce(const struct xfer *x, void *p, size_t len)
{
    char *b = bounce_buffer();
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < BOUNCE ? len - done : BOUNCE;
        ssize_t got = x->piece(x, b, want, x->off < 0 ? -1 : x->off + (off_t)done);
        if (got < 0)
            return done ? (ssize_t)done : -1;
        /* recv with MSG_TRUNC returns a datagram's whole length */
        memcpy((char *)p + done, b, (size_t)got < want ? (size_t)got : want);
        done += (size_t)got;
        if ((size_t)got != want || !x->whole)
            break;
    }
    return (ssize_t)done;
}

/* Writes from the program's buffer p, as read_via_bounce reads. */
static ssize_t write_via_bounce(const struct xfer *x, const void *p, size_t len)
{
    char *b = bounce_buffer();
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < BOUNCE ? len - done : BOUNCE;
        memcpy(b, (const char *)p + done, want);
        ssize_t put = x->piece(x, b, want, x->off < 0 ? -1 : x->off + (off_t)done);
        if (put < 0)
            return done ? (ssize_t)done : -1;
        done += (size_t)put;
        if ((size_t)put < want || !x->whole)
            break;
    }
    return (ssize_t)done;
}

/* ---- the pieces --------------------------------------------------------- */

static ssize_t piece_read(const struct xfer *x, char *buf, size_t len, off_t off)
{
    REAL(read);
    REAL(pread);
    return off < 0 ? real_read(x->fd, buf, len) : real_pread(x->fd, buf, len, off);
}

static ssize_t piece_write(const struct xfer *x, char *buf, size_t len, off_t off)
{
    REAL(write);
    REAL(pwrite);
    return off < 0 ? real_write(x->fd, buf, len) : real_pwrite(x->fd, buf, len, off);
}

static ssize_t piece_recv(const struct xfer *x, char *buf, size_t len, off_t off)
{
    (void)off;
    REAL(recv);
    return real_recv(x->fd, buf, len, x->flags);
}

static ssize_t piece_sendto(const struct xfer *x, char *buf, size_t len, off_t off)
{
    (void)off;
    REAL(sendto);
    return real_sendto(x->fd, buf, len, x->flags, x->to, x->tolen);
}

static ssize_t piece_fread(const struct xfer *x, char *buf, size_t len, off_t off)
{
    (void)off;
    REAL(fread);
    return (ssize_t)real_fread(buf, 1, len, x->file);
}

static ssize_t piece_fwrite(const struct xfer *x, char *buf, size_t len, off_t off)
{
    (void)off;
    REAL(fwrite);
    return (ssize_t)real_fwrite(buf, 1, len, x->file);
}

static ssize_t shared_read(int fd, void *p, size_t len, off_t off)
{
    struct xfer x = { .piece = piece_read, .fd = fd, .off = off, .whole = in_pieces(fd) };
    return read_via_bounce(&x, p, len);
}

static ssize_t shared_write(int fd, const void *p, size_t len, off_t off)
{
    struct xfer x = { .piece = piece_write, .fd = fd, .off = off, .whole = in_pieces(fd) };
    return write_via_bounce(&x, p, len);
}

/* ---- the system calls ----------------------------------------------------- */

API ssize_t read(int fd, void *p, size_t len)
{
    if (dsm_range_shared(p, len))
        return shared_read(fd, p, len, -1);
    REAL(read);
    return real_read(fd, p, len);
}

API ssize_t write(int fd, const void *p, size_t len)
{
    if (dsm_range_shared(p, len))
        return shared_write(fd, p, len, -1);
    REAL(write);
    return real_write(fd, p, len);
}

API ssize_t pread(int fd, void *p, size_t len, off_t off)
{
    if (dsm_range_shared(p, len) && off >= 0)
        return shared_read(fd, p, len, off);
    REAL(pread);
    return real_pread(fd, p, len, off);
}

API ssize_t pwrite(int fd, const void *p, size_t len, off_t off)
{
    if (dsm_range_shared(p, len) && off >= 0)
        return shared_write(fd, p, len, off);
    REAL(pwrite);
    return real_pwrite(fd, p, len, off);
}

/* off_t is 64 bits here: the 64 forms are the same calls. */
API ssize_t pread64(int fd, void *p, size_t len, off_t off) __attribute__((alias("pread")));
API ssize_t pwrite64(int fd, const void *p, size_t len, off_t off) __attribute__((alias("pwrite")));

API ssize_t recv(int fd, void *p, size_t len, int flags)
{
    if (dsm_range_shared(p, len)) {
        struct xfer x = { .piece = piece_recv, .fd = fd, .flags = flags, .off = -1 };
        return read_via_bounce(&x, p, len);
    }
    REAL(recv);
    return real_recv(fd, p, len, flags);
}

API ssize_t send(int fd, const void *p, size_t len, int flags)
{
    return sendto(fd, p, len, flags, NULL, 0);
}

/* A datagram goes in one piece: at most BOUNCE bytes. */
API ssize_t recvfrom(int fd, void *p, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)
{
    REAL(recvfrom);
    if (!dsm_range_shared(p, len))
        return real_recvfrom(fd, p, len, flags, from, fromlen);
    char *b = bounce_buffer();
    size_t room = len < BOUNCE ? len : BOUNCE;
    ssize_t got = real_recvfrom(fd, b, room, flags, from, fromlen);
    if (got > 0)
        memcpy(p, b, (size_t)got < room ? (size_t)got : room);
    return got;
}

API ssize_t sendto(int fd, const void *p, size_t len, int flags, const struct sockaddr *to, socklen_t tolen)
{
    if (dsm_range_shared(p, len)) {
        struct xfer x = { .piece = piece_sendto, .fd = fd, .flags = flags, .to = to, .tolen = tolen, .off = -1 };
        return write_via_bounce(&x, p, len);
    }
    REAL(sendto);
    return real_sendto(fd, p, len, flags, to, tolen);
}

/* The pieces of a vector, one at a time through read or write: each
 * buffer in shared memory bounced, the next one only once the last was
 * whole. */
static ssize_t vector(int fd, const struct iovec *iov, int n, bool out)
{
    ssize_t total = 0;
    for (int i = 0; i < n; i++) {
        ssize_t k = out ? write(fd, iov[i].iov_base, iov[i].iov_len) : read(fd, iov[i].iov_base, iov[i].iov_len);
        if (k < 0)
            return total ? total : -1;
        total += k;
        if ((size_t)k < iov[i].iov_len)
            break;
    }
    return total;
}

static bool any_shared(const struct iovec *iov, int n)
{
    for (int i = 0; i < n; i++)
        if (dsm_range_shared(iov[i].iov_base, iov[i].iov_len))
            return true;
    return false;
}

API ssize_t readv(int fd, const struct iovec *iov, int n)
{
    if (n > 0 && any_shared(iov, n))
        return vector(fd, iov, n, false);
    REAL(readv);
    return real_readv(fd, iov, n);
}

API ssize_t writev(int fd, const struct iovec *iov, int n)
{
    if (n > 0 && any_shared(iov, n))
        return vector(fd, iov, n, true);
    REAL(writev);
    return real_writev(fd, iov, n);
}

/* _FORTIFY_SOURCE's checked forms: the check, then the call. */
API ssize_t __read_chk(int fd, void *p, size_t len, size_t room);
API ssize_t __read_chk(int fd, void *p, size_t len, size_t room)
{
    if (len > room)
        __chk_fail();
    return read(fd, p, len);
}

API ssize_t __pread_chk(int fd, void *p, size_t len, off_t off, size_t room);
API ssize_t __pread_chk(int fd, void *p, size_t len, off_t off, size_t room)
{
    if (len > room)
        __chk_fail();
    return pread(fd, p, len, off);
}

API ssize_t __pread64_chk(int fd, void *p, size_t len, off_t off, size_t room)
    __attribute__((alias("__pread_chk")));

API ssize_t __recv_chk(int fd, void *p, size_t len, size_t room, int flags);
API ssize_t __recv_chk(int fd, void *p, size_t len, size_t room, int flags)
{
    if (len > room)
        __chk_fail();
    return recv(fd, p, len, flags);
}

API ssize_t __recvfrom_chk(int fd, void *p, size_t len, size_t room, int flags, struct sockaddr *from,
                           socklen_t *fromlen);
API ssize_t __recvfrom_chk(int fd, void *p, size_t len, size_t room, int flags, struct sockaddr *from,
                           socklen_t *fromlen)
{
    if (len > room)
        __chk_fail();
    return recvfrom(fd, p, len, flags, from, fromlen);
}

/* ---- stdio ------------------------------------------------------------ */

/* A count of elements whose bytes do not fit in a size_t: the C library's
 * calls refuse it. */
static bool too_many(size_t size, size_t n)
{
    return size && n > SIZE_MAX / size;
}

size_t omp_shared_fread(void *p, size_t size, size_t n, FILE *f)
{
    REAL(fread);
    if (too_many(size, n) || !dsm_range_shared(p, size * n))
        return real_fread(p, size, n, f);
    struct xfer x = { .piece = piece_fread, .file = f, .off = -1, .whole = true };
    return (size_t)read_via_bounce(&x, p, size * n) / size;
}

size_t omp_shared_fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    REAL(fwrite);
    if (too_many(size, n) || !dsm_range_shared(p, size * n))
        return real_fwrite(p, size, n, f);
    struct xfer x = { .piece = piece_fwrite, .file = f, .off = -1, .whole = true };
    return (size_t)write_via_bounce(&x, p, size * n) / size;
}

int omp_shared_fputs(const char *s, FILE *f)
{
    REAL(fputs);
    size_t len = strlen(s);
    if (!dsm_range_shared(s, len))
        return real_fputs(s, f);
    return omp_shared_fwrite(s, 1, len, f) == len ? 1 : EOF;
}

API size_t __fread_chk(void *p, size_t room, size_t size, size_t n, FILE *f);
API size_t __fread_chk(void *p, size_t room, size_t size, size_t n, FILE *f)
{
    if (too_many(size, n) || size * n > room)
        __chk_fail();
    return fread(p, size, n, f);
}

API int puts(const char *s)
{
    REAL(puts);
    size_t len = strlen(s);
    if (!dsm_range_shared(s, len))
        return real_puts(s);
    if (omp_shared_fwrite(s, 1, len, stdout) != len || putchar('\n') == EOF)
        return EOF;
    return 1;
}
