/*
 * nested_rows: the usual shape of nested parallelism, a `parallel for`
 * over the rows of a grid whose body is a `parallel for` over the row's
 * columns (num_threads(INNER)), SWEEPS Jacobi-style sweeps between two
 * grids the master set up.  With nesting off (the default) the inner
 * loops run one thread each; with it on (OMP_MAX_ACTIVE_LEVELS=2) each
 * outer thread's node runs INNER threads for its rows.
 *
 *   nested_rows [N [SWEEPS [INNER]]]      (defaults 1024, 20, 2)
 *
 * Prints the time of the sweeps, the teams' sizes and a checksum, the same
 * whatever the threads.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, sweeps = argc > 2 ? atoi(argv[2]) : 20;
    int inner = argc > 3 ? atoi(argv[3]) : 2;
    if (n < 3 || sweeps < 1 || inner < 1) {
        fprintf(stderr, "usage: nested_rows [N>2 [SWEEPS>0 [INNER>0]]]\n");
        return 2;
    }
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
    if (!a || !b)
        return 1;
    for (long i = 0; i < (long)n * n; i++)
        a[i] = b[i] = (double)(i % 101);
    int outer_size = 1, inner_size = 1;
    double t0 = omp_get_wtime();
    for (int s = 0; s < sweeps; s++) {
        const double *from = s % 2 ? b : a;
        double *to = s % 2 ? a : b;
#pragma omp parallel for
        for (int i = 1; i < n - 1; i++) {
            if (i == 1)
                outer_size = omp_get_num_threads();
#pragma omp parallel for num_threads(inner)
            for (int j = 1; j < n - 1; j++) {
                if (i == 1 && j == 1)
                    inner_size = omp_get_num_threads();
                to[(long)i * n + j] = 0.25 * (from[(long)(i - 1) * n + j] + from[(long)(i + 1) * n + j] +
                                              from[(long)i * n + j - 1] + from[(long)i * n + j + 1]);
            }
        }
    }
    double t = omp_get_wtime() - t0, sum = 0;
    const double *last = sweeps % 2 ? b : a;
    for (long i = 0; i < (long)n * n; i++)
        sum += last[i] * (double)(i % 7 + 1);
    printf("nested_rows n=%d sweeps=%d outer=%d inner=%d time=%.3f checksum=%.9e\n", n, sweeps, outer_size,
           inner_size, t, sum);
    free(a);
    free(b);
    return 0;
}
