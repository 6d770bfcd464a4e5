/*
 * allocators: memory from the OpenMP allocators is the program's memory,
 * shared by the whole team: blocks the master allocates (omp_alloc,
 * omp_calloc, omp_aligned_alloc, omp_realloc, through the default and
 * predefined allocators and through allocators of omp_init_allocator) are
 * filled by every thread and read back by the master; a block a thread
 * allocates inside a region is read by another thread.  The traits: a
 * custom allocator's alignment holds, a pool_size with the null_fb
 * fallback refuses what does not fit and takes it again once freed, the
 * default_mem_fb fallback allocates from the default allocator instead;
 * an invalid trait gives omp_null_allocator.  The allocate clause on a
 * private variable.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

enum { N = 100000 };

static long fill_and_sum(double *a, long n)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        a[i] += (double)(i % 97);
    double s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    return (long)s;
}

int main(void)
{
    double *a = omp_alloc(N * sizeof *a, omp_default_mem_alloc);
    for (long i = 0; i < N; i++)
        a[i] = 1;
    printf("omp_alloc: %ld\n", fill_and_sum(a, N));
    double *z = omp_calloc(N, sizeof *z, omp_large_cap_mem_alloc);
    printf("omp_calloc: %ld\n", fill_and_sum(z, N));
    double *al = omp_aligned_alloc(256, N * sizeof *al, omp_high_bw_mem_alloc);
    for (long i = 0; i < N; i++)
        al[i] = 2;
    printf("omp_aligned_alloc: aligned %d, %ld\n", (uintptr_t)al % 256 == 0, fill_and_sum(al, N));
    a = omp_realloc(a, 2 * N * sizeof *a, omp_default_mem_alloc, omp_default_mem_alloc);
    for (long i = N; i < 2 * N; i++)
        a[i] = 3;
    printf("omp_realloc: %ld\n", fill_and_sum(a, 2 * N));

    omp_alloctrait_t page_traits[] = { { omp_atk_alignment, 4096 } };
    omp_allocator_handle_t paged = omp_init_allocator(omp_default_mem_space, 1, page_traits);
    double *p = omp_alloc(N * sizeof *p, paged);
    for (long i = 0; i < N; i++)
        p[i] = 0.5;
    printf("alignment trait: aligned %d, %ld\n", (uintptr_t)p % 4096 == 0, fill_and_sum(p, N));

    omp_alloctrait_t pool_traits[] = { { omp_atk_pool_size, 1 << 20 }, { omp_atk_fallback, omp_atv_null_fb } };
    omp_allocator_handle_t pool = omp_init_allocator(omp_default_mem_space, 2, pool_traits);
    void *big = omp_alloc(800000, pool), *more = omp_alloc(400000, pool);
    printf("pool_size: first %d, second refused %d", big != NULL, more == NULL);
    omp_free(big, pool);
    more = omp_alloc(400000, pool);
    printf(", after a free %d\n", more != NULL);
    omp_free(more, pool);

    omp_alloctrait_t fb_traits[] = { { omp_atk_pool_size, 1024 }, { omp_atk_fallback, omp_atv_default_mem_fb } };
    omp_allocator_handle_t fb = omp_init_allocator(omp_default_mem_space, 2, fb_traits);
    double *f = omp_alloc(N * sizeof *f, fb);
    for (long i = 0; i < N; i++)
        f[i] = 4;
    printf("default_mem_fb: %ld\n", f ? fill_and_sum(f, N) : -1L);

    omp_alloctrait_t bad[] = { { omp_atk_alignment, 3 } };
    printf("invalid trait: null allocator %d\n", omp_init_allocator(omp_default_mem_space, 1, bad) == omp_null_allocator);
    printf("default allocator: %d", omp_get_default_allocator() == omp_default_mem_alloc);
    omp_set_default_allocator(paged);
    void *d = omp_alloc(100, omp_null_allocator);
    printf(", set %d, used %d\n", omp_get_default_allocator() == paged, (uintptr_t)d % 4096 == 0);
    omp_free(d, omp_null_allocator);
    omp_set_default_allocator(omp_default_mem_alloc);

    /* Blocks allocated inside a region, read by the next thread. */
    int n = omp_get_max_threads(), wrong = 0;
    long **blocks = omp_alloc(n * sizeof *blocks, omp_default_mem_alloc);
#pragma omp parallel reduction(+ : wrong)
    {
        int me = omp_get_thread_num(), k = omp_get_num_threads();
        long *b = omp_alloc(5000 * sizeof *b, omp_thread_mem_alloc);
        for (int i = 0; i < 5000; i++)
            b[i] = me * 10000L + i;
        blocks[me] = b;
#pragma omp barrier
        int from = (me + 1) % k;
        for (int i = 0; i < 5000; i++)
            wrong += blocks[from][i] != from * 10000L + i;
#pragma omp barrier
        omp_free(b, omp_thread_mem_alloc);
    }
    printf("blocks of the threads: wrong %d\n", wrong);

    long x = 0, total = 0;
#pragma omp parallel private(x) allocate(omp_low_lat_mem_alloc : x) reduction(+ : total)
    {
        x = omp_get_thread_num() + 1;
        total += x;
    }
    printf("allocate clause: %d\n", total == (long)n * (n + 1) / 2);

    omp_free(a, omp_default_mem_alloc);
    omp_free(z, omp_large_cap_mem_alloc);
    omp_free(al, omp_high_bw_mem_alloc);
    omp_free(p, paged);
    omp_free(f, fb);
    omp_free(blocks, omp_default_mem_alloc);
    omp_destroy_allocator(paged);
    omp_destroy_allocator(pool);
    omp_destroy_allocator(fb);
    return 0;
}
