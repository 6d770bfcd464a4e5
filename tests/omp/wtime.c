/*
 * wtime: omp_get_wtime never goes backwards on any thread, advances over a
 * sleep of 20 ms by at least that much, and omp_get_wtick is positive and
 * small.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    int backwards = 0;
    double t0 = omp_get_wtime();
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double t1 = omp_get_wtime();

#pragma omp parallel reduction(+ : backwards)
    {
        double prev = omp_get_wtime();
        for (int i = 0; i < 100000; i++) {
            double t = omp_get_wtime();
            backwards += t < prev;
            prev = t;
        }
    }
    double t2 = omp_get_wtime();
    printf("monotonic on every thread: %s\n", backwards == 0 ? "ok" : "WRONG");
    printf("sleep of 20 ms measured >= 0.02 s: %s\n", t1 - t0 >= 0.0199 ? "ok" : "WRONG");
    printf("later than before the region: %s\n", t2 >= t1 ? "ok" : "WRONG");
    printf("wtick in (0, 0.01]: %s\n", omp_get_wtick() > 0 && omp_get_wtick() <= 0.01 ? "ok" : "WRONG");
    return 0;
}
