/*
 * parallel_private: a private variable is a new, per-thread object; writes
 * to it inside the region do not touch the original, and each thread's
 * copy keeps the value that thread stored even while the others store
 * different values.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int x = 42;
    int bad = 0;

#pragma omp parallel private(x) reduction(+ : bad)
    {
        int me = omp_get_thread_num();
        x = 1000 * (me + 1);
#pragma omp barrier
        for (int k = 0; k < 100; k++)
            x += 1;
#pragma omp barrier
        bad += x != 1000 * (me + 1) + 100;
    }
    printf("private copies independent: %s\n", bad == 0 ? "ok" : "WRONG");
    printf("original untouched: x = %d\n", x);
    return 0;
}
