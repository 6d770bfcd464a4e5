/*
 * sections: each section of a sections construct runs exactly once, by
 * some thread of the team; all their writes are visible after the
 * construct's implicit barrier.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long r[5] = {0};
    int runs[5] = {0};

#pragma omp parallel
    {
#pragma omp sections
        {
#pragma omp section
            { r[0] = 11; runs[0]++; }
#pragma omp section
            { for (int i = 1; i <= 100; i++) r[1] += i; runs[1]++; }
#pragma omp section
            { r[2] = 1; for (int i = 1; i <= 15; i++) r[2] *= i; runs[2]++; }
#pragma omp section
            { r[3] = -7; runs[3]++; }
#pragma omp section
            { r[4] = 1L << 40; runs[4]++; }
        }
        /* implicit barrier: every section's results visible */
        long check = r[0] + r[1] + r[3];
        if (check != 11 + 5050 - 7)
            printf("WRONG: a thread saw %ld after the sections barrier\n", check);
    }
    for (int k = 0; k < 5; k++)
        printf("section %d ran %d time(s): %ld\n", k, runs[k], r[k]);
    return 0;
}
