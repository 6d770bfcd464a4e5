/*
 * task_at_home_after_arrival: a node that has written pages it is home of
 * and waits in a barrier runs tasks that write those pages again, while
 * the thread that made the tasks still holds copies of them; after
 * taskwait that thread must see what the tasks wrote.  The loop before the
 * single is nowait and slower on the upper half, so that the node that
 * writes it (and is home of some of its pages) arrives at the single's
 * barrier after the single's thread has read and registered its copies;
 * the tasks are long enough for that node to take some.  The loop leaves
 * alone the words the tasks write, so the two do not race.
 */
#include <omp.h>
#include <stdio.h>

#define P 512           /* longs a page */
#define PAGES 64
#define N (2 * PAGES * P)
#define ROUNDS 6

static long a[N];

static double spin(long i, int n)
{
    volatile double s = 0;
    for (int k = 0; k < n; k++)
        s += (double)(k ^ i);
    return s;
}

int main(void)
{
    long held = 0;
    int unseen = 0;
    for (int r = 1; r <= ROUNDS; r++) {
#pragma omp parallel
        {
#pragma omp for schedule(static) nowait
            for (long i = 0; i < N; i++) {
                if (i >= N / 2)
                    spin(i, 300);
                if (i % P != 1)
                    a[i] = i + r;
            }
#pragma omp single
            {
                for (long k = 0; k < PAGES; k++)
                    held += a[N / 2 + k * P + 1];
#pragma omp flush
                for (long k = 0; k < PAGES; k++) {
#pragma omp task firstprivate(k, r)
                    {
                        spin(k, 1000000);
                        a[N / 2 + k * P + 1] = k + r + 1000;
                    }
                }
#pragma omp taskwait
                for (long k = 0; k < PAGES; k++)
                    unseen += a[N / 2 + k * P + 1] != k + r + 1000;
            }
        }
    }
    printf("results not seen after taskwait: %d\n", unseen);
    printf("copies read before the tasks: %s\n", held >= 0 ? "yes" : "?");
    return 0;
}
