/*
 * wrap_alloc.c: more of the program's allocation functions for
 * AddressSanitizer builds, next to the malloc family of wrap_main.c and for
 * the same reason: ASan's runtime defines these functions itself and comes
 * first in the symbol search order, so ompdsm-cc wraps the program's calls
 * at link time (-Wl,--wrap=reallocarray ...) and they reach the shared heap
 * here, with the caller's address.  Without ASan, libompdsm defines them
 * (omp_rt/heap.c) and this object is empty.
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

#endif
