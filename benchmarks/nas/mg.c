/* mg.c: the NAS Parallel Benchmarks kernel MG, written as ordinary OpenMP C.
 *
 * What it computes: four iterations of a V-cycle multigrid solver for the
 * 3-D Poisson problem  del^2 u = v  on an N x N x N grid with periodic
 * boundaries.  v is zero except at twenty points: +1 at the ten largest and
 * -1 at the ten smallest of N^3 numbers drawn from the NPB generator.  Each
 * iteration is  r = v - A u;  u = u + M r,  where M is one V-cycle: the
 * residual is restricted (P) down to a 2 x 2 x 2 grid, smoothed (S) there,
 * then on the way up prolongated (Q), its residual recomputed and smoothed
 * at every level.  A, P, Q and S are the 27-point operators of the
 * specification, given by their four coefficients (centre, face, edge,
 * corner).
 *
 * Which specification: D. Bailey et al., "The NAS Parallel Benchmarks",
 * RNR-94-007 (1994), kernel MG, with the problem sizes of NPB 3: class S is
 * 32^3, W is 128^3 and A is 256^3, four iterations each, and the smoother
 * coefficients of classes S to A.  The grid hierarchy is the usual one:
 * level k holds a (2^k + 2)^3 array (the grid plus one ghost layer on every
 * side that holds the periodic copy of the opposite face), from level 1
 * (2 x 2 x 2 points) to the finest level.  u and r exist at every level, v
 * at the finest only.
 *
 * How it verifies: the L2 norm of the residual after the last iteration,
 * sqrt(sum r^2 / N^3), must be within a relative 1e-8 of the official value
 * for the class (0.5307707005734e-04, 0.6467329375339e-05,
 * 0.2433365309069e-05).  As NPB does, one untimed iteration warms up first,
 * then u and v are set up again; the timed part is the initial residual and
 * the iterations with their final norm.
 *
 * Parallelism is the ordinary kind: a `#pragma omp parallel for` on the
 * outer (i3) loop of every grid operation, `schedule(runtime)` on those of
 * the V-cycle, a reduction for the norm.  The periodic boundary copies are
 * small loops without a schedule clause; the right-hand side is generated
 * sequentially, as its random stream is, before the timed part.
 *
 *   mg [S|W|A]                  (default A)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nas.h"

enum { MAX_LEVEL = 8, N_EXTREMES = 10 };

struct mg_class {
    char name;
    int levels;                 /* the finest grid is 2^levels per side */
    int iterations;
    double verify_norm;
};

static const struct mg_class mg_classes[] = {
    { 'S', 5, 4, 0.5307707005734e-04 },
    { 'W', 7, 4, 0.6467329375339e-05 },
    { 'A', 8, 4, 0.2433365309069e-05 },
};

/* The operator A and the smoother S of classes S to A, as coefficients of
 * the centre, the 6 face, 12 edge and 8 corner neighbours.  A's face and
 * S's corner coefficients are zero, and are left out of the loops. */
static const double a0 = -8.0 / 3.0, a2 = 1.0 / 6.0, a3 = 1.0 / 12.0;
static const double c0 = -3.0 / 8.0, c1 = 1.0 / 32.0, c2 = -1.0 / 64.0;

/* The hierarchy: level k (1 .. lt) is an m[k]^3 array of doubles,
 * m[k] = 2^k + 2, handed to the functions below as double[m][m][m]. */
static int lt;
static int m[MAX_LEVEL + 1];
static void *u[MAX_LEVEL + 1], *r[MAX_LEVEL + 1], *v;

/* Copies each face of the interior into the opposite ghost layer, one
 * dimension after the other, so that edges and corners are right too. */
static void comm3(int n, double g[n][n][n])
{
#pragma omp parallel for
    for (int i3 = 1; i3 < n - 1; i3++)
        for (int i2 = 1; i2 < n - 1; i2++) {
            g[i3][i2][0] = g[i3][i2][n - 2];
            g[i3][i2][n - 1] = g[i3][i2][1];
        }
#pragma omp parallel for
    for (int i3 = 1; i3 < n - 1; i3++)
        for (int i1 = 0; i1 < n; i1++) {
            g[i3][0][i1] = g[i3][n - 2][i1];
            g[i3][n - 1][i1] = g[i3][1][i1];
        }
#pragma omp parallel for
    for (int i2 = 0; i2 < n; i2++)
        for (int i1 = 0; i1 < n; i1++) {
            g[0][i2][i1] = g[n - 2][i2][i1];
            g[n - 1][i2][i1] = g[1][i2][i1];
        }
}

static void zero3(int n, double g[n][n][n])
{
#pragma omp parallel for schedule(runtime)
    for (int i3 = 0; i3 < n; i3++)
        for (int i2 = 0; i2 < n; i2++)
            for (int i1 = 0; i1 < n; i1++)
                g[i3][i2][i1] = 0.0;
}

/* r = v - A u.  Called with v == r on the coarse levels: each point of r
 * depends on v at the same point only. */
static void resid(int n, double uu[n][n][n], double vv[n][n][n], double rr[n][n][n])
{
#pragma omp parallel for schedule(runtime)
    for (int i3 = 1; i3 < n - 1; i3++)
        for (int i2 = 1; i2 < n - 1; i2++) {
            double face[n], edge[n];    /* sums over a row of the i2/i3 neighbours */
            for (int i1 = 0; i1 < n; i1++) {
                face[i1] = uu[i3][i2 - 1][i1] + uu[i3][i2 + 1][i1]
                         + uu[i3 - 1][i2][i1] + uu[i3 + 1][i2][i1];
                edge[i1] = uu[i3 - 1][i2 - 1][i1] + uu[i3 - 1][i2 + 1][i1]
                         + uu[i3 + 1][i2 - 1][i1] + uu[i3 + 1][i2 + 1][i1];
            }
            for (int i1 = 1; i1 < n - 1; i1++)
                rr[i3][i2][i1] = vv[i3][i2][i1] - a0 * uu[i3][i2][i1]
                               - a2 * (edge[i1] + face[i1 - 1] + face[i1 + 1])
                               - a3 * (edge[i1 - 1] + edge[i1 + 1]);
        }
    comm3(n, rr);
}

/* u = u + S r: the smoother. */
static void psinv(int n, double rr[n][n][n], double uu[n][n][n])
{
#pragma omp parallel for schedule(runtime)
    for (int i3 = 1; i3 < n - 1; i3++)
        for (int i2 = 1; i2 < n - 1; i2++) {
            double face[n], edge[n];
            for (int i1 = 0; i1 < n; i1++) {
                face[i1] = rr[i3][i2 - 1][i1] + rr[i3][i2 + 1][i1]
                         + rr[i3 - 1][i2][i1] + rr[i3 + 1][i2][i1];
                edge[i1] = rr[i3 - 1][i2 - 1][i1] + rr[i3 - 1][i2 + 1][i1]
                         + rr[i3 + 1][i2 - 1][i1] + rr[i3 + 1][i2 + 1][i1];
            }
            for (int i1 = 1; i1 < n - 1; i1++)
                uu[i3][i2][i1] += c0 * rr[i3][i2][i1]
                                + c1 * (rr[i3][i2][i1 - 1] + rr[i3][i2][i1 + 1] + face[i1])
                                + c2 * (edge[i1] + face[i1 - 1] + face[i1 + 1]);
        }
    comm3(n, uu);
}

/* s = P r: restriction from the fine grid (nf per side) to the coarse one
 * (nc).  Coarse point j sits on fine point 2j, so the weights reach from
 * 2j-1 to 2j+1 and the fine ghost layer is read at the top end. */
static void rprj3(int nf, double rr[nf][nf][nf], int nc, double s[nc][nc][nc])
{
#pragma omp parallel for schedule(runtime)
    for (int j3 = 1; j3 < nc - 1; j3++)
        for (int j2 = 1; j2 < nc - 1; j2++) {
            int i3 = 2 * j3, i2 = 2 * j2;
            double face[nf], corner[nf];   /* at the odd fine points between */
            for (int j1 = 1; j1 < nc; j1++) {
                int i1 = 2 * j1 - 1;
                face[i1] = rr[i3][i2 - 1][i1] + rr[i3][i2 + 1][i1]
                         + rr[i3 - 1][i2][i1] + rr[i3 + 1][i2][i1];
                corner[i1] = rr[i3 - 1][i2 - 1][i1] + rr[i3 + 1][i2 - 1][i1]
                           + rr[i3 - 1][i2 + 1][i1] + rr[i3 + 1][i2 + 1][i1];
            }
            for (int j1 = 1; j1 < nc - 1; j1++) {
                int i1 = 2 * j1;
                double edge = rr[i3 - 1][i2 - 1][i1] + rr[i3 + 1][i2 - 1][i1]
                            + rr[i3 - 1][i2 + 1][i1] + rr[i3 + 1][i2 + 1][i1];
                double near = rr[i3][i2 - 1][i1] + rr[i3][i2 + 1][i1]
                            + rr[i3 - 1][i2][i1] + rr[i3 + 1][i2][i1];
                s[j3][j2][j1] = 0.5 * rr[i3][i2][i1]
                              + 0.25 * (rr[i3][i2][i1 - 1] + rr[i3][i2][i1 + 1] + near)
                              + 0.125 * (face[i1 - 1] + face[i1 + 1] + edge)
                              + 0.0625 * (corner[i1 - 1] + corner[i1 + 1]);
            }
        }
    comm3(nc, s);
}

/* u = u + Q z: trilinear prolongation from the coarse grid (nc per side)
 * to the fine one (nf).  Coarse plane i3 feeds fine planes 2 i3 and
 * 2 i3 + 1, so the iterations write disjoint planes; ghost layers included,
 * so no boundary copy is needed afterwards. */
static void interp(int nc, double z[nc][nc][nc], int nf, double uu[nf][nf][nf])
{
#pragma omp parallel for schedule(runtime)
    for (int i3 = 0; i3 < nc - 1; i3++)
        for (int i2 = 0; i2 < nc - 1; i2++) {
            double z1[nc], z2[nc], z3[nc];
            for (int i1 = 0; i1 < nc; i1++) {
                z1[i1] = z[i3][i2 + 1][i1] + z[i3][i2][i1];
                z2[i1] = z[i3 + 1][i2][i1] + z[i3][i2][i1];
                z3[i1] = z[i3 + 1][i2 + 1][i1] + z[i3 + 1][i2][i1] + z1[i1];
            }
            int f3 = 2 * i3, f2 = 2 * i2;
            for (int i1 = 0; i1 < nc - 1; i1++) {
                int f1 = 2 * i1;
                uu[f3][f2][f1] += z[i3][i2][i1];
                uu[f3][f2][f1 + 1] += 0.5 * (z[i3][i2][i1 + 1] + z[i3][i2][i1]);
                uu[f3][f2 + 1][f1] += 0.5 * z1[i1];
                uu[f3][f2 + 1][f1 + 1] += 0.25 * (z1[i1] + z1[i1 + 1]);
                uu[f3 + 1][f2][f1] += 0.5 * z2[i1];
                uu[f3 + 1][f2][f1 + 1] += 0.25 * (z2[i1] + z2[i1 + 1]);
                uu[f3 + 1][f2 + 1][f1] += 0.25 * z3[i1];
                uu[f3 + 1][f2 + 1][f1 + 1] += 0.125 * (z3[i1] + z3[i1 + 1]);
            }
        }
}

/* The L2 norm of the interior, sqrt(sum r^2 / points), and its maximum. */
static double norm2u3(int n, double rr[n][n][n], double *max_abs)
{
    double sum = 0.0, biggest = 0.0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum) reduction(max : biggest)
    for (int i3 = 1; i3 < n - 1; i3++)
        for (int i2 = 1; i2 < n - 1; i2++)
            for (int i1 = 1; i1 < n - 1; i1++) {
                sum += rr[i3][i2][i1] * rr[i3][i2][i1];
                biggest = fmax(biggest, fabs(rr[i3][i2][i1]));
            }
    *max_abs = biggest;
    double points = (double)(n - 2) * (n - 2) * (n - 2);
    return sqrt(sum / points);
}

/* One V-cycle, u = u + M r at the finest level: down to level 1 by
 * restriction, a smoothing there, then up level by level. */
static void mg3p(void)
{
    for (int k = lt; k > 1; k--)
        rprj3(m[k], r[k], m[k - 1], r[k - 1]);
    zero3(m[1], u[1]);
    psinv(m[1], r[1], u[1]);
    for (int k = 2; k < lt; k++) {
        zero3(m[k], u[k]);
        interp(m[k - 1], u[k - 1], m[k], u[k]);
        resid(m[k], u[k], r[k], r[k]);
        psinv(m[k], r[k], u[k]);
    }
    interp(m[lt - 1], u[lt - 1], m[lt], u[lt]);
    resid(m[lt], u[lt], v, r[lt]);
    psinv(m[lt], r[lt], u[lt]);
}

/* A list of the N_EXTREMES best points seen so far, sorted so that the
 * weakest is first: sign +1 keeps the largest values, -1 the smallest. */
struct extremes {
    int sign;
    double value[N_EXTREMES];
    long where[N_EXTREMES];
};

static void extremes_init(struct extremes *e, int sign)
{
    e->sign = sign;
    for (int i = 0; i < N_EXTREMES; i++) {
        e->value[i] = sign > 0 ? 0.0 : 1.0;     /* the generator gives (0, 1) */
        e->where[i] = -1;
    }
}

static void extremes_offer(struct extremes *e, double value, long where)
{
    if (e->sign * value <= e->sign * e->value[0])
        return;
    e->value[0] = value;
    e->where[0] = where;
    for (int i = 0; i + 1 < N_EXTREMES && e->sign * e->value[i] > e->sign * e->value[i + 1]; i++) {
        double tv = e->value[i];
        long tw = e->where[i];
        e->value[i] = e->value[i + 1];
        e->where[i] = e->where[i + 1];
        e->value[i + 1] = tv;
        e->where[i + 1] = tw;
    }
}

/* The right-hand side v: the interior is filled with the generator's
 * stream (seed 314159265, multiplier 5^13) in the order i1 fastest, then
 * i2, then i3; v is then +1 at the ten largest numbers, -1 at the ten
 * smallest, zero elsewhere.  Setup, sequential like the stream itself. */
static void zran3(int n, double z[n][n][n])
{
    const double a = 1220703125.0;
    int side = n - 2;
    double a_row = nas_power46(a, side), a_plane = nas_power46(a, (long)side * side);
    double x_plane = 314159265.0;

    zero3(n, z);
    for (int i3 = 1; i3 < n - 1; i3++) {
        double x_row = x_plane;
        for (int i2 = 1; i2 < n - 1; i2++) {
            double x = x_row;
            vranlc(side, &x, a, &z[i3][i2][1]);
            randlc(&x_row, a_row);
        }
        randlc(&x_plane, a_plane);
    }

    struct extremes high, low;
    extremes_init(&high, 1);
    extremes_init(&low, -1);
    double *flat = &z[0][0][0];
    for (int i3 = 1; i3 < n - 1; i3++)
        for (int i2 = 1; i2 < n - 1; i2++)
            for (int i1 = 1; i1 < n - 1; i1++) {
                long at = ((long)i3 * n + i2) * n + i1;
                extremes_offer(&high, flat[at], at);
                extremes_offer(&low, flat[at], at);
            }

    zero3(n, z);
    for (int i = 0; i < N_EXTREMES; i++) {
        flat[low.where[i]] = -1.0;
        flat[high.where[i]] = 1.0;
    }
    comm3(n, z);
}

static void *alloc_grid(int n)
{
    return nas_alloc("mg", (size_t)n * (size_t)n * (size_t)n, sizeof(double));
}

static void setup(int levels)
{
    lt = levels;
    for (int k = 1; k <= lt; k++) {
        m[k] = (1 << k) + 2;
        u[k] = alloc_grid(m[k]);
        r[k] = alloc_grid(m[k]);
        zero3(m[k], u[k]);
        zero3(m[k], r[k]);
    }
    v = alloc_grid(m[lt]);
}

int main(int argc, char **argv)
{
    const struct mg_class *cls = &mg_classes[nas_class(argc, argv, "mg")];
    setup(cls->levels);
    int n = m[lt];
    double max_abs;

    /* One untimed iteration, as NPB does, then start again from scratch. */
    zero3(n, u[lt]);
    zran3(n, v);
    resid(n, u[lt], v, r[lt]);
    mg3p();
    resid(n, u[lt], v, r[lt]);
    zero3(n, u[lt]);
    zran3(n, v);

    double t0 = nas_wtime();
    resid(n, u[lt], v, r[lt]);
    norm2u3(n, r[lt], &max_abs);
    for (int it = 0; it < cls->iterations; it++) {
        mg3p();
        resid(n, u[lt], v, r[lt]);
    }
    double rnm2 = norm2u3(n, r[lt], &max_abs);
    double t1 = nas_wtime();

    double err = fabs(rnm2 - cls->verify_norm) / cls->verify_norm;
    int verified = err <= 1e-8;
    printf("mg: %d^3 grid, %d iterations: L2 norm %.13e (official %.13e, relative error %.3e)\n",
           n - 2, cls->iterations, rnm2, cls->verify_norm, err);
    return nas_report("mg", cls->name, cls->iterations, t1 - t0, verified, rnm2);
}
