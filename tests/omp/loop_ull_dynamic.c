/*
 * loop_ull_dynamic: loops with unsigned long long iteration variables (the
 * GOMP_loop_ull_* entry points) run every iteration once with dynamic,
 * guided, static,chunk and runtime schedules, including bounds above 2^32
 * and 2^63 and a downward ull loop.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000ULL

int main(void)
{
    static int c1[N], c2[N], c3[N], c4[N], c5[N];
    unsigned long long s1 = 0, s2 = 0, s3 = 0;
    const unsigned long long big = 1ULL << 63;

#pragma omp parallel
    {
#pragma omp for schedule(dynamic) reduction(+ : s1)
        for (unsigned long long i = 0; i < N; i++) {
            c1[i]++;
            s1 += i * i;
        }
#pragma omp for schedule(guided, 3) reduction(+ : s2)
        for (unsigned long long i = big; i < big + N; i++) {
            c2[i - big]++;
            s2 += i >> 32;
        }
#pragma omp for schedule(dynamic, 7) reduction(+ : s3)
        for (unsigned long long i = (1ULL << 40) + N - 1; i >= (1ULL << 40); i--) {
            c3[i - (1ULL << 40)]++;
            s3 += i & 0xffff;
        }
#pragma omp for schedule(static, 11)
        for (unsigned long long i = 5000000000ULL; i < 5000000000ULL + 2 * N; i += 2)
            c4[(i - 5000000000ULL) / 2]++;
#pragma omp for schedule(runtime)
        for (unsigned long long i = 0; i < N; i++)
            c5[i]++;
    }
    int once = 1;
    for (unsigned long long i = 0; i < N; i++)
        once &= c1[i] == 1 && c2[i] == 1 && c3[i] == 1 && c4[i] == 1 && c5[i] == 1;
    printf("each iteration once: %s\n", once ? "ok" : "WRONG");
    printf("s1 = %llu\ns2 = %llu\ns3 = %llu\n", s1, s2, s3);
    return 0;
}
