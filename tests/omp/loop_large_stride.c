/*
 * loop_large_stride: loops whose step is large (a million and more) and
 * whose bounds are near the limits of int and long run exactly the
 * sequential iterations, with static and dynamic schedules.
 */
#include <limits.h>
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long s1 = 0, s2 = 0, s3 = 0, n1 = 0, n2 = 0, n3 = 0;

#pragma omp parallel
    {
#pragma omp for schedule(static) reduction(+ : s1, n1)
        for (int i = 0; i < INT_MAX - 1000000; i += 1000003) {
            s1 += i % 1000;
            n1++;
        }
#pragma omp for schedule(dynamic, 3) reduction(+ : s2, n2)
        for (long i = LONG_MIN / 4; i < LONG_MAX / 4; i += 1L << 50) {
            s2 += (i >> 50) & 0xff;
            n2++;
        }
#pragma omp for schedule(guided) reduction(+ : s3, n3)
        for (int i = INT_MAX - 1; i > INT_MIN + 5000000; i -= 7777777) {
            s3 += i % 97;
            n3++;
        }
    }
    printf("int step 1000003: %ld iterations, sum %ld\n", n1, s1);
    printf("long step 2^50: %ld iterations, sum %ld\n", n2, s2);
    printf("int step -7777777: %ld iterations, sum %ld\n", n3, s3);
    return 0;
}
