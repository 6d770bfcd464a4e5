/*
 * team_grows: regions that ask for more threads than the nodes run
 * (num_threads, omp_set_num_threads), as libgomp gives them: the team has
 * the size asked for, and code that splits its work by that size, as
 * tutorials' SPMD loops do (`for (i = id; i < n; i += NT)`), counts every
 * item.  A stencil runs first with the default team (one thread per node
 * keeps hot pages), then in the larger team over the same arrays, then in
 * the default team again: no write of the larger team may be lost.  Then
 * an ordered loop, tasks and a critical section in a team grown again.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512
#define STEPS 6

static double u[N][N], v[N][N];

/* threads 0: the default team. */
static void sweep(int threads)
{
    if (!threads)
        threads = omp_get_max_threads();
#pragma omp parallel for num_threads(threads)
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
#pragma omp parallel for num_threads(threads)
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            u[i][j] = v[i][j] + 1e-3 * (i % 7);
}

static double checksum(void)
{
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += u[i][j] * (1 + (i + 3 * j) % 5);
    return s;
}

int main(void)
{
    int base = omp_get_max_threads(), big = 2 * base + 1;
    for (int i = 0; i < N; i++)
        u[i][0] = u[i][N - 1] = u[0][i] = 1.0 + i % 3;

    for (int s = 0; s < STEPS; s++)
        sweep(0);
    printf("default team: %.9e\n", checksum());

    /* The SPMD split by the team size asked for. */
    long *part = calloc((size_t)big, sizeof *part);
    int got = 0;
#pragma omp parallel num_threads(big)
    {
        int id = omp_get_thread_num();
        if (id == 0)
            got = omp_get_num_threads();
        for (long i = id; i < 100000; i += big)
            part[id] += i % 1000;
    }
    long total = 0;
    for (int t = 0; t < big; t++)
        total += part[t];
    printf("asked %d threads, team %s, total %ld\n", big, got == big ? "as asked" : "smaller", total);

    for (int s = 0; s < STEPS; s++)
        sweep(big);
    printf("larger team: %.9e\n", checksum());
    for (int s = 0; s < STEPS; s++)
        sweep(0);
    printf("default team again: %.9e\n", checksum());

    omp_set_num_threads(big + 2);
    printf("max threads %d\n", omp_get_max_threads() == big + 2);
    long seq = 0, crit = 0, tasks = 0;
#pragma omp parallel
    {
#pragma omp for ordered schedule(dynamic, 3)
        for (int i = 0; i < 200; i++) {
#pragma omp ordered
            seq = seq * 3 % 1000003 + i;
        }
#pragma omp critical
        crit += omp_get_thread_num() + 1;
#pragma omp single
        for (int k = 0; k < 100; k++) {
#pragma omp task firstprivate(k)
            {
#pragma omp atomic
                tasks += k;
            }
        }
    }
    printf("ordered %ld critical %ld tasks %ld\n", seq, crit, tasks);
    free(part);
    return 0;
}
