/*
 * files.c: files that node 0's program opened, written from other nodes.
 *
 * A FILE is the C library's object in the opening node's private memory.
 * A program that opens a file in main() and writes it from a parallel
 * region (a line per iteration in an ordered loop, a log under critical)
 * hands node 0's FILE pointer to the threads of every node; at another
 * node the same address is that node's own, unrelated memory, and what
 * its threads wrote was lost without an error (an ordered loop of 8 lines
 * at 2 nodes left the 4 lines of node 1 out of the file).
 *
 * So node 0 lists the FILEs it opens (fopen and the functions like it) and
 * publishes the list in shared memory as a region starts, and writes at
 * another node to a FILE of that list travel to node 0: the
 * bytes (formatted where they were written), one request each, which a
 * thread of node 0 writes into the FILE with the C library before it
 * answers.  The writer waits for the answer, so its bytes are in the FILE
 * before it goes on: an ordered loop's lines stay in order, and what node
 * 0 writes after a synchronisation comes after them.  The thread that
 * writes them sleeps while there is nothing to write; it is not the
 * progress thread, which must not wait for the FILE's lock (node 0's
 * thread that holds it may be waiting for a page the progress thread
 * serves).
 *
 * A file node 0 opens inside a region is known to the others from the
 * next region on.  Reading node 0's FILE at another node, positioning it
 * or asking for its state (feof, ftell ...) is not supported: a clear
 * error.  A FILE a node opened itself is its own, even at an address node
 * 0's list also holds (the nodes' private heaps lie at the same
 * addresses), so each node lists the ones it opened.  The standard
 * streams are never listed: each node's standard output and error go to
 * the launcher (README).
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../net/net.h"
#include "../util/futex.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

enum { FILES_MAX = 4095 };

/* The C library's, declared by its headers only for other feature macros. */
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __isoc99_vfscanf(FILE *f, const char *fmt, va_list ap);

/* Node 0's open FILEs as of the start of the last region, in shared
 * memory (home node 0; node 0's first thread writes it). */
struct listed {
    uint64_t n;
    uint64_t file[FILES_MAX];
};

enum file_op { FILE_WRITE = 1, FILE_FLUSH, FILE_CLOSE };

struct file_req {
    uint64_t cookie, file;
    uint32_t op, len;
};

/* A request node 0's writer has yet to carry out. */
struct queued {
    struct queued *next;
    int src;
    struct file_req r;
    char bytes[];
};

/* FILE addresses. */
struct list {
    uint64_t *v;
    size_t n, cap;
};

static struct {
    struct listed *shared;
    pthread_mutex_t mu;             /* the lists below */
    struct list open;               /* the FILEs this node opened and has not closed */
    struct list node0;              /* a node other than 0: node 0's, from `shared` */
    bool full_told;
    struct queued *head, **tail;    /* node 0: requests for the writer */
    pthread_mutex_t qmu;
    _Atomic uint32_t queued;        /* bumped at every request queued */
    bool writer;
} files = { .mu = PTHREAD_MUTEX_INITIALIZER, .qmu = PTHREAD_MUTEX_INITIALIZER };

/* ---- the lists ------------------------------------------------------------ */

/* Every FILE opened through these functions is listed, whoever opens it:
 * under AddressSanitizer the program's calls reach them through ASan's,
 * so the caller does not tell the program's apart.  The lists are this
 * node's own memory, so that any thread may change or read them at any
 * time (the runtime's own messages go through fprintf too); only node 0's
 * first thread, before a region starts, and the other nodes' first
 * threads, as it starts, touch the shared list. */

static bool in_list(const struct list *l, const FILE *f)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == (uint64_t)(uintptr_t)f)
            return true;
    return false;
}

static void opened(FILE *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&files.mu);
    files.open.v = xgrow(files.open.v, &files.open.cap, files.open.n + 1, sizeof *files.open.v);
    files.open.v[files.open.n++] = (uint64_t)(uintptr_t)f;
    pthread_mutex_unlock(&files.mu);
}

static void drop(struct list *l, const FILE *f)
{
    pthread_mutex_lock(&files.mu);
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == (uint64_t)(uintptr_t)f) {
            l->v[i] = l->v[--l->n];
            break;
        }
    pthread_mutex_unlock(&files.mu);
}

void omp_files_publish(void)
{
    if (!files.shared)
        return;
    pthread_mutex_lock(&files.mu);
    size_t n = files.open.n < FILES_MAX ? files.open.n : FILES_MAX;
    if (files.open.n > FILES_MAX && !files.full_told)
        dsm_warn("the program has more than %d files open: what other nodes write to the others is lost",
                 FILES_MAX);
    files.full_told |= files.open.n > FILES_MAX;
    if (files.shared->n != n || (n && memcmp(files.shared->file, files.open.v, n * sizeof *files.open.v))) {
        if (n)
            memcpy(files.shared->file, files.open.v, n * sizeof *files.open.v);
        files.shared->n = n;
    }
    pthread_mutex_unlock(&files.mu);
}

void omp_files_apply(void)
{
    if (!files.shared)
        return;
    uint64_t n = files.shared->n;
    pthread_mutex_lock(&files.mu);
    if (n) {
        files.node0.v = xgrow(files.node0.v, &files.node0.cap, n, sizeof *files.node0.v);
        memcpy(files.node0.v, files.shared->file, n * sizeof *files.node0.v);
    }
    files.node0.n = n;
    pthread_mutex_unlock(&files.mu);
}

/* Whether a call at a node other than 0 is for node 0's FILE f (and not for
 * one of its own at the same address). */
static bool node0s(const FILE *f)
{
    if (omp_rt.node == 0)
        return false;
    pthread_mutex_lock(&files.mu);
    bool theirs = in_list(&files.node0, f) && !in_list(&files.open, f);
    pthread_mutex_unlock(&files.mu);
    return theirs;
}

/* ---- node 0's writer ---------------------------------------------------------- */

static void carry_out(const struct queued *q)
{
    FILE *f = (FILE *)(uintptr_t)q->r.file;
    if (q->r.op == FILE_WRITE) {
        REAL(fwrite);
        real_fwrite(q->bytes, 1, q->r.len, f);
    } else if (q->r.op == FILE_FLUSH) {
        REAL(fflush);
        real_fflush(f);
    } else {
        drop(&files.open, f);
        REAL(fclose);
        real_fclose(f);
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t seen = atomic_load(&files.queued);
        pthread_mutex_lock(&files.qmu);
        struct queued *q = files.head;
        if (q && !(files.head = q->next))
            files.tail = &files.head;
        pthread_mutex_unlock(&files.qmu);
        if (!q) {
            futex_wait(&files.queued, seen);
            continue;
        }
        carry_out(q);
        net_send_done(q->src, q->r.cookie);
        free(q);
    }
    return NULL;
}

/* The signals stay with the program's threads. */
static void start_writer(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    omp_thread_start(writer_main, NULL, "thread that writes other nodes' output to files");
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Under the transport lock: queues the request for the writer. */
static void on_file(int src, void *body, size_t len)
{
    const struct file_req *r = body;
    if (len < sizeof *r || len - sizeof *r != r->len)
        dsm_fatal("internal: a file request of %zu bytes from node %d", len, src);
    struct queued *q = xmalloc(sizeof *q + r->len);
    q->next = NULL;
    q->src = src;
    q->r = *r;
    memcpy(q->bytes, r + 1, r->len);
    pthread_mutex_lock(&files.qmu);
    if (!files.writer)
        start_writer();
    files.writer = true;
    *files.tail = q;
    files.tail = &q->next;
    pthread_mutex_unlock(&files.qmu);
    atomic_fetch_add(&files.queued, 1);
    futex_wake(&files.queued, 1);
}

void omp_files_init(void)
{
    files.tail = &files.head;
    files.shared = dsm_alloc(sizeof *files.shared, 0);
    net_register(OP_FILE, on_file);
}

/* ---- other nodes: requests ---------------------------------------------------- */

/* Sends the request and waits until node 0 has carried it out (a write of
 * more than a megabyte as several). */
static void ask(enum file_op op, const FILE *f, const void *bytes, size_t len)
{
    size_t at = 0;
    do {
        uint32_t piece = len - at > (1u << 20) ? 1u << 20 : (uint32_t)(len - at);
        struct net_wait w;
        struct file_req r = { (uint64_t)(uintptr_t)&w, (uint64_t)(uintptr_t)f, op, piece };
        net_wait_init(&w, 1);
        net_send(0, OP_FILE, &r, sizeof r, (const char *)bytes + at, piece);
        net_wait(&w);
        at += piece;
    } while (at < len);
}

static int send_formatted(FILE *f, const char *fmt, va_list ap)
{
    char *s = NULL;
    REAL(vasprintf);
    int n = real_vasprintf(&s, fmt, ap);
    if (n < 0)
        return n;
    ask(FILE_WRITE, f, s, (size_t)n);
    free(s);
    return n;
}

void omp_files_refuse(const FILE *f, const char *fn)
{
    if (node0s(f))
        dsm_fatal("%s on a file that node 0 opened: other nodes may only write such a file (fprintf, fputs, "
                  "fputc, fwrite, fflush, fclose); open the file where it is read or positioned, or do that "
                  "on node 0", fn);
}

/* ---- the C library's functions, as the program calls them ------------------------------ */

#define OPENER(fn, params, args)                  \
    API FILE *fn params;                          \
    API FILE *fn params                           \
    {                                             \
        REAL(fn);                                 \
        FILE *f = real_##fn args;                 \
        opened(f);                                \
        return f;                                 \
    }

OPENER(fopen, (const char *path, const char *mode), (path, mode))
OPENER(fopen64, (const char *path, const char *mode), (path, mode))
OPENER(fdopen, (int fd, const char *mode), (fd, mode))
OPENER(popen, (const char *cmd, const char *mode), (cmd, mode))
OPENER(tmpfile, (void), ())
OPENER(tmpfile64, (void), ())

API int fclose(FILE *f);
API int fclose(FILE *f)
{
    if (node0s(f)) {
        ask(FILE_CLOSE, f, NULL, 0);
        drop(&files.node0, f);
        return 0;
    }
    drop(&files.open, f);
    REAL(fclose);
    return real_fclose(f);
}

API int pclose(FILE *f);
API int pclose(FILE *f)
{
    drop(&files.open, f);
    REAL(pclose);
    return real_pclose(f);
}

API int vfprintf(FILE *f, const char *fmt, va_list ap);
API int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    if (node0s(f))
        return send_formatted(f, fmt, ap);
    REAL(vfprintf);
    return real_vfprintf(f, fmt, ap);
}

API int fprintf(FILE *f, const char *fmt, ...);
API int fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

/* _FORTIFY_SOURCE's forms. */
API int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
API int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
    if (node0s(f))
        return send_formatted(f, fmt, ap);
    REAL(__vfprintf_chk);
    return real___vfprintf_chk(f, flag, fmt, ap);
}

API int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
API int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = __vfprintf_chk(f, flag, fmt, ap);
    va_end(ap);
    return n;
}

API size_t fwrite(const void *p, size_t size, size_t n, FILE *f);
API size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    if (node0s(f)) {
        if (size && n > SIZE_MAX / size)
            return 0;
        ask(FILE_WRITE, f, p, size * n);
        return n;
    }
    return omp_shared_fwrite(p, size, n, f);
}

API int fputs(const char *s, FILE *f);
API int fputs(const char *s, FILE *f)
{
    if (node0s(f)) {
        ask(FILE_WRITE, f, s, strlen(s));
        return 1;
    }
    return omp_shared_fputs(s, f);
}

static int put_char(int c, FILE *f)
{
    unsigned char b = (unsigned char)c;
    ask(FILE_WRITE, f, &b, 1);
    return b;
}

API int fputc(int c, FILE *f);
API int fputc(int c, FILE *f)
{
    if (node0s(f))
        return put_char(c, f);
    REAL(fputc);
    return real_fputc(c, f);
}

API int putc(int c, FILE *f);
API int putc(int c, FILE *f)
{
    if (node0s(f))
        return put_char(c, f);
    REAL(putc);
    return real_putc(c, f);
}

API int fflush(FILE *f);
API int fflush(FILE *f)
{
    if (f && node0s(f)) {
        ask(FILE_FLUSH, f, NULL, 0);
        return 0;
    }
    REAL(fflush);
    return real_fflush(f);
}

/* What other nodes may not do with node 0's FILE: read it, position it,
 * ask for its state.  At another node the call would work on unrelated
 * memory of its own; it stops the job instead, naming the call. */
#define REFUSED(ret, fn, params, args, f)         \
    API ret fn params;                            \
    API ret fn params                             \
    {                                             \
        omp_files_refuse(f, #fn);                 \
        REAL(fn);                                 \
        return real_##fn args;                    \
    }

#define REFUSED_VOID(fn, params, args, f)         \
    API void fn params;                           \
    API void fn params                            \
    {                                             \
        omp_files_refuse(f, #fn);                 \
        REAL(fn);                                 \
        real_##fn args;                           \
    }

REFUSED(char *, fgets, (char *s, int n, FILE *f), (s, n, f), f)
REFUSED(int, fgetc, (FILE *f), (f), f)
REFUSED(int, getc, (FILE *f), (f), f)
REFUSED(int, ungetc, (int c, FILE *f), (c, f), f)
REFUSED(int, feof, (FILE *f), (f), f)
REFUSED(int, ferror, (FILE *f), (f), f)
REFUSED(int, fileno, (FILE *f), (f), f)
REFUSED(int, fseek, (FILE *f, long off, int whence), (f, off, whence), f)
REFUSED(int, fseeko, (FILE *f, off_t off, int whence), (f, off, whence), f)
REFUSED(long, ftell, (FILE *f), (f), f)
REFUSED(off_t, ftello, (FILE *f), (f), f)
REFUSED(int, fgetpos, (FILE *f, fpos_t *pos), (f, pos), f)
REFUSED(int, fsetpos, (FILE *f, const fpos_t *pos), (f, pos), f)
REFUSED(int, fseeko64, (FILE *f, off64_t off, int whence), (f, off, whence), f)
REFUSED(off64_t, ftello64, (FILE *f), (f), f)
REFUSED(int, fgetpos64, (FILE *f, fpos64_t *pos), (f, pos), f)
REFUSED(int, fsetpos64, (FILE *f, const fpos64_t *pos), (f, pos), f)
REFUSED(int, setvbuf, (FILE *f, char *buf, int mode, size_t size), (f, buf, mode, size), f)
REFUSED_VOID(rewind, (FILE *f), (f), f)
REFUSED_VOID(clearerr, (FILE *f), (f), f)
REFUSED_VOID(setbuf, (FILE *f, char *buf), (f, buf), f)

API size_t fread(void *p, size_t size, size_t n, FILE *f);
API size_t fread(void *p, size_t size, size_t n, FILE *f)
{
    omp_files_refuse(f, "fread");
    return omp_shared_fread(p, size, n, f);
}

API int __isoc99_fscanf(FILE *f, const char *fmt, ...);
API int __isoc99_fscanf(FILE *f, const char *fmt, ...)
{
    omp_files_refuse(f, "fscanf");
    va_list ap;
    va_start(ap, fmt);
    REAL(__isoc99_vfscanf);
    int n = real___isoc99_vfscanf(f, fmt, ap);
    va_end(ap);
    return n;
}
