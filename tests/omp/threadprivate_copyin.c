/*
 * threadprivate_copyin: threadprivate variables are per thread, start from
 * their initialisers and keep their values from one region to the next;
 * copyin gives every thread the master's values of a scalar, an array
 * spanning several pages and a struct (GCC passes the last two by the
 * master's address, which other nodes must follow to the master's values),
 * and copyprivate of a threadprivate array broadcasts the values the
 * single thread set, round after round.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define N 3000

static int counter = 7;
static double hist[N];
static struct cfg {
    long seed;
    int dims[3];
    char name[12];
} cfg = { 1, { 2, 3, 4 }, "init" };
#pragma omp threadprivate(counter, hist, cfg)

int main(void)
{
    int bad_init = 0, bad_copyin = 0, bad_kept = 0, bad_copyprivate = 0;

#pragma omp parallel reduction(+ : bad_init)
    {
        bad_init += counter != 7 || cfg.seed != 1 || cfg.dims[2] != 4 || strcmp(cfg.name, "init");
        for (int i = 0; i < N; i++)
            bad_init += hist[i] != 0.0;
    }

    counter = 11;
    for (int i = 0; i < N; i++)
        hist[i] = i * 0.5;
    cfg = (struct cfg){ 42, { 5, 6, 7 }, "master" };

#pragma omp parallel copyin(counter, hist, cfg) reduction(+ : bad_copyin)
    {
        int t = omp_get_thread_num();
        bad_copyin += counter != 11 || cfg.seed != 42 || cfg.dims[0] != 5 || strcmp(cfg.name, "master");
        for (int i = 0; i < N; i++)
            bad_copyin += hist[i] != i * 0.5;
        counter += t;
        hist[t * 7 % N] += 1.0;
        cfg.seed = 1000 + t;
    }

#pragma omp parallel reduction(+ : bad_kept)
    {
        int t = omp_get_thread_num();
        bad_kept += counter != 11 + t || cfg.seed != 1000 + t || hist[t * 7 % N] != t * 7 % N * 0.5 + 1.0;
    }

#pragma omp parallel reduction(+ : bad_copyprivate)
    {
        for (int round = 0; round < 4; round++) {
#pragma omp single copyprivate(hist)
            for (int i = 0; i < N; i++)
                hist[i] = round * 100.0 - i;
            for (int i = 0; i < N; i++)
                bad_copyprivate += hist[i] != round * 100.0 - i;
        }
    }

    printf("initial values in every thread: %s\n", bad_init ? "WRONG" : "ok");
    printf("copyin of a scalar, an array and a struct: %s\n", bad_copyin ? "WRONG" : "ok");
    printf("values kept between regions: %s\n", bad_kept ? "WRONG" : "ok");
    printf("copyprivate of a threadprivate array: %s\n", bad_copyprivate ? "WRONG" : "ok");
    printf("master: counter %d seed %ld hist[0] %.1f\n", counter, cfg.seed, hist[0]);
    return 0;
}
