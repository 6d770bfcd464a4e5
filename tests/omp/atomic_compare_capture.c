/*
 * atomic_compare_capture: the OpenMP 5.1 atomic compare forms
 * keep a running max and min of a shared int exactly as the sequential
 * loop would, and atomic capture of x = x * 2 on a long doubles it
 * exactly once per update.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int mx = -1, mn = 1 << 30;
    long p = 1;
    long seen = 0;

#pragma omp parallel for schedule(dynamic, 3)
    for (int i = 0; i < 600; i++) {
        int v = (i * 7919) % 6007;
#pragma omp atomic compare
        if (v > mx) { mx = v; }
#pragma omp atomic compare
        if (v < mn) { mn = v; }
        if (i % 20 == 0) {
            long old;
#pragma omp atomic capture
            {
                old = p;
                p = p * 2;
            }
#pragma omp atomic
            seen |= old;
        }
    }
    printf("max = %d min = %d\n", mx, mn);
    printf("p = %ld, all powers captured: %s\n", p, seen == (1L << 30) - 1 ? "ok" : "WRONG");
    return 0;
}
