/*
 * wrap_maps.c: the program's mmap, munmap, msync and mremap, linked into
 * every program (libompdsm_main.a).  ompdsm-cc links with
 * -Wl,--wrap=mmap (and mmap64, munmap, msync, mremap), so the program's own
 * calls come here and go to maps.c with the caller's address; the C
 * library's and other libraries' calls stay the C library's.
 *
 * ompdsm-cc names __wrap_mmap with -Wl,--undefined, which pulls this
 * object out of the archive even into a program that never maps memory:
 * the linker applies --wrap to libompdsm's undefined references too.
 */
#include "omp_rt.h"

#include <sys/mman.h>

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *p, size_t len);
int __wrap_msync(void *p, size_t len, int flags);
void *__wrap_mremap(void *p, size_t old_len, size_t new_len, int flags, void *to);

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return omp_rt_mmap(addr, len, prot, flags, fd, off, __builtin_return_address(0));
}

/* off_t is 64 bits here: mmap64 is the same call. */
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return omp_rt_mmap(addr, len, prot, flags, fd, off, __builtin_return_address(0));
}

int __wrap_munmap(void *p, size_t len)
{
    return omp_rt_munmap(p, len);
}

int __wrap_msync(void *p, size_t len, int flags)
{
    return omp_rt_msync(p, len, flags);
}

/* mremap has a fifth argument only with MREMAP_FIXED, and only the kernel
 * reads it, only then (the C library's declaration is variadic: the
 * arguments travel in the same registers). */
void *__wrap_mremap(void *p, size_t old_len, size_t new_len, int flags, void *to)
{
    return omp_rt_mremap(p, old_len, new_len, flags, to, __builtin_return_address(0));
}
