/*
 * ep: the NAS Parallel Benchmarks kernel EP ("embarrassingly parallel"),
 * written in OpenMP C from the specification (Bailey et al., "The NAS
 * Parallel Benchmarks", RNR-94-007, and the NPB 2 report, NAS-95-020).
 *
 *   gcc -std=c11 -fopenmp -O2 ep.c -o ep -lm
 *   OMP_SCHEDULE=static ./ep [S|W|A]              (the class defaults to A)
 *
 * EP draws 2^(M+1) uniform numbers from the NPB generator (seed 271828183,
 * multiplier 5^13), takes them in pairs (x, y) scaled to (-1, 1), and turns
 * every pair inside the unit circle into two independent Gaussian deviates
 * by the Marsaglia polar method.  It sums the deviates (sx, sy) and counts
 * them in the square annuli l <= max(|X|, |Y|) < l + 1, l = 0..9.  M is 24,
 * 25 and 28 for classes S, W and A.
 *
 * The numbers are drawn in batches of 2^17 (2^16 pairs); batch k starts at
 * the k * 2^17-th number of the sequence, found by raising the multiplier
 * to that power by repeated squaring, so that batches are independent and
 * the loop over them is one `parallel for` (schedule(runtime)) whose sums
 * and counts are reductions.  Each thread fills its own buffer of numbers
 * (threadprivate, as the NPB OpenMP version does).  The time covers the
 * batch loop and the reductions, as in NPB.
 *
 * Verification: sx and sy are compared with the published values for the
 * class to a relative 1e-8, and the number of Gaussian pairs (the sum of
 * the counts) with its published value exactly.  The result line's
 * checksum is sx.
 */
#include <math.h>
#include <stdlib.h>

#include "nas.h"

enum {
    BATCH_LOG2 = 16,                      /* MK: pairs per batch, log 2 */
    BATCH_PAIRS = 1 << BATCH_LOG2,
    NQ = 10                               /* annuli counted */
};

static const double EP_SEED = 271828183.0;
static const double EP_MULT = 1220703125.0;   /* 5^13 */
static const double EP_EPSILON = 1e-8;

struct ep_class {
    char name;
    int m;                                /* 2^m pairs in all */
    double sx, sy;                        /* published sums */
    long pairs;                           /* published number of Gaussian pairs */
};

static const struct ep_class EP_CLASSES[] = {
    { 'S', 24, -3.247834652034740e+3, -6.958407078382297e+3, 13176389L },
    { 'W', 25, -2.863319731645753e+3, -6.320053679109499e+3, 26354769L },
    { 'A', 28, -4.295875165629892e+3, -1.580732573678431e+4, 210832767L },
};

/* Each thread's numbers for the batch it is working on. */
static double uniform[2 * BATCH_PAIRS];
#pragma omp threadprivate(uniform)

/* The generator's state at the start of batch k: seed * jump^k mod 2^46,
 * with jump the multiplier raised to the batch length. */
static double ep_batch_seed(long k, double jump)
{
    double state = EP_SEED;
    randlc(&state, nas_power46(jump, k));
    return state;
}

/* One batch: its pairs, the Gaussian deviates of those inside the circle,
 * added to the caller's sums and counts. */
static void ep_batch(long k, double jump, double *sx, double *sy, long q[NQ])
{
    double state = ep_batch_seed(k, jump);
    vranlc(2 * BATCH_PAIRS, &state, EP_MULT, uniform);
    for (int i = 0; i < BATCH_PAIRS; i++) {
        double x = 2.0 * uniform[2 * i] - 1.0;
        double y = 2.0 * uniform[2 * i + 1] - 1.0;
        double t = x * x + y * y;
        if (t > 1.0)
            continue;
        double f = sqrt(-2.0 * log(t) / t);
        double gx = x * f, gy = y * f;
        q[(int)fmax(fabs(gx), fabs(gy))]++;
        *sx += gx;
        *sy += gy;
    }
}

static int ep_verify(const struct ep_class *c, double sx, double sy, const long q[NQ])
{
    long pairs = 0;
    for (int l = 0; l < NQ; l++)
        pairs += q[l];
    int ok = fabs((sx - c->sx) / c->sx) <= EP_EPSILON &&
             fabs((sy - c->sy) / c->sy) <= EP_EPSILON && pairs == c->pairs;
    if (!ok)
        fprintf(stderr, "ep: class %c: sx %.15e (want %.15e), sy %.15e (want %.15e), "
                "pairs %ld (want %ld)\n", c->name, sx, c->sx, sy, c->sy, pairs, c->pairs);
    return ok;
}

int main(int argc, char **argv)
{
    const struct ep_class *c = &EP_CLASSES[nas_class(argc, argv, "ep")];
    long batches = 1L << (c->m - BATCH_LOG2);
    double sx = 0.0, sy = 0.0;
    long q[NQ] = { 0 };

    double t0 = nas_wtime();
    double jump = EP_MULT;
    for (int i = 0; i < BATCH_LOG2 + 1; i++)   /* jump = mult^(2 * BATCH_PAIRS) */
        randlc(&jump, jump);
#pragma omp parallel for reduction(+ : sx, sy, q) schedule(runtime)
    for (long k = 0; k < batches; k++)
        ep_batch(k, jump, &sx, &sy, q);
    double t1 = nas_wtime();

    return nas_report("ep", c->name, 0, t1 - t0, ep_verify(c, sx, sy, q), sx);
}
