/*
 * flush_flag: the producer/consumer pattern of the OpenMP examples: thread
 * 0 writes data, flushes, then sets a flag with an atomic write; thread 1
 * spins on an atomic read of the flag, flushes, then must see the data.
 * The spin gives up after 10 seconds (printed as a failure) so that a
 * broken flush cannot hang the test.  With one thread there is no
 * consumer and the test checks the data directly.
 */
#include <omp.h>
#include <stdio.h>

int data[100];
int flag = 0;

int main(void)
{
    int result = -1;

#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        if (me == 0) {
            for (int i = 0; i < 100; i++)
                data[i] = i * i;
#pragma omp flush
#pragma omp atomic write
            flag = 1;
#pragma omp flush
            if (n == 1) {
                int s = 0;
                for (int i = 0; i < 100; i++)
                    s += data[i];
                result = s;
            }
        } else if (me == 1) {
            int f = 0;
            double t0 = omp_get_wtime();
            while (!f) {
#pragma omp flush
#pragma omp atomic read
                f = flag;
                if (omp_get_wtime() - t0 > 10.0)
                    break;
            }
#pragma omp flush
            int s = 0;
            for (int i = 0; i < 100; i++)
                s += data[i];
            result = f ? s : -2;
        }
    }
    printf("consumer saw sum = %d\n", result);
    return 0;
}
