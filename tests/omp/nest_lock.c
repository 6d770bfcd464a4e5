/*
 * nest_lock: a nestable lock can be set again by its owner (the nesting
 * count goes up, returned by omp_test_nest_lock), is released only when
 * unset as many times as set, and excludes other threads meanwhile.
 */
#include <omp.h>
#include <stdio.h>

static omp_nest_lock_t nl;
static long counter;

static void add(int depth)
{
    omp_set_nest_lock(&nl);
    counter = counter + 1;
    if (depth > 0)
        add(depth - 1);
    omp_unset_nest_lock(&nl);
}

int main(void)
{
    int counts[3] = {0};

    omp_init_nest_lock(&nl);
#pragma omp parallel
    {
        for (int k = 0; k < 50; k++)
            add(3);
#pragma omp barrier
#pragma omp single
        {
            counts[0] = omp_test_nest_lock(&nl);
            counts[1] = omp_test_nest_lock(&nl);
            omp_set_nest_lock(&nl);
            counts[2] = omp_test_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
        }
        /* fully released: every thread can take it again */
        omp_set_nest_lock(&nl);
        counter = counter + 1000;
        omp_unset_nest_lock(&nl);
    }
    omp_destroy_nest_lock(&nl);
    int n = omp_get_max_threads();
    printf("nesting counts: %d %d %d\n", counts[0], counts[1], counts[2]);
    printf("counter per thread: %ld\n", counter / n);
    return 0;
}
