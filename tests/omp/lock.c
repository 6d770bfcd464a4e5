/*
 * lock: omp_set_lock/omp_unset_lock give mutual exclusion between all
 * threads, so non-atomic updates under the lock are never lost;
 * omp_test_lock acquires only a free lock (it returns 0 for a lock the
 * caller holds, as the lock is not nestable) and, retried until it
 * succeeds, also gives exclusion.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    omp_lock_t lk, lk2;
    long counter = 0, counter2 = 0;
    int selftest = -1;

    omp_init_lock(&lk);
    omp_init_lock(&lk2);
#pragma omp parallel
    {
        for (int k = 0; k < 200; k++) {
            omp_set_lock(&lk);
            counter = counter + 1;
            omp_unset_lock(&lk);
            while (!omp_test_lock(&lk2))
                ;
            counter2 = counter2 + 3;
            omp_unset_lock(&lk2);
        }
#pragma omp barrier
#pragma omp single
        {
            omp_set_lock(&lk);
            selftest = omp_test_lock(&lk);
            omp_unset_lock(&lk);
        }
    }
    omp_destroy_lock(&lk);
    omp_destroy_lock(&lk2);
    int n = omp_get_max_threads();
    printf("set/unset per thread: %ld\n", counter / n);
    printf("test/unset per thread: %ld\n", counter2 / n);
    printf("test_lock on a held lock: %d\n", selftest);
    return 0;
}
