/*
 * critical_named: critical regions with different names are independent
 * locks, each excluding its own region; regions of one name exclude each
 * other even at different places in the code; a region of one name may
 * be nested inside a region of another name.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long x = 0, y = 0, both = 0;

#pragma omp parallel
    {
        for (int k = 0; k < 100; k++) {
#pragma omp critical(xlock)
            x = x + k;
#pragma omp critical(ylock)
            y = y + 2 * k;
#pragma omp critical(xlock)
            {
                x = x + 1;
#pragma omp critical(bothlock)
                both = both + 1;
            }
        }
    }
    int n = omp_get_max_threads();
    printf("x per thread = %ld\n", x / n);
    printf("y per thread = %ld\n", y / n);
    printf("both per thread = %ld\n", both / n);
    printf("exact multiples: %s\n", x % n == 0 && y % n == 0 && both % n == 0 ? "ok" : "WRONG");
    return 0;
}
