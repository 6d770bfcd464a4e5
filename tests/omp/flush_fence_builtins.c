/*
 * flush_fence_builtins: `__sync_synchronize()` and C11's
 * `atomic_thread_fence(memory_order_seq_cst)` are the same full fence as
 * `#pragma omp flush`, and a program written for threads uses them the same
 * way: a producer writes data, fences, sets a flag; a consumer spins on the
 * flag with a fence, then reads the data.  Every thread but 0 consumes, once
 * per kind of fence; a consumer gives up after 20 seconds.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

int data[2][1000];
int flag[2];

static void fence(int kind)
{
    if (kind == 0)
        __sync_synchronize();
    else
        atomic_thread_fence(memory_order_seq_cst);
}

int main(void)
{
    long sums[2] = { 0, 0 };
    int late = 0;
#pragma omp parallel reduction(+ : late)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        for (int kind = 0; kind < 2; kind++) {
            if (me == 0) {
                for (int i = 0; i < 1000; i++)
                    data[kind][i] = i + kind;
                fence(kind);
                flag[kind] = 1;
                fence(kind);
            }
            if (me != 0 || n == 1) {
                double t0 = omp_get_wtime();
                int f = 0;
                while (!f && omp_get_wtime() - t0 < 20.0) {
                    fence(kind);
                    f = flag[kind];
                }
                fence(kind);
                long s = 0;
                for (int i = 0; i < 1000; i++)
                    s += data[kind][i];
                if (!f)
                    late++;
                if (me == n - 1)
                    sums[kind] = s;
            }
        }
    }
    printf("sums %ld %ld late %d\n", sums[0], sums[1], late);
    return 0;
}
