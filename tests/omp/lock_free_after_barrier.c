/*
 * lock_free_after_barrier: a lock every thread set and unset before a
 * barrier is free after it, at every thread: omp_test_lock must take it.
 * (Across nodes a lock's release travels to the node that manages it, which
 * may be neither the releaser nor the tester; the barrier must not let the
 * test overtake the release.)  Several locks, so that their managers
 * differ.
 */
#include <omp.h>
#include <stdio.h>

enum { LOCKS = 8, ROUNDS = 300 };

static omp_lock_t locks[LOCKS];
static long counter;

int main(void)
{
    for (int i = 0; i < LOCKS; i++)
        omp_init_lock(&locks[i]);
    long refused = 0;
#pragma omp parallel reduction(+ : refused)
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        for (int r = 0; r < ROUNDS; r++) {
            omp_lock_t *l = &locks[r % LOCKS];
            omp_set_lock(l);
            counter++;
            omp_unset_lock(l);
#pragma omp barrier
            if (me == r % team) {
                if (omp_test_lock(l))
                    omp_unset_lock(l);
                else
                    refused++;
            }
#pragma omp barrier
        }
    }
    for (int i = 0; i < LOCKS; i++)
        omp_destroy_lock(&locks[i]);
    printf("counter per thread %ld, tests refused %ld\n", counter / omp_get_max_threads(), refused);
    return refused != 0;
}
