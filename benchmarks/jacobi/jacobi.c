/* jacobi.c: the Jacobi relaxation of benchmarks/laplace written the way a
 * textbook writes it, as a measure of how ompdsm runs programs that were not
 * shaped for a DSM.
 *
 * The differences from benchmarks/laplace are the point of this program:
 *   - the N x N grid and its copy come from malloc and are initialised by
 *     the master alone, sequentially, before any parallel region (so every
 *     page starts written by node 0);
 *   - each iteration is two `#pragma omp parallel for`, each with its own
 *     region start and end barrier;
 *   - the update runs over rows 1 .. N-2, the copy back over rows 0 .. N-1:
 *     the two loops' bounds differ by a row, so their static blocks do not
 *     coincide exactly.
 * The boundary rows and columns hold fixed values (1 on the top edge, 0
 * elsewhere).  The checksum is the sum of the grid after the last
 * iteration; it does not depend on the number of threads.
 *
 *   jacobi [N [ITERATIONS]]        (default 2048 100)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse(const char *arg, int lo, const char *what)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (*end != '\0' || v < lo || v > 1 << 20) {
        fprintf(stderr, "jacobi: bad %s '%s'\n", what, arg);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? parse(argv[1], 3, "grid size") : 2048;
    int iter = argc > 2 ? parse(argv[2], 1, "iteration count") : 100;
    double *u = malloc(sizeof(double) * n * n);
    double *unew = malloc(sizeof(double) * n * n);
    if (u == NULL || unew == NULL) {
        fprintf(stderr, "jacobi: out of memory for a %d x %d grid\n", n, n);
        return 2;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            u[i * n + j] = unew[i * n + j] = i == 0 ? 1.0 : 0.0;

    double t0 = now();
    for (int it = 0; it < iter; it++) {
#pragma omp parallel for schedule(runtime)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                unew[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                          u[i * n + j - 1] + u[i * n + j + 1]);
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                u[i * n + j] = unew[i * n + j];
    }
    double t = now() - t0;

    double sum = 0.0;
    for (int i = 0; i < n * n; i++)
        sum += u[i];
    int threads = 1;
#pragma omp parallel
#pragma omp master
    threads = omp_get_num_threads();
    printf("jacobi N=%d iter=%d threads=%d time=%.3f checksum=%.10e\n", n, iter, threads, t, sum);
    free(u);
    free(unew);
    return 0;
}
