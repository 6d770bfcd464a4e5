/*
 * atomics_io: what a program pays for atomics by memory order, for a spin
 * lock made of atomics against an omp lock, and for writing and reading a
 * shared array with stdio.  All threads (nodes) take part; each figure is
 * per operation of one thread, or the bytes per second of the master.
 *
 *   atomics_io [OPS] [MB]      (default 20000 operations per thread, 64 MB)
 *
 * Prints "key value" lines: relaxed_add_us (omp atomic), seq_cst_add_us
 * (C11's atomic_fetch_add), spin_lock_us and omp_lock_us (one acquire, a
 * guarded addition and a release), fwrite_mb_s and fread_mb_s (a tmpfile
 * in the master), and "ok" when every count and the data read back are
 * right.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static long relaxed;
static atomic_long seq;
static volatile int spin;
static long guarded_spin, guarded_lock;

/* Each measure: every thread runs ops operations; seconds per operation. */
static double relaxed_adds(long ops)
{
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ops * omp_get_max_threads(); i++) {
#pragma omp atomic
        relaxed++;
    }
    return (omp_get_wtime() - t0) / (double)ops;
}

static double seq_cst_adds(long ops)
{
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ops * omp_get_max_threads(); i++)
        atomic_fetch_add(&seq, 1);
    return (omp_get_wtime() - t0) / (double)ops;
}

static double spin_locked(long ops)
{
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ops * omp_get_max_threads(); i++) {
        while (__sync_lock_test_and_set(&spin, 1))
            ;
        guarded_spin++;
        __sync_lock_release(&spin);
    }
    return (omp_get_wtime() - t0) / (double)ops;
}

static double omp_locked(long ops, omp_lock_t *lock)
{
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < ops * omp_get_max_threads(); i++) {
        omp_set_lock(lock);
        guarded_lock++;
        omp_unset_lock(lock);
    }
    return (omp_get_wtime() - t0) / (double)ops;
}

int main(int argc, char **argv)
{
    long ops = argc > 1 ? atol(argv[1]) : 20000;
    size_t mb = argc > 2 ? (size_t)atol(argv[2]) : 64;
    int threads = omp_get_max_threads();
    omp_lock_t lock;
    omp_init_lock(&lock);
    double relaxed_s = relaxed_adds(ops), seq_s = seq_cst_adds(ops), spin_s = spin_locked(ops),
           lock_s = omp_locked(ops, &lock);

    size_t n = mb * (1 << 20) / sizeof(double);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)i;
        b[i] = 0;
    }
    FILE *f = tmpfile();
    double t0 = omp_get_wtime();
    size_t w = fwrite(a, sizeof *a, n, f);
    fflush(f);
    double t1 = omp_get_wtime();
    rewind(f);
    size_t r = fread(b, sizeof *b, n, f);
    double t2 = omp_get_wtime();
    fclose(f);
    long bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (size_t i = 0; i < n; i++)
        bad += b[i] != (double)i;

    long want = ops * threads;
    bool ok = relaxed == want && seq == want && guarded_spin == want && guarded_lock == want && w == n &&
              r == n && !bad;
    printf("relaxed_add_us %.2f\nseq_cst_add_us %.2f\nspin_lock_us %.2f\nomp_lock_us %.2f\n", relaxed_s * 1e6,
           seq_s * 1e6, spin_s * 1e6, lock_s * 1e6);
    printf("fwrite_mb_s %.0f\nfread_mb_s %.0f\n%s\n", (double)mb / (t1 - t0), (double)mb / (t2 - t1),
           ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
