/*
 * for_lastprivate: after a loop with lastprivate(x), x holds the value from
 * the sequentially last iteration, whichever thread ran it, for static,
 * dynamic and guided schedules; the loop variable itself (lastprivate)
 * holds the value it would have after a sequential loop.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void)
{
    int x = -1, y = -1, z = -1, i;
    double d = 0;

#pragma omp parallel
    {
#pragma omp for schedule(static) lastprivate(x)
        for (int k = 0; k < N; k++)
            x = k * 3;
#pragma omp for schedule(dynamic, 7) lastprivate(y, d)
        for (int k = 0; k < N; k++) {
            y = k + 10;
            d = k * 0.5;
        }
#pragma omp for schedule(guided) lastprivate(z, i)
        for (i = 0; i < N; i += 3)
            z = i;
    }
    printf("static: x = %d\n", x);
    printf("dynamic: y = %d d = %.1f\n", y, d);
    printf("guided: z = %d i = %d\n", z, i);
    return 0;
}
