/*
 * for_dynamic_chunk: schedule(dynamic, 16) runs every iteration once and
 * hands out whole chunks: the 16 iterations of one chunk (the last may be
 * shorter) all run on the same thread.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000
#define CHUNK 16

int main(void)
{
    static int count[N], owner[N];
    static long val[N];

#pragma omp parallel
    {
#pragma omp for schedule(dynamic, CHUNK)
        for (int i = 0; i < N; i++) {
            count[i]++;
            owner[i] = omp_get_thread_num();
            val[i] = (long)i * 3 - 7;
        }
    }
    int once = 1, whole = 1;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        whole &= owner[i] == owner[i - i % CHUNK];
        sum += val[i];
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("chunks are whole: %s\n", whole ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
