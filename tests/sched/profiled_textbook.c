/*
 * profiled_textbook: the Jacobi stencil as textbooks write it, under
 * schedule(runtime).  The master initialises the grid; each step is two
 * `parallel for`, each its own region: the update over rows 1..N-2 and the
 * copy over rows 0..N-1, whose bounds differ by a row.
 *
 *   profiled_textbook [N [STEPS]]        (default 1024 60)
 *
 * Prints, for the first and the last step, one line per thread and loop,
 *     first|last T update FIRST LAST
 *     first|last T copy FIRST LAST
 * (the first and last row the thread ran, -1 -1 for none), and for the
 * copy of the step before the last
 *     prev T copy FIRST LAST
 * (the blocks may change between the last step's update and its copy:
 * the update then runs on the blocks of the copy before it), then
 * "checksum C", which must not depend on the schedule.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 8

static long rows[2][MAX_THREADS][2], first_step[2][MAX_THREADS][2], prev_copy[MAX_THREADS][2];

static void note(int loop, int i)
{
    int t = omp_get_thread_num();
    if (t >= MAX_THREADS)
        return;
    if (rows[loop][t][0] < 0)
        rows[loop][t][0] = i;
    rows[loop][t][1] = i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, steps = argc > 2 ? atoi(argv[2]) : 60;
    if (n < 3 || steps < 1) {
        fprintf(stderr, "usage: profiled_textbook [N >= 3 [STEPS >= 1]]\n");
        return 2;
    }
    double *u = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double *v = malloc(sizeof(double) * (size_t)n * (size_t)n);
    if (!u || !v)
        return 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            u[(size_t)i * n + j] = v[(size_t)i * n + j] = i == 0 ? 1.0 : (double)((i * 7 + j * 3) % 11) / 11;
    for (int s = 0; s < steps; s++) {
        if (s == 1)
            memcpy(first_step, rows, sizeof rows);
        memcpy(prev_copy, rows[1], sizeof prev_copy);
        for (int l = 0; l < 2; l++)
            for (int t = 0; t < MAX_THREADS; t++)
                rows[l][t][0] = rows[l][t][1] = -1;
#pragma omp parallel for schedule(runtime)
        for (int i = 1; i < n - 1; i++) {
            note(0, i);
            for (int j = 1; j < n - 1; j++)
                v[(size_t)i * n + j] = 0.25 * (u[(size_t)(i - 1) * n + j] + u[(size_t)(i + 1) * n + j] +
                                               u[(size_t)i * n + j - 1] + u[(size_t)i * n + j + 1]);
        }
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < n; i++) {
            note(1, i);
            for (int j = 0; j < n; j++)
                u[(size_t)i * n + j] = v[(size_t)i * n + j];
        }
    }
    int threads = 1;
#pragma omp parallel
#pragma omp master
    threads = omp_get_num_threads();
    if (steps == 1)
        memcpy(first_step, rows, sizeof rows);
    for (int t = 0; t < threads && t < MAX_THREADS; t++) {
        printf("first %d update %ld %ld\n", t, first_step[0][t][0], first_step[0][t][1]);
        printf("first %d copy %ld %ld\n", t, first_step[1][t][0], first_step[1][t][1]);
        printf("last %d update %ld %ld\n", t, rows[0][t][0], rows[0][t][1]);
        printf("last %d copy %ld %ld\n", t, rows[1][t][0], rows[1][t][1]);
        printf("prev %d copy %ld %ld\n", t, prev_copy[t][0], prev_copy[t][1]);
    }
    double sum = 0;
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        sum += u[k] * (double)(k % 13 + 1);
    printf("checksum %.10e\n", sum);
    free(u);
    free(v);
    return 0;
}
