/*
 * master: the master block runs only on thread 0, once per encounter, and
 * has no implied barrier (an explicit barrier publishes its write).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int runs = 0, who = -1, value = 0, bad = 0;

#pragma omp parallel reduction(+ : bad)
    {
#pragma omp master
        {
            runs++;
            who = omp_get_thread_num();
            value = 1234;
        }
#pragma omp barrier
        bad += value != 1234;
    }
    printf("master ran %d time(s) on thread %d; seen by all after barrier: %s\n", runs, who,
           bad == 0 ? "ok" : "WRONG");
    return 0;
}
