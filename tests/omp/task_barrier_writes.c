/*
 * task_barrier_writes: tasks made in a single region write a large array
 * (many pages, homed on several nodes), and every thread reads all of it
 * right after the single's barrier.  Threads that reached the barrier early
 * run tasks while they wait there; what those tasks write must be seen by
 * every thread after the barrier, also by threads that read the same pages
 * in the round before (their copies must be dropped).  Three rounds.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

#define N (96 * 1024)
#define BLOCKS 96

int a[N];

int main(void)
{
    int errors = 0;
#pragma omp parallel reduction(+ : errors)
    for (int round = 1; round <= 3; round++) {
#pragma omp single
        for (int b = 0; b < BLOCKS; b++) {
#pragma omp task firstprivate(b, round)
            {
                volatile double s = 0;
                for (int k = 0; k < 20000; k++)
                    s += k;
                for (int i = b * (N / BLOCKS); i < (b + 1) * (N / BLOCKS); i++)
                    a[i] = round * 1000 + b + i % 7;
            }
        }
        for (int i = 0; i < N; i++)
            if (a[i] != round * 1000 + i / (N / BLOCKS) + i % 7)
                errors++;
#pragma omp barrier
    }
    printf("errors %d\n", errors);
    return 0;
}
