/*
 * for_dynamic: schedule(dynamic) (chunk 1) runs every iteration exactly
 * once, whatever thread takes it; results gathered by index are those of a
 * sequential loop.
 */
#include <omp.h>
#include <stdio.h>

#define N 500

int main(void)
{
    static int count[N];
    static long val[N];

#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N; i++) {
        count[i]++;
        long v = 0;
        for (int k = 0; k <= i % 17; k++)
            v += (long)k * i;
        val[i] = v;
    }
    int once = 1;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        sum += val[i];
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    printf("val[0,1,250,499] = %ld %ld %ld %ld\n", val[0], val[1], val[250], val[499]);
    return 0;
}
