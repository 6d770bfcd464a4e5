/* adi.c: an alternating-direction implicit (ADI) solver of the heat
 * equation on a 3-D grid, written the ordinary way, as a measure of how
 * ompdsm runs the shape of NPB SP and BT: many short parallel loops per
 * time step, each with its own region barriers, and line solves along
 * every dimension, the last one along the slowest.
 *
 * What makes it hard for a page-based DSM, and why it is written so:
 *   - the grids come from malloc and are initialised by the master alone,
 *     sequentially, before any parallel region (every page starts written
 *     by node 0);
 *   - one time step is five `#pragma omp parallel for schedule(runtime)`:
 *     the right-hand side, the tridiagonal solves along x, along y and
 *     along z, and the update.  Each is a parallel region of its own, so a
 *     step pays ten region barriers for a few milliseconds of work;
 *   - the x and y sweeps share out the k planes, the z sweep shares out the
 *     j planes instead and reads every line along k, the slowest dimension:
 *     each thread then touches a slice of every k plane, written by the
 *     others in the sweeps before, as a transpose does;
 *   - the coefficients vary in space (a diffusivity array the master fills),
 *     so each line solve computes its own elimination factors, as SP's do.
 *
 * The scheme: with r = dt * (kappa * laplacian(u) + f), solve
 *   (I - dt kappa dxx)(I - dt kappa dyy)(I - dt kappa dzz) du = r
 * one factor per sweep (Thomas algorithm on each grid line, in place in r),
 * then u += du.  Boundary values stay 0.  Every point is computed by the
 * same expressions whatever the thread count, so the checksum, the sum of
 * u after the last step (computed sequentially, outside the timed part),
 * is the same bit for bit for any number of threads or nodes.
 *
 *   adi [N [STEPS]]        (default 64 130: about 1 s with one thread here)
 *
 * Output, one line:
 *   adi N=<n> iter=<steps> threads=<t> time=<s> checksum=<sum of u>
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>

/* The time step, with the grid spacing as the unit of length: three times
 * what an explicit step could take (1/6 over the largest diffusivity, 1.5),
 * which the implicit line solves take in their stride. */
#define DT 0.5

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
    if (*end != '\0' || v < lo || v > 4096) {
        fprintf(stderr, "adi: bad %s '%s'\n", what, arg);
        exit(2);
    }
    return (int)v;
}

/* Solves (I - dt kappa d2) x = r in place on one grid line of m interior
 * points, element p at r[p * stride]; kap runs alongside with the same
 * stride.  The end points' neighbours are boundary values (0).  cp is m
 * doubles of scratch (the eliminated super-diagonal). */
static void thomas(double *r, const double *kap, long stride, int m, double *cp)
{
    double a = -DT * kap[0];
    double b = 1.0 - 2.0 * a;
    cp[0] = a / b;
    r[0] = r[0] / b;
    for (int p = 1; p < m; p++) {
        a = -DT * kap[p * stride];
        b = 1.0 - 2.0 * a;
        double piv = b - a * cp[p - 1];
        cp[p] = a / piv;
        r[p * stride] = (r[p * stride] - a * r[(p - 1) * stride]) / piv;
    }
    for (int p = m - 2; p >= 0; p--)
        r[p * stride] -= cp[p] * r[(p + 1) * stride];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? parse(argv[1], 3, "grid size") : 64;
    int steps = argc > 2 ? parse(argv[2], 1, "step count") : 130;
    long nn = (long)n * n, size = nn * n;
    int m = n - 2;                      /* interior points on a line */
    double *u = malloc(sizeof(double) * size);
    double *r = malloc(sizeof(double) * size);
    double *kap = malloc(sizeof(double) * size);
    double *f = malloc(sizeof(double) * size);
    if (u == NULL || r == NULL || kap == NULL || f == NULL) {
        fprintf(stderr, "adi: out of memory for a %d^3 grid\n", n);
        return 2;
    }
#define AT(k, j, i) ((long)(k) * nn + (long)(j) * n + (i))

    /* The master sets everything up: a smooth start, a diffusivity between
     * 0.5 and 1.5, a source in one corner and a sink in the other. */
    double h = 1.0 / (n - 1);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double x = i * h, y = j * h, z = k * h;
                int edge = i == 0 || j == 0 || k == 0 || i == n - 1 || j == n - 1 || k == n - 1;
                u[AT(k, j, i)] = edge ? 0.0 : sin(M_PI * x) * sin(M_PI * y) * sin(M_PI * z);
                r[AT(k, j, i)] = 0.0;
                kap[AT(k, j, i)] = 1.0 + 0.5 * cos(3.0 * x + 2.0 * y + z);
                f[AT(k, j, i)] = 0.01 * (exp(-20.0 * (x * x + y * y + z * z)) -
                                         exp(-20.0 * ((1 - x) * (1 - x) + (1 - y) * (1 - y) +
                                                      (1 - z) * (1 - z))));
            }

    double t0 = now();
    for (int s = 0; s < steps; s++) {
        /* Right-hand side: r = dt * (kappa * laplacian(u) + f), interior. */
#pragma omp parallel for schedule(runtime)
        for (int k = 1; k < n - 1; k++)
            for (int j = 1; j < n - 1; j++)
                for (int i = 1; i < n - 1; i++) {
                    long c = AT(k, j, i);
                    double lap = u[c - 1] + u[c + 1] + u[c - n] + u[c + n] + u[c - nn] +
                                 u[c + nn] - 6.0 * u[c];
                    r[c] = DT * (kap[c] * lap + f[c]);
                }
        /* Line solves along x: the lines of each k plane. */
#pragma omp parallel for schedule(runtime)
        for (int k = 1; k < n - 1; k++) {
            double cp[m];
            for (int j = 1; j < n - 1; j++)
                thomas(&r[AT(k, j, 1)], &kap[AT(k, j, 1)], 1, m, cp);
        }
        /* Along y: still the k planes. */
#pragma omp parallel for schedule(runtime)
        for (int k = 1; k < n - 1; k++) {
            double cp[m];
            for (int i = 1; i < n - 1; i++)
                thomas(&r[AT(k, 1, i)], &kap[AT(k, 1, i)], n, m, cp);
        }
        /* Along z, the slowest dimension: the j planes are shared out, and
         * every line crosses all k planes. */
#pragma omp parallel for schedule(runtime)
        for (int j = 1; j < n - 1; j++) {
            double cp[m];
            for (int i = 1; i < n - 1; i++)
                thomas(&r[AT(1, j, i)], &kap[AT(1, j, i)], nn, m, cp);
        }
        /* Update. */
#pragma omp parallel for schedule(runtime)
        for (int k = 1; k < n - 1; k++)
            for (int j = 1; j < n - 1; j++)
                for (int i = 1; i < n - 1; i++)
                    u[AT(k, j, i)] += r[AT(k, j, i)];
    }
    double t = now() - t0;

    double sum = 0.0;
    for (long c = 0; c < size; c++)
        sum += u[c];
    int threads = 1;
#pragma omp parallel
#pragma omp master
    threads = omp_get_num_threads();
    printf("adi N=%d iter=%d threads=%d time=%.3f checksum=%.12e\n", n, steps, threads, t, sum);
    free(u);
    free(r);
    free(kap);
    free(f);
    return 0;
}
