/*
 * for_auto: schedule(auto) leaves the mapping to the implementation, but
 * every iteration must still run exactly once.
 */
#include <omp.h>
#include <stdio.h>

#define N 999

int main(void)
{
    static int count[N];
    static long val[N];

#pragma omp parallel for schedule(auto)
    for (int i = 0; i < N; i++) {
        count[i]++;
        val[i] = (long)(N - i) * (i + 1);
    }
    int once = 1;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        sum += val[i];
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
