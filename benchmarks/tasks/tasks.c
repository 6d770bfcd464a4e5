/*
 * tasks: two task-parallel kernels, written as OpenMP programs usually are.
 *
 *   fib N CUT    fib(N) by recursive tasks (two per call, taskwait), each
 *                call below CUT computed sequentially; one thread starts
 *                the recursion in a single region.
 *   flat N       N tasks of uneven length (1 to 8 units of about 0.5 ms)
 *                made in a loop by one thread in a single region; each
 *                task writes its result to a shared array.
 *
 * Prints the kernel, its time in seconds and "ok" when the result is right
 * (fib against an iterative computation, flat against the sum of the
 * results computed again sequentially).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fib_seq(int n)
{
    return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static long fib_tasks(int n, int cut)
{
    if (n < cut)
        return fib_seq(n);
    long x, y;
#pragma omp task shared(x) firstprivate(n, cut)
    x = fib_tasks(n - 1, cut);
#pragma omp task shared(y) firstprivate(n, cut)
    y = fib_tasks(n - 2, cut);
#pragma omp taskwait
    return x + y;
}

static double unit_work(int i)
{
    double s = 0;
    int units = 1 + (int)((unsigned)i * 2654435761u % 8u);
    for (int k = 0; k < units * 400000; k++)
        s += (double)(k % 13) * 0.5;
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "fib") && strcmp(argv[1], "flat"))) {
        fprintf(stderr, "usage: tasks fib N CUT | tasks flat N\n");
        return 2;
    }
    int n = atoi(argv[2]);
    double t0 = omp_get_wtime(), t1;
    int ok;
    if (!strcmp(argv[1], "fib")) {
        int cut = argc > 3 ? atoi(argv[3]) : 20;
        long r = 0;
#pragma omp parallel
#pragma omp single
        r = fib_tasks(n, cut);
        t1 = omp_get_wtime();
        long a = 0, b = 1;
        for (int i = 0; i < n; i++) {
            long c = a + b;
            a = b;
            b = c;
        }
        ok = r == a;
    } else {
        double *res = malloc((size_t)n * sizeof *res);
#pragma omp parallel
#pragma omp single
        for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i) shared(res)
            res[i] = unit_work(i);
        }
        t1 = omp_get_wtime();
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= res[i] == unit_work(i);
        free(res);
    }
    printf("%s %d time %.4f s %s\n", argv[1], n, t1 - t0, ok ? "ok" : "WRONG");
    return !ok;
}
