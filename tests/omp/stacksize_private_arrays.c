/* env: OMP_STACKSIZE=32M */
/*
 * stacksize_private_arrays: OMP_STACKSIZE sizes the stacks of the threads
 * the runtime starts, as libgomp's: with OMP_STACKSIZE=32M every thread
 * but the master works on a 12 MB array of its own stack (more than the
 * usual 8 MB default; the master, whose stack the runtime does not make,
 * works on the heap).  The sums must be every thread's.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1536 * 1024)

static double fill_and_sum(double *a, int t)
{
    for (long i = 0; i < N; i++)
        a[i] = (double)(i % 1000) + t;
    double s = 0;
    for (long i = 0; i < N; i += 4096)
        s += a[i];
    return s;
}

static double on_stack(int t)
{
    double a[N];
    return fill_and_sum(a, t);
}

int main(void)
{
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        double s;
        if (t == 0) {
            double *a = malloc(N * sizeof *a);
            s = fill_and_sum(a, t);
            free(a);
        } else {
            s = on_stack(t);
        }
        bad += s != 189456.0 + 384.0 * t;
    }
    printf("12 MB private arrays on the threads' stacks: %s\n", bad ? "WRONG" : "ok");
    return 0;
}
