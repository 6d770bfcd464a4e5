/* ft.c: the NAS Parallel Benchmarks kernel FT, written as ordinary OpenMP C.
 *
 * What it computes: the solution of the 3-D diffusion equation
 * du/dt = alpha del^2 u  (alpha = 1e-6) on an nx x ny x nz periodic grid by
 * spectral methods.  The initial field u is complex, drawn from the NPB
 * generator; it is transformed once by a forward 3-D FFT, and at every time
 * step t = 1 .. 6 the transform is multiplied by
 * exp(-4 alpha pi^2 (i^2 + j^2 + k^2)) (so after t steps it carries the
 * factor's t-th power) and transformed back by an inverse 3-D FFT.  Each
 * 3-D FFT is three passes of 1-D FFTs, one along each dimension: along x
 * the lines are contiguous, along y and z each thread gathers a block of
 * strided lines into a private buffer, transforms them and scatters them
 * back (the transpose that FT is known for).
 *
 * Which specification: D. Bailey et al., "The NAS Parallel Benchmarks",
 * RNR-94-007 (1994), kernel FT, with the sizes of NPB 2/3: class S is
 * 64 x 64 x 64, W is 128 x 128 x 32, A is 256 x 256 x 128, six time steps
 * each.  The initial field takes the generator's stream (seed 314159265,
 * multiplier 5^13) as real, imaginary, real, ... in the order x fastest,
 * then y, then z.  The transforms are unnormalised.  As in NPB, everything
 * from the computation of the exponential factors and the initial field
 * onwards is timed (after one untimed warm-up of the same set-up and
 * forward transform).
 *
 * How it verifies: after every step the checksum
 * sum_{j=1..1024} u(j mod nx, 3j mod ny, 5j mod nz) / (nx ny nz) of the
 * inverse transform must match the official value of that step and class,
 * real and imaginary parts each within a relative 1e-12.
 *
 * Parallelism is the ordinary kind: `#pragma omp parallel for
 * schedule(runtime)` over the planes (x and y passes, the exponential
 * factors, the initial field, the time step) or over the y index (the z
 * pass), and a reduction for the checksum.
 *
 *   ft [S|W|A]                  (default A)
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "nas.h"

enum { STEPS = 6, CHECKSUM_POINTS = 1024, LINE_BLOCK = 16 };

struct ft_class {
    char name;
    int nx, ny, nz;
    double re[STEPS], im[STEPS];        /* official checksums, step 1 .. 6 */
};

static const struct ft_class ft_classes[] = {
    { 'S', 64, 64, 64,
      { 5.546087004964e+02, 5.546385409189e+02, 5.546148406171e+02,
        5.545423607415e+02, 5.544255039624e+02, 5.542683411902e+02 },
      { 4.845363331978e+02, 4.865304269511e+02, 4.883910722336e+02,
        4.901273169046e+02, 4.917475857993e+02, 4.932597244941e+02 } },
    { 'W', 128, 128, 32,
      { 5.673612178944e+02, 5.631436885271e+02, 5.594024089970e+02,
        5.560698047020e+02, 5.530898991250e+02, 5.504159734538e+02 },
      { 5.293246849175e+02, 5.282149986629e+02, 5.270996558037e+02,
        5.260027904925e+02, 5.249400845633e+02, 5.239212247086e+02 } },
    { 'A', 256, 256, 128,
      { 5.046735008193e+02, 5.059412319734e+02, 5.069376896287e+02,
        5.077892868474e+02, 5.085233095391e+02, 5.091487099959e+02 },
      { 5.114047905510e+02, 5.098809666433e+02, 5.098144042213e+02,
        5.101336130759e+02, 5.104914655194e+02, 5.107917842803e+02 } },
};

static const double alpha = 1e-6;
static const double pi = 3.141592653589793238;

/* The roots of unity exp(-2 pi i k / n_max), k < n_max / 2; a transform of
 * length n (a power of two dividing n_max) uses every (n_max / n)-th. */
static int n_max;
static double complex *roots;

/* The product written out: C's complex multiplication checks for
 * infinities and NaNs at every call, which an FFT does not need. */
static inline double complex mul(double complex a, double complex b)
{
    return CMPLX(creal(a) * creal(b) - cimag(a) * cimag(b),
                 creal(a) * cimag(b) + cimag(a) * creal(b));
}

static void fft_init(int n)
{
    n_max = n;
    for (int k = 0; k < n / 2; k++)
        roots[k] = CMPLX(cos(2.0 * pi * k / n), -sin(2.0 * pi * k / n));
}

/* An in-place radix-2 FFT of x[0 .. n-1], unnormalised: dir +1 uses
 * exp(-2 pi i jk / n), dir -1 its conjugate. */
static void fft_line(int n, double complex *x, int dir)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            double complex t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
    for (int len = 2; len <= n; len *= 2) {
        int half = len / 2, stride = n_max / len;
        for (int start = 0; start < n; start += len)
            for (int k = 0; k < half; k++) {
                double complex w = roots[k * stride];
                if (dir < 0)
                    w = conj(w);
                double complex t = mul(w, x[start + k + half]);
                x[start + k + half] = x[start + k] - t;
                x[start + k] += t;
            }
    }
}

/* The x pass: each line x[k][j][*] is contiguous. */
static void cffts1(int dir, int nz, int ny, int nx, double complex in[nz][ny][nx],
                   double complex out[nz][ny][nx])
{
#pragma omp parallel for schedule(runtime)
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++) {
            double complex line[nx];
            for (int i = 0; i < nx; i++)
                line[i] = in[k][j][i];
            fft_line(nx, line, dir);
            for (int i = 0; i < nx; i++)
                out[k][j][i] = line[i];
        }
}

/* The y pass, plane by plane: LINE_BLOCK neighbouring lines x[k][*][i] at
 * a time are gathered, so that every cache line read is used whole. */
static void cffts2(int dir, int nz, int ny, int nx, double complex in[nz][ny][nx],
                   double complex out[nz][ny][nx])
{
#pragma omp parallel for schedule(runtime)
    for (int k = 0; k < nz; k++)
        for (int i0 = 0; i0 < nx; i0 += LINE_BLOCK) {
            double complex lines[LINE_BLOCK][ny];
            int width = nx - i0 < LINE_BLOCK ? nx - i0 : LINE_BLOCK;
            for (int j = 0; j < ny; j++)
                for (int b = 0; b < width; b++)
                    lines[b][j] = in[k][j][i0 + b];
            for (int b = 0; b < width; b++)
                fft_line(ny, lines[b], dir);
            for (int j = 0; j < ny; j++)
                for (int b = 0; b < width; b++)
                    out[k][j][i0 + b] = lines[b][j];
        }
}

/* The z pass, over the y index: each line x[*][j][i] crosses every plane. */
static void cffts3(int dir, int nz, int ny, int nx, double complex in[nz][ny][nx],
                   double complex out[nz][ny][nx])
{
#pragma omp parallel for schedule(runtime)
    for (int j = 0; j < ny; j++)
        for (int i0 = 0; i0 < nx; i0 += LINE_BLOCK) {
            double complex lines[LINE_BLOCK][nz];
            int width = nx - i0 < LINE_BLOCK ? nx - i0 : LINE_BLOCK;
            for (int k = 0; k < nz; k++)
                for (int b = 0; b < width; b++)
                    lines[b][k] = in[k][j][i0 + b];
            for (int b = 0; b < width; b++)
                fft_line(nz, lines[b], dir);
            for (int k = 0; k < nz; k++)
                for (int b = 0; b < width; b++)
                    out[k][j][i0 + b] = lines[b][k];
        }
}

/* The 3-D transform of in into out: forward x, y, z; inverse z, y, x.
 * in is overwritten unless it is out. */
static void fft3d(int dir, const struct ft_class *c, void *in, void *out)
{
    if (dir > 0) {
        cffts1(dir, c->nz, c->ny, c->nx, in, in);
        cffts2(dir, c->nz, c->ny, c->nx, in, in);
        cffts3(dir, c->nz, c->ny, c->nx, in, out);
    } else {
        cffts3(dir, c->nz, c->ny, c->nx, in, in);
        cffts2(dir, c->nz, c->ny, c->nx, in, in);
        cffts1(dir, c->nz, c->ny, c->nx, in, out);
    }
}

/* The signed frequency of index i on a periodic axis of n points. */
static int frequency(int i, int n)
{
    return (i + n / 2) % n - n / 2;
}

/* The factor of one time step at every frequency. */
static void compute_twiddle(int nz, int ny, int nx, double tw[nz][ny][nx])
{
    double ap = -4.0 * alpha * pi * pi;
#pragma omp parallel for schedule(runtime)
    for (int k = 0; k < nz; k++) {
        int kk = frequency(k, nz);
        for (int j = 0; j < ny; j++) {
            int jj = frequency(j, ny);
            for (int i = 0; i < nx; i++) {
                int ii = frequency(i, nx);
                tw[k][j][i] = exp(ap * (double)(ii * ii + jj * jj + kk * kk));
            }
        }
    }
}

/* The initial field: plane k takes the 2 nx ny numbers of the stream that
 * start at position 2 nx ny k, so each plane's seed is found by a jump and
 * the planes can be filled in parallel. */
static void compute_initial_conditions(int nz, int ny, int nx, double complex u[nz][ny][nx],
                                       double *seeds)
{
    const double a = 1220703125.0;
    long plane = 2L * nx * ny;
    double jump = nas_power46(a, plane), x = 314159265.0;
    for (int k = 0; k < nz; k++) {
        seeds[k] = x;
        randlc(&x, jump);
    }
#pragma omp parallel for schedule(runtime)
    for (int k = 0; k < nz; k++) {
        double seed = seeds[k];
        vranlc(plane, &seed, a, (double *)&u[k][0][0]);
    }
}

/* One time step: u0 = u0 * twiddle, and u1 = u0 for the inverse transform. */
static void evolve(int nz, int ny, int nx, double complex u0[nz][ny][nx],
                   double complex u1[nz][ny][nx], double tw[nz][ny][nx])
{
#pragma omp parallel for schedule(runtime)
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                u0[k][j][i] *= tw[k][j][i];
                u1[k][j][i] = u0[k][j][i];
            }
}

static double complex checksum(int nz, int ny, int nx, double complex u[nz][ny][nx])
{
    double re = 0.0, im = 0.0;
#pragma omp parallel for reduction(+ : re, im)
    for (int j = 1; j <= CHECKSUM_POINTS; j++) {
        double complex x = u[(5 * j) % nz][(3 * j) % ny][j % nx];
        re += creal(x);
        im += cimag(x);
    }
    double total = (double)nx * ny * nz;
    return CMPLX(re / total, im / total);
}

static int matches(double got, double want)
{
    return fabs((got - want) / want) <= 1e-12;
}

static int longest_side(const struct ft_class *c)
{
    int n = c->nx > c->ny ? c->nx : c->ny;
    return n > c->nz ? n : c->nz;
}

/* Everything the benchmark times up to the first time step: the factors,
 * the initial field in u1, the roots, and the forward transform into u0. */
static void start(const struct ft_class *c, void *u0, void *u1, void *tw, double *seeds)
{
    compute_twiddle(c->nz, c->ny, c->nx, tw);
    compute_initial_conditions(c->nz, c->ny, c->nx, u1, seeds);
    fft_init(longest_side(c));
    fft3d(1, c, u1, u0);
}

int main(int argc, char **argv)
{
    const struct ft_class *c = &ft_classes[nas_class(argc, argv, "ft")];
    size_t points = (size_t)c->nx * c->ny * c->nz;
    void *u0 = nas_alloc("ft", points, sizeof(double complex));
    void *u1 = nas_alloc("ft", points, sizeof(double complex));
    void *tw = nas_alloc("ft", points, sizeof(double));
    double *seeds = nas_alloc("ft", (size_t)c->nz, sizeof(double));
    roots = nas_alloc("ft", (size_t)longest_side(c) / 2, sizeof(double complex));

    start(c, u0, u1, tw, seeds);        /* untimed warm-up, as in NPB */

    int verified = 1;
    double complex sum = 0.0;
    double t0 = nas_wtime();
    start(c, u0, u1, tw, seeds);
    for (int step = 0; step < STEPS; step++) {
        evolve(c->nz, c->ny, c->nx, u0, u1, tw);
        fft3d(-1, c, u1, u1);
        sum = checksum(c->nz, c->ny, c->nx, u1);
        printf("ft: step %d checksum %.12e %.12e\n", step + 1, creal(sum), cimag(sum));
        verified &= matches(creal(sum), c->re[step]) && matches(cimag(sum), c->im[step]);
    }
    double t1 = nas_wtime();

    return nas_report("ft", c->name, STEPS, t1 - t0, verified, creal(sum));
}
