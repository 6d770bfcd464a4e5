/*
 * wrap_alloc.c: more of the program's allocation functions for
 * AddressSanitizer builds, next to the malloc family of wrap_main.c and for
 * the same reason: ASan's runtime defines these functions itself and comes
 * first in the symbol search order, so ompdsm-cc wraps the program's calls
 * at link time (-Wl,--wrap=reallocarray ...) and they reach the shared heap
 * here, with the caller's address: reallocarray and pvalloc, and the C
 * library functions that allocate for the program (strdup, getline ...).
 * Without ASan, libompdsm defines them (omp_rt/heap.c, libc_alloc.c) and
 * this object is empty.
 *
 * The linker applies --wrap to libompdsm's undefined references too, so
 * every __wrap_ function must be linked even into a program that never
 * calls it: ompdsm-cc names one symbol of this object with -Wl,--undefined,
 * which pulls the whole object out of libompdsm_main.a.
 */
#include "omp_rt.h"

#ifdef __SANITIZE_ADDRESS__

void *__wrap_reallocarray(void *p, size_t n, size_t size);
void *__wrap_pvalloc(size_t size);

void *__wrap_reallocarray(void *p, size_t n, size_t size)
{
    return omp_rt_reallocarray(p, n, size, __builtin_return_address(0));
}

void *__wrap_pvalloc(size_t size)
{
    return omp_rt_pvalloc(size, __builtin_return_address(0));
}

/* C library functions that allocate for the program (libc_alloc.c). */
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t max);
int __wrap_vasprintf(char **out, const char *fmt, va_list ap);
int __wrap_asprintf(char **out, const char *fmt, ...);
ssize_t __wrap_getdelim(char **line, size_t *size, int delim, FILE *f);
ssize_t __wrap___getdelim(char **line, size_t *size, int delim, FILE *f);
ssize_t __wrap_getline(char **line, size_t *size, FILE *f);
char *__wrap_realpath(const char *path, char *resolved);
char *__wrap_canonicalize_file_name(const char *path);
char *__wrap_getcwd(char *buf, size_t size);
char *__wrap_get_current_dir_name(void);

char *__wrap_strdup(const char *s)
{
    return omp_rt_strdup(s, __builtin_return_address(0));
}

char *__wrap_strndup(const char *s, size_t max)
{
    return omp_rt_strndup(s, max, __builtin_return_address(0));
}

int __wrap_vasprintf(char **out, const char *fmt, va_list ap)
{
    return omp_rt_vasprintf(out, fmt, ap, __builtin_return_address(0));
}

/* Not instrumented: ASan would give its va_list a check for its "fake
 * stack", which reads an ASan variable that the link then copies into the
 * program's .bss -- inside the program's shared data, which is
 * inaccessible while the runtime maps it at start-up. */
__attribute__((no_sanitize_address)) int __wrap_asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = omp_rt_vasprintf(out, fmt, ap, __builtin_return_address(0));
    va_end(ap);
    return n;
}

ssize_t __wrap_getdelim(char **line, size_t *size, int delim, FILE *f)
{
    return omp_rt_getdelim(line, size, delim, f, __builtin_return_address(0));
}

ssize_t __wrap___getdelim(char **line, size_t *size, int delim, FILE *f)
{
    return omp_rt_getdelim(line, size, delim, f, __builtin_return_address(0));
}

ssize_t __wrap_getline(char **line, size_t *size, FILE *f)
{
    return omp_rt_getdelim(line, size, '\n', f, __builtin_return_address(0));
}

char *__wrap_realpath(const char *path, char *resolved)
{
    return omp_rt_realpath(path, resolved, __builtin_return_address(0));
}

char *__wrap_canonicalize_file_name(const char *path)
{
    return omp_rt_realpath(path, NULL, __builtin_return_address(0));
}

char *__wrap_getcwd(char *buf, size_t size)
{
    return omp_rt_getcwd(buf, size, __builtin_return_address(0));
}

char *__wrap_get_current_dir_name(void)
{
    return omp_rt_get_current_dir_name(__builtin_return_address(0));
}

#endif
