/*
 * is: the NAS Parallel Benchmarks kernel IS (integer sort), written in
 * OpenMP C from the specification (Bailey et al., "The NAS Parallel
 * Benchmarks", RNR-94-007, and the NPB 2 report, NAS-95-020).
 *
 *   gcc -std=c11 -fopenmp -O2 is.c -o is
 *   OMP_SCHEDULE=static ./is [S|W|A]              (the class defaults to A)
 *
 * IS ranks N integer keys in [0, Bmax): the rank of key k is the number of
 * keys smaller than k.  N and Bmax are 2^16 and 2^11 for class S, 2^20 and
 * 2^16 for W, 2^23 and 2^19 for A.  Each key is Bmax/4 times the sum of four
 * numbers of the NPB generator (seed 314159265, multiplier 5^13), so the
 * keys are roughly Gaussian; they are generated sequentially by the master
 * before the timed part.
 *
 * The benchmark ranks the keys ten times.  Before ranking i, the keys at
 * positions i and i + 10 are replaced by i and Bmax - i, so every ranking
 * sees a slightly different sequence.  A ranking is a counting sort: the
 * histogram of the keys (a `parallel for` whose counts are an array
 * reduction, schedule(runtime)), then its running sum, computed by the
 * master, which gives the rank of every key value.  One ranking is done
 * untimed first, as NPB does, and the time covers the ten that follow.
 *
 * Verification, as the specification defines it.  Partial: in every
 * ranking, five keys at published positions must have published ranks,
 * shifted by the iteration number as the replaced keys move them.  Full:
 * after the last ranking the keys are placed at their ranks, untimed, and
 * the result must be in non-decreasing order.  All 5 x 10 partial checks
 * and the full check must pass.  The result line's checksum is the sum of
 * the five test keys' ranks in the last ranking.
 */
#include <stdlib.h>

#include "nas.h"

enum {
    ITERATIONS = 10,
    TESTS = 5                             /* keys checked in every ranking */
};

static const double IS_SEED = 314159265.0;
static const double IS_MULT = 1220703125.0;   /* 5^13 */

/* The expected rank of test key t in ranking `it` is
 *   rank[t] + dir[t] * (it - lag[t]),
 * with the published rank[t], direction and offset of each class: the two
 * keys replaced before every ranking move each test key's rank by one. */
struct is_class {
    char name;
    int keys_log2, max_key_log2;
    long index[TESTS];                    /* positions of the test keys */
    long rank[TESTS];
    int dir[TESTS], lag[TESTS];
};

static const struct is_class IS_CLASSES[] = {
    { 'S', 16, 11,
      { 48427, 17148, 23627, 62548, 4431 },
      { 0, 18, 346, 64917, 65463 },
      { 1, 1, 1, -1, -1 }, { 0, 0, 0, 0, 0 } },
    { 'W', 20, 16,
      { 357773, 934767, 875723, 898999, 404505 },
      { 1249, 11698, 1039987, 1043896, 1048018 },
      { 1, 1, -1, -1, -1 }, { 2, 2, 0, 0, 0 } },
    { 'A', 23, 19,
      { 2112377, 662041, 5336171, 3642833, 4250760 },
      { 104, 17523, 123928, 8288932, 8388264 },
      { 1, 1, 1, -1, -1 }, { 1, 1, 1, 1, 1 } },
};

struct is_state {
    const struct is_class *c;
    long nkeys;
    int max_key;
    int *keys;                            /* nkeys keys */
    int *count;                           /* max_key: counts, then running sums */
    int passed;                           /* verification checks passed */
    long rank_sum;                        /* the test keys' ranks, last ranking */
};

/* The keys, in order from one sequence of the generator. */
static void is_generate(struct is_state *s)
{
    double seed = IS_SEED, scale = s->max_key / 4;
    for (long i = 0; i < s->nkeys; i++) {
        double x = randlc(&seed, IS_MULT);
        x += randlc(&seed, IS_MULT);
        x += randlc(&seed, IS_MULT);
        x += randlc(&seed, IS_MULT);
        s->keys[i] = (int)(scale * x);
    }
}

/* count[k] = the number of keys equal to k. */
static void is_histogram(struct is_state *s)
{
    int *count = s->count, *keys = s->keys, max_key = s->max_key;
    long nkeys = s->nkeys;
#pragma omp parallel for
    for (int k = 0; k < max_key; k++)
        count[k] = 0;
#pragma omp parallel for reduction(+ : count[:max_key]) schedule(runtime)
    for (long i = 0; i < nkeys; i++)
        count[keys[i]]++;
}

/* count[k] becomes the number of keys <= k, so the rank of k is count[k-1]. */
static void is_running_sum(struct is_state *s)
{
    for (int k = 1; k < s->max_key; k++)
        s->count[k] += s->count[k - 1];
}

static void is_partial_verify(struct is_state *s, int it, const int probe[TESTS])
{
    const struct is_class *c = s->c;
    s->rank_sum = 0;
    for (int t = 0; t < TESTS; t++) {
        int k = probe[t];
        if (k <= 0 || k > s->nkeys - 1)
            continue;
        long rank = s->count[k - 1];
        long want = c->rank[t] + c->dir[t] * (it - c->lag[t]);
        s->rank_sum += rank;
        if (rank == want)
            s->passed++;
        else
            fprintf(stderr, "is: ranking %d, test key %d: rank %ld, want %ld\n",
                    it, t, rank, want);
    }
}

static void is_rank(struct is_state *s, int it)
{
    int probe[TESTS];
    s->keys[it] = it;
    s->keys[it + ITERATIONS] = s->max_key - it;
    for (int t = 0; t < TESTS; t++)
        probe[t] = s->keys[s->c->index[t]];
    is_histogram(s);
    is_running_sum(s);
    is_partial_verify(s, it, probe);
}

/* Place every key at its rank (the running sums say where each value's
 * run ends) and check the order. */
static void is_full_verify(struct is_state *s)
{
    int *sorted = nas_alloc("is", (size_t)s->nkeys, sizeof *sorted);
    for (long i = 0; i < s->nkeys; i++)
        sorted[--s->count[s->keys[i]]] = s->keys[i];
    long disorder = 0;
    long nkeys = s->nkeys;
#pragma omp parallel for reduction(+ : disorder)
    for (long i = 1; i < nkeys; i++)
        disorder += sorted[i - 1] > sorted[i];
    if (disorder == 0)
        s->passed++;
    else
        fprintf(stderr, "is: %ld keys out of order\n", disorder);
    free(sorted);
}

int main(int argc, char **argv)
{
    const struct is_class *c = &IS_CLASSES[nas_class(argc, argv, "is")];
    struct is_state s = { .c = c, .nkeys = 1L << c->keys_log2, .max_key = 1 << c->max_key_log2 };
    s.keys = nas_alloc("is", (size_t)s.nkeys, sizeof *s.keys);
    s.count = nas_alloc("is", (size_t)s.max_key, sizeof *s.count);

    is_generate(&s);
    is_rank(&s, 1);                       /* untimed, as in NPB */
    s.passed = 0;

    double t0 = nas_wtime();
    for (int it = 1; it <= ITERATIONS; it++)
        is_rank(&s, it);
    double t1 = nas_wtime();

    is_full_verify(&s);
    free(s.keys);
    free(s.count);
    int verified = s.passed == TESTS * ITERATIONS + 1;
    return nas_report("is", c->name, ITERATIONS, t1 - t0, verified, (double)s.rank_sum);
}
