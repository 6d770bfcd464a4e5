/*
 * libc_alloc.c: memory that C library functions allocate for the program
 * (strdup, strndup, asprintf, vasprintf, getline, getdelim and __getdelim
 * (getline when optimised), realpath and canonicalize_file_name with no
 * buffer, getcwd with no buffer, get_current_dir_name) is shared, like the
 * memory of the program's own malloc calls.
 *
 * Why this file exists: the heap tells the program's allocations from
 * everyone else's by the address malloc returns to (heap.c).  glibc's
 * strdup calls malloc through the PLT, so our malloc does see the call, but
 * from inside the C library: the string came from the node's private heap,
 * and another node that followed the pointer read unrelated memory of its
 * own at that address, without any error.  Deciding by thread instead
 * ("program threads get shared memory") would also hand shared pages to the
 * C library's internal buffers and to the runtime and UCX whenever they run
 * on the program's thread (a page fault, a barrier), so the decision stays
 * with the caller, one level up: these functions are interposed too.
 * Called from the program's code, each lets the C library do the work in
 * private memory and returns a copy in the shared heap (strdup and strndup
 * allocate shared memory directly).  Called by anyone else (the runtime,
 * UCX, the C library itself) they are the C library's.
 *
 * getline/getdelim read the line into a private buffer and copy it into
 * the program's buffer, grown in the shared heap: the C library never
 * reallocates a shared block (in AddressSanitizer builds it would reach
 * ASan's allocator, which does not know it).
 *
 * What stays private (README, "OpenMP programs"): other C library results,
 * among them open_memstream's buffer, which the C library grows at every
 * write, and the _FORTIFY_SOURCE variants (__asprintf_chk ...).
 *
 * As for the malloc family, AddressSanitizer builds reach these entry
 * points through the program's link-time wrappers (wrap_alloc.c), since
 * ASan's own versions of the functions come first.
 */
#include "omp_rt.h"

#include "../util/log.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

void *omp_libc_fn(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        dsm_fatal("cannot find the C library's %s", name);
    return f;
}

/* A copy in the program's heap of the len bytes at priv, in a block of
 * size bytes; frees priv, keeps errno.  NULL stays NULL. */
static void *shared_copy(void *priv, size_t len, size_t size, const void *caller)
{
    if (!priv)
        return NULL;
    void *s = omp_rt_malloc(size, caller);
    if (s)
        memcpy(s, priv, len);
    int e = errno;
    free(priv);
    errno = e;
    return s;
}

static char *shared_string(char *priv, const void *caller)
{
    size_t n = priv ? strlen(priv) + 1 : 0;
    return shared_copy(priv, n, n, caller);
}

API char *omp_rt_strdup(const char *s, const void *caller)
{
    size_t n = strlen(s) + 1;
    char *d = omp_rt_malloc(n, caller);
    return d ? memcpy(d, s, n) : NULL;
}

API char *omp_rt_strndup(const char *s, size_t max, const void *caller)
{
    size_t n = strnlen(s, max);
    char *d = omp_rt_malloc(n + 1, caller);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

API int omp_rt_vasprintf(char **out, const char *fmt, va_list ap, const void *caller)
{
    REAL(vasprintf);
    int n = real_vasprintf(out, fmt, ap);
    if (n < 0 || !omp_heap_for_program(caller))
        return n;
    /* The text may hold NUL bytes (%c of 0): copy all n + 1. */
    *out = shared_copy(*out, (size_t)n + 1, (size_t)n + 1, caller);
    return *out ? n : -1;
}

/* The program's buffer *line (of *size bytes, or NULL) receives the line;
 * it is grown in the shared heap. */
API ssize_t omp_rt_getdelim(char **line, size_t *size, int delim, FILE *f, const void *caller)
{
    REAL(getdelim);
    omp_files_refuse(f, delim == '\n' ? "getline" : "getdelim");
    if (!omp_heap_for_program(caller) || !line || !size)
        return real_getdelim(line, size, delim, f);
    char *priv = NULL;
    size_t cap = 0;
    ssize_t n = real_getdelim(&priv, &cap, delim, f);
    int e = errno;
    if (n >= 0 && (!*line || *size < (size_t)n + 1)) {
        size_t want = (size_t)n + 1 > 2 * *size ? (size_t)n + 1 : 2 * *size;
        char *grown = omp_rt_realloc(*line, want < 120 ? 120 : want, caller);
        if (!grown) {
            n = -1;
            e = ENOMEM;
        } else {
            *line = grown;
            *size = want < 120 ? 120 : want;
        }
    }
    if (n >= 0)
        memcpy(*line, priv, (size_t)n + 1);
    free(priv);
    errno = e;
    return n;
}

API char *omp_rt_realpath(const char *path, char *resolved, const void *caller)
{
    REAL(realpath);
    if (resolved || !omp_heap_for_program(caller))
        return real_realpath(path, resolved);
    return shared_string(real_realpath(path, NULL), caller);
}

API char *omp_rt_getcwd(char *buf, size_t size, const void *caller)
{
    if (buf)
        return omp_sys_getcwd(buf, size);
    REAL(getcwd);
    if (!omp_heap_for_program(caller))
        return real_getcwd(buf, size);
    char *priv = real_getcwd(NULL, size);
    size_t n = priv ? strlen(priv) + 1 : 0;
    return shared_copy(priv, n, size > n ? size : n, caller);
}

API char *omp_rt_get_current_dir_name(const void *caller)
{
    REAL(get_current_dir_name);
    char *priv = real_get_current_dir_name();
    return omp_heap_for_program(caller) ? shared_string(priv, caller) : priv;
}

/* ---- the interposed functions ----------------------------------------------- */

/* With AddressSanitizer the program's calls are wrapped at link time
 * instead (wrap_alloc.c): ASan's versions of these come first. */
#ifndef __SANITIZE_ADDRESS__

API char *strdup(const char *s)
{
    return omp_rt_strdup(s, __builtin_return_address(0));
}

API char *strndup(const char *s, size_t max)
{
    return omp_rt_strndup(s, max, __builtin_return_address(0));
}

API int vasprintf(char **out, const char *fmt, va_list ap)
{
    return omp_rt_vasprintf(out, fmt, ap, __builtin_return_address(0));
}

API int asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = omp_rt_vasprintf(out, fmt, ap, __builtin_return_address(0));
    va_end(ap);
    return n;
}

API ssize_t getdelim(char **line, size_t *size, int delim, FILE *f)
{
    return omp_rt_getdelim(line, size, delim, f, __builtin_return_address(0));
}

/* glibc's stdio.h turns getline into a call of __getdelim when optimising. */
API ssize_t __getdelim(char **line, size_t *size, int delim, FILE *f)
{
    return omp_rt_getdelim(line, size, delim, f, __builtin_return_address(0));
}

API ssize_t getline(char **line, size_t *size, FILE *f)
{
    return omp_rt_getdelim(line, size, '\n', f, __builtin_return_address(0));
}

API char *realpath(const char *path, char *resolved)
{
    return omp_rt_realpath(path, resolved, __builtin_return_address(0));
}

API char *canonicalize_file_name(const char *path)
{
    return omp_rt_realpath(path, NULL, __builtin_return_address(0));
}

API char *getcwd(char *buf, size_t size)
{
    return omp_rt_getcwd(buf, size, __builtin_return_address(0));
}

API char *get_current_dir_name(void)
{
    return omp_rt_get_current_dir_name(__builtin_return_address(0));
}

#endif
