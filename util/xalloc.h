/*
 * xalloc.h: allocation of the runtime's own data, where running out of
 * memory is fatal.  Every layer (net/, dsm/, migrate/, profiler/,
 * omp_rt/) uses these instead of checking each malloc by hand: one
 * message, through the one error path (dsm_fatal, naming the node and the
 * size asked for).  A size of 0 still gives a block, so NULL never comes
 * back.  xgrow is the one growable array: appending element by element
 * doubles the capacity.
 *
 * Not for the allocator itself (omp_rt/heap.c takes its private memory
 * from the C library directly) nor for the program's malloc wrappers
 * (omp_rt/wrap_alloc.c, libc_alloc.c), whose failures are the program's
 * to see (NULL and ENOMEM).  From the runtime's code these calls of
 * malloc get private memory, as the runtime's own calls always did.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Backs and maps the whole pages of [addr, addr + len), memory about to be
 * written, in one call instead of one page fault a page as it is written
 * (about 11 us a page on this machine's VMs, half that in one call).  Best
 * effort: nothing on kernels before 5.14. */
void xpopulate(void *addr, size_t len);
/* xrealloc for a buffer about to be filled, from byte `old` to `size`:
 * where that part is large (1 MiB or more), it is populated (xpopulate;
 * the diff batches of a 3-D FFT's transposes are tens of megabytes). */
void *xrealloc_filled(void *p, size_t old, size_t size);
char *xstrdup(const char *s);
void *xmemdup(const void *p, size_t len);

/* Makes room in an array of elements of `size` bytes, of capacity *cap, for
 * `need` of them: the capacity doubles (from 16) until they fit, so that
 * appending n elements one by one copies O(n) of them.  Returns the array,
 * perhaps moved.  Inline: it sits on paths taken at every written page. */
void *xgrow_to(void *v, size_t *cap, size_t need, size_t size);
static inline void *xgrow(void *v, size_t *cap, size_t need, size_t size)
{
    return need <= *cap ? v : xgrow_to(v, cap, need, size);
}

#endif
