/*
 * epcc.c: overheads of OpenMP constructs, in the manner of the EPCC
 * microbenchmarks: each construct is run REPS times around a short delay,
 * and its overhead is the time per repetition minus the time of the same
 * delay run sequentially.  Prints "construct microseconds" lines.
 *
 * The same source is built with libgomp (gcc -fopenmp) and with ompdsm
 * (ompdsm-cc); benchmarks/epcc/run.sh puts them side by side.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define DELAY_ITERS 200

static int reps = 200;

/* The delay keeps its work in a local, so that no construct is charged for
 * writes to shared memory it did not ask for. */
static void delay(void)
{
    volatile double a = 0;
    for (int i = 0; i < DELAY_ITERS; i++)
        a += i * 0.5;
}

static double per_rep(double t0)
{
    return (omp_get_wtime() - t0) / reps * 1e6;
}

static double reference(void)
{
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; r++)
        delay();
    return per_rep(t0);
}

static double parallel(void)
{
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; r++) {
#pragma omp parallel
        delay();
    }
    return per_rep(t0);
}

static double barrier(void)
{
    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
        delay();
#pragma omp barrier
    }
    return per_rep(t0);
}

static double single(void)
{
    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
#pragma omp single
        delay();
    }
    return per_rep(t0);
}

static double dynamic_for(void)
{
    int n = omp_get_max_threads();
    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
#pragma omp for schedule(dynamic)
        for (int i = 0; i < n; i++)
            delay();
    }
    return per_rep(t0);
}

static double reduction(void)
{
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; r++) {
        long s = 0;
#pragma omp parallel reduction(+ : s)
        {
            delay();
            s += 1;
        }
        if (s != omp_get_max_threads())
            printf("reduction wrong: %ld\n", s);
    }
    return per_rep(t0);
}

static double critical(void)
{
    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < reps / omp_get_num_threads(); r++) {
#pragma omp critical
        delay();
    }
    return per_rep(t0);
}

static double lock(void)
{
    omp_lock_t l;
    omp_init_lock(&l);
    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < reps / omp_get_num_threads(); r++) {
        omp_set_lock(&l);
        delay();
        omp_unset_lock(&l);
    }
    double t = per_rep(t0);
    omp_destroy_lock(&l);
    return t;
}

static double atomic(void)
{
    long x = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < reps / omp_get_num_threads(); r++) {
        delay();
#pragma omp atomic
        x += 1;
    }
    if (x != (long)(reps / omp_get_max_threads()) * omp_get_max_threads())
        printf("atomic wrong: %ld\n", x);
    return per_rep(t0);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        reps = atoi(argv[1]);
    double ref = reference();
    struct {
        const char *name;
        double (*run)(void);
    } tests[] = {
        { "parallel", parallel }, { "barrier", barrier }, { "single", single }, { "for_dynamic", dynamic_for },
        { "reduction", reduction }, { "critical", critical }, { "lock", lock }, { "atomic", atomic },
    };
    printf("threads %d\n", omp_get_max_threads());
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        double t = tests[i].run();
        printf("%s %.2f\n", tests[i].name, t > ref ? t - ref : 0.0);
    }
    return 0;
}
