/*
 * parallel_default_none: with default(none) every variable is listed
 * explicitly; shared, private and firstprivate variables behave as listed.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void)
{
    static long a[N];
    long total = 0;
    int base = 5, tmp = -1;

#pragma omp parallel default(none) shared(a, total) firstprivate(base) private(tmp)
    {
#pragma omp for
        for (int i = 0; i < N; i++) {
            tmp = i * base;
            a[i] = tmp;
        }
#pragma omp for reduction(+ : total)
        for (int i = 0; i < N; i++)
            total += a[i];
    }
    printf("total = %ld (expect %ld)\n", total, 5L * N * (N - 1) / 2);
    printf("tmp after = %d, base after = %d\n", tmp, base);
    return 0;
}
