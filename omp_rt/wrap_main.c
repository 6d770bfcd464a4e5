/*
 * wrap_main.c: the piece of the runtime linked statically into every
 * program (libompdsm_main.a).  ompdsm-cc links with -Wl,--wrap=main, so the
 * C library's start-up calls __wrap_main, which hands the real main and the
 * start of the program's writable data to the runtime (which finds its end
 * in the program headers: past 2 GB of static data, -mcmodel=medium, this
 * small-model code could not name _end).  It must be a static object: only
 * the executable itself can name __real_main and its own __data_start.
 *
 * In AddressSanitizer builds it also holds what only the executable can
 * give ASan: its default options, and the program's malloc family.
 */
#include "omp_rt.h"

#include <stddef.h>

extern int __real_main(int argc, char **argv, char **envp);
extern char __data_start[];
extern int omp_rt_start(int argc, char **argv, char **envp, int (*real_main)(int, char **, char **),
                        char *data_start, char *data_end);

int __wrap_main(int argc, char **argv, char **envp);

int __wrap_main(int argc, char **argv, char **envp)
{
    return omp_rt_start(argc, argv, envp, __real_main, __data_start, NULL);
}

#ifdef __SANITIZE_ADDRESS__

#include <unistd.h>

/* ASan reads this before the program starts, then ASAN_OPTIONS (which
 * wins).  Both are GCC 12's defaults, said here so that they do not depend
 * on the version:
 *   allow_user_segv_handler=1        the DSM installs its SIGSEGV handler
 *                                    (and checks that it did, dsm/fault.c);
 *   detect_stack_use_after_return=0  no private "fake stack": local
 *                                    variables of the runtime stay on the
 *                                    stack they are declared on (ompdsm-cc
 *                                    compiles programs without fake stacks
 *                                    anyway, for main()'s shared locals). */
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
    return "allow_user_segv_handler=1:detect_stack_use_after_return=0";
}

/* LeakSanitizer checks node 0 when the program exits.  PMIx (nodes started
 * by mpirun) keeps a few strings from PMIx_Init after PMIx_Finalize: not
 * the program's leaks, and they would turn every job's status into 1. */
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

/* The program's malloc family.  ASan's runtime is loaded before every other
 * library and defines malloc, free and the rest itself, so libompdsm's
 * malloc family (omp_rt/heap.c), which normally stands in front of the C
 * library's, is never called.  ompdsm-cc links with -Wl,--wrap=malloc (and
 * free, calloc ...) instead: the program's own calls come here and go to
 * the heap's entry points with the caller's address, as heap.c's malloc
 * does in other builds; calls from libraries (the C library, UCX, the
 * runtime) reach ASan's allocator and are checked by it.
 *
 * What changes for the program: a C library function that reallocates or
 * frees a block the program allocated hands a shared-heap block to ASan,
 * which stops the program with a "bad-free" report (not getline and
 * getdelim: libc_alloc.c grows their buffers in the shared heap).
 *
 * They live in this object, which every program links, rather than in one
 * of their own: the linker applies --wrap to libompdsm's undefined
 * references too, and would fail on a program that never calls malloc. */
void *__wrap_malloc(size_t size);
void __wrap_free(void *p);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
int __wrap_posix_memalign(void **out, size_t align, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
void *__wrap_memalign(size_t align, size_t size);
void *__wrap_valloc(size_t size);
size_t __wrap_malloc_usable_size(void *p);

void *__wrap_malloc(size_t size)
{
    return omp_rt_malloc(size, __builtin_return_address(0));
}

void __wrap_free(void *p)
{
    omp_rt_free(p);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return omp_rt_calloc(n, size, __builtin_return_address(0));
}

void *__wrap_realloc(void *p, size_t size)
{
    return omp_rt_realloc(p, size, __builtin_return_address(0));
}

int __wrap_posix_memalign(void **out, size_t align, size_t size)
{
    return omp_rt_posix_memalign(out, align, size, __builtin_return_address(0));
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    return omp_rt_memalign(align, size, __builtin_return_address(0));
}

void *__wrap_memalign(size_t align, size_t size)
{
    return omp_rt_memalign(align, size, __builtin_return_address(0));
}

void *__wrap_valloc(size_t size)
{
    return omp_rt_memalign((size_t)sysconf(_SC_PAGESIZE), size, __builtin_return_address(0));
}

size_t __wrap_malloc_usable_size(void *p)
{
    return omp_rt_usable_size(p);
}

#endif
