/*
 * contended_lock: every thread of every node takes one lock and one
 * critical section, again and again, and updates shared counters inside
 * (a read, a pause, a write: an update made by two holders at once loses
 * one).  With several threads per node the node's threads contend among
 * themselves and with other nodes'.  The output does not depend on the
 * team: each counter must be a multiple of the team's size.
 */
#include <omp.h>
#include <stdio.h>

enum { TIMES = 200 };
long by_lock, by_critical;

static void update(volatile long *c)
{
    long v = *c;
    for (volatile int k = 0; k < 50; k++)
        ;
    *c = v + 1;
}

int main(void)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
    int team = 0;
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
        for (int i = 0; i < TIMES; i++) {
            omp_set_lock(&lock);
            update(&by_lock);
            omp_unset_lock(&lock);
#pragma omp critical
            update(&by_critical);
        }
    }
    omp_destroy_lock(&lock);
    printf("lock: %s\ncritical: %s\n", by_lock == (long)TIMES * team ? "every update" : "updates lost",
           by_critical == (long)TIMES * team ? "every update" : "updates lost");
    return 0;
}
