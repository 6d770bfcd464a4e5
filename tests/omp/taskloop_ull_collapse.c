/*
 * taskloop_ull_collapse: a taskloop over an unsigned long long variable
 * (the GOMP_taskloop_ull entry) and a collapse(2) taskloop with
 * lastprivate run each iteration once and return the last values.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    static int c[500], d[20][30];
    unsigned long long sum = 0;
    int li = -1, lj = -1;

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(16) shared(sum)
        for (unsigned long long i = 10000000000ULL; i < 10000000000ULL + 500; i++) {
            c[i - 10000000000ULL]++;
#pragma omp atomic
            sum += i;
        }
        int i, j;
#pragma omp taskloop collapse(2) lastprivate(i, j) num_tasks(5)
        for (i = 0; i < 20; i++)
            for (j = 0; j < 30; j++)
                d[i][j]++;
        li = i;
        lj = j;
    }
    int once = 1;
    for (int k = 0; k < 500; k++)
        once &= c[k] == 1;
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 30; j++)
            once &= d[i][j] == 1;
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("ull sum = %llu\n", sum);
    printf("lastprivate i = %d j = %d\n", li, lj);
    return 0;
}
