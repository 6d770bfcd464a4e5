/* nas.h: what the NAS Parallel Benchmarks kernels of this directory share.
 *
 * The NPB specification defines its inputs through one pseudo-random
 * generator: x(k+1) = a * x(k) mod 2^46, the numbers handed out being
 * x * 2^-46 in (0, 1).  The products need 92 bits, so they are formed from
 * 23-bit halves in double precision, exactly as the specification says;
 * every kernel then sees the same inputs as the official ones and can be
 * checked against the published verification values.
 *
 * Each kernel prints one result line that the benchmark harness parses:
 *   <name> class=<C> iter=<n> threads=<t> time=<s> verified=<yes|no> checksum=<v>
 * and exits with status 1 when the verification failed.
 */
#ifndef NAS_H
#define NAS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>

#define NAS_T23 8388608.0               /* 2^23 */
#define NAS_R23 (1.0 / NAS_T23)
#define NAS_T46 (NAS_T23 * NAS_T23)
#define NAS_R46 (NAS_R23 * NAS_R23)

/* One step of the generator: x becomes a * x mod 2^46; returns x * 2^-46. */
static inline double randlc(double *x, double a)
{
    double a_hi = (double)(long)(NAS_R23 * a), a_lo = a - NAS_T23 * a_hi;
    double x_hi = (double)(long)(NAS_R23 * *x), x_lo = *x - NAS_T23 * x_hi;
    double cross = a_hi * x_lo + a_lo * x_hi;
    double cross_lo = cross - NAS_T23 * (double)(long)(NAS_R23 * cross);
    double full = NAS_T23 * cross_lo + a_lo * x_lo;
    *x = full - NAS_T46 * (double)(long)(NAS_R46 * full);
    return NAS_R46 * *x;
}

/* a^n mod 2^46, by squaring, with the generator's exact multiplication:
 * the multiplier that jumps the generator n steps ahead. */
static inline double nas_power46(double a, long n)
{
    double result = 1.0, square = a;
    for (; n != 0; n /= 2) {
        if (n % 2 != 0)
            randlc(&result, square);
        randlc(&square, square);
    }
    return result;
}

/* n steps of the generator, the numbers stored in y[0..n-1]. */
static inline void vranlc(long n, double *x, double a, double *y)
{
    for (long i = 0; i < n; i++)
        y[i] = randlc(x, a);
}

static inline double nas_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* malloc of n elements of `size` bytes; out of memory stops the program
 * with status 2 and a message naming the kernel. */
static inline void *nas_alloc(const char *kernel, size_t n, size_t size)
{
    void *p = malloc(n * size);
    if (p == NULL) {
        fprintf(stderr, "%s: out of memory (%zu bytes)\n", kernel, n * size);
        exit(2);
    }
    return p;
}

/* The class argv[1] names (S, W or A; A when there is none), as an index
 * into a kernel's table of classes, which lists them in that order; an
 * unknown class stops the program with status 2. */
static inline int nas_class(int argc, char **argv, const char *kernel)
{
    const char *want = argc > 1 ? argv[1] : "A";
    static const char names[] = "SWA";
    for (int i = 0; i < 3; i++)
        if (want[0] == names[i] && want[1] == '\0')
            return i;
    fprintf(stderr, "%s: unknown class '%s' (S, W or A)\n", kernel, want);
    exit(2);
}

/* The team size a parallel region gets (omp_get_max_threads() may differ
 * from it where a runtime caps the team). */
static inline int nas_threads(void)
{
    int n = 1;
#pragma omp parallel
#pragma omp master
    n = omp_get_num_threads();
    return n;
}

static inline int nas_report(const char *name, char cls, int iter, double seconds,
                             int verified, double checksum)
{
    printf("%s class=%c iter=%d threads=%d time=%.3f verified=%s checksum=%.12e\n",
           name, cls, iter, nas_threads(), seconds, verified ? "yes" : "no", checksum);
    return verified ? 0 : 1;
}

#endif
