/*
 * output_order: what a thread prints before a release (the end of an
 * ordered iteration, of a critical section, an unset lock, a barrier, the
 * end of the region) comes out before what another thread prints after the
 * matching acquire, with no fflush in the program, also when standard
 * output is a file or a pipe and the C library buffers it (the suite
 * writes it to a file; tests/output also to a pipe).
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int turn = 0, locked = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
    printf("before the region\n");
#pragma omp parallel
    {
        int me = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp for ordered schedule(dynamic)
        for (int i = 0; i < 24; i++) {
#pragma omp ordered
            printf("ordered %d\n", i);
        }
#pragma omp critical
        {
            printf("critical turn %d\n", turn);
            turn++;
        }
#pragma omp barrier
        omp_set_lock(&lock);
        printf("lock turn %d\n", locked);
        locked++;
        omp_unset_lock(&lock);
#pragma omp barrier
        for (int t = 0; t < nt; t++) {
            if (t == me)
                printf("barrier turn %d\n", t);
#pragma omp barrier
        }
#pragma omp single
        printf("single after the barriers\n");
#pragma omp for ordered schedule(static, 2)
        for (int i = 11; i >= 0; i--) {
#pragma omp ordered
            printf("ordered down %d\n", i);
        }
    }
    printf("after the region\n");
    omp_destroy_lock(&lock);
    return 0;
}
