/*
 * for_guided: schedule(guided, 4) runs every iteration exactly once; each
 * chunk handed out is contiguous and, except possibly the last, at least 4
 * iterations long (checked by recording which chunk start each iteration
 * belonged to).
 */
#include <omp.h>
#include <stdio.h>

#define N 2000

int main(void)
{
    static int count[N], first[N];
    static long val[N];

#pragma omp parallel
    {
        int prev = -2, start = -1;
#pragma omp for schedule(guided, 4)
        for (int i = 0; i < N; i++) {
            if (i != prev + 1)
                start = i;
            prev = i;
            count[i]++;
            first[i] = start;
            val[i] = (long)(i % 100) * (i % 7);
        }
    }
    int once = 1, ok = 1;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        once &= count[i] == 1;
        sum += val[i];
    }
    /* a chunk run by one thread may merge with the thread's next chunk when
     * they are adjacent, so only check that every recorded run is >= 4 long
     * unless it ends the loop */
    for (int i = 0; i < N;) {
        int s = first[i], j = i;
        while (j < N && first[j] == s)
            j++;
        ok &= s == i && (j - i >= 4 || j == N);
        i = j;
    }
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("chunks contiguous, >= 4 except the last: %s\n", ok ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
