/* env: OMP_SCHEDULE=profiled,warmup=0,alpha=0,hold=1 OMPDSM_MIGRATE=every */
/*
 * profiled_ordered_ull: an ordered schedule(runtime) loop with an unsigned
 * long long index under the profiled schedule (blocks recomputed nearly
 * every time) and home migration at every loop end: the ordered parts
 * still run in iteration order, each exactly once (every thread may be its
 * own process: the ordered part flushes stdout).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    unsigned long long sum = 0;
    fflush(stdout);
    for (int rep = 0; rep < 8; rep++) {
#pragma omp parallel for schedule(runtime) ordered reduction(+ : sum)
        for (unsigned long long i = 1000; i < 1090; i += 3) {
            unsigned long long v = i * i % 977;
            sum += v;
#pragma omp ordered
            {
                if (rep == 7) {
                    printf("%llu %llu\n", i, v);
                    fflush(stdout);
                }
            }
        }
    }
    printf("sum %llu\n", sum);
    return 0;
}
