/*
 * reduction_udr: a user-defined reduction (declare reduction) on a struct
 * combines the per-thread partial results with the combiner and starts
 * each from the initializer.
 */
#include <omp.h>
#include <stdio.h>

struct stats { long n, sum, maxv; };

#pragma omp declare reduction(merge : struct stats : \
        omp_out.n += omp_in.n, omp_out.sum += omp_in.sum, \
        omp_out.maxv = omp_in.maxv > omp_out.maxv ? omp_in.maxv : omp_out.maxv) \
    initializer(omp_priv = (struct stats){0, 0, -1})

int main(void)
{
    struct stats s = {0, 0, -1};

#pragma omp parallel for reduction(merge : s)
    for (int i = 0; i < 2000; i++) {
        long v = (i * 131L) % 1009;
        s.n++;
        s.sum += v;
        if (v > s.maxv)
            s.maxv = v;
    }
    printf("n = %ld sum = %ld max = %ld\n", s.n, s.sum, s.maxv);
    return 0;
}
