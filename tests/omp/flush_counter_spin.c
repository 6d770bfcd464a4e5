/*
 * flush_counter_spin: a thread waits, with flush and a plain read, for a
 * counter that the other threads bump with `#pragma omp atomic`, then with
 * a critical section, then wait in a barrier themselves.  The waiter reads a
 * variable others change without a barrier or a lock of its own: the
 * updates (made at the variable's home, or published by the critical
 * section's end) must reach it through flush alone.  It gives up after 20
 * seconds, so a missing update fails instead of hanging.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

int by_atomic, by_critical;

static int wait_for(int *v, int want)
{
    double t0 = omp_get_wtime();
    for (;;) {
#pragma omp flush
        if (*v >= want)
            return 1;
        if (omp_get_wtime() - t0 > 20.0)
            return 0;
    }
}

int main(void)
{
    int seen_atomic = 0, seen_critical = 0;
#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        if (me == n - 1) {
            seen_atomic = wait_for(&by_atomic, n - 1);
        } else {
#pragma omp atomic
            by_atomic += 1;
        }
#pragma omp barrier
        if (me == 0) {
            seen_critical = wait_for(&by_critical, 2 * (n - 1));
        } else {
#pragma omp critical
            by_critical += 2;
        }
    }
    printf("atomic %d seen %d, critical %d seen %d\n", by_atomic, seen_atomic, by_critical, seen_critical);
    return 0;
}
