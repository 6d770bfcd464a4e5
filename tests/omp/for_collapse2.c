/*
 * for_collapse2: collapse(2) turns a 2-level nest (with non-rectangular
 * sizes 37 x 23) into one iteration space; every (i, j) pair runs once,
 * with static and dynamic schedules.
 */
#include <omp.h>
#include <stdio.h>

#define NI 37
#define NJ 23

int main(void)
{
    static int cs[NI][NJ], cd[NI][NJ];
    static long v[NI][NJ];

#pragma omp parallel
    {
#pragma omp for collapse(2) schedule(static)
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < NJ; j++) {
                cs[i][j]++;
                v[i][j] = (long)i * 100 + j;
            }
#pragma omp for collapse(2) schedule(dynamic, 5)
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < NJ; j++)
                cd[i][j]++;
    }
    int once = 1;
    long sum = 0;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            once &= cs[i][j] == 1 && cd[i][j] == 1;
            sum += v[i][j];
        }
    printf("each (i,j) once, static and dynamic: %s\n", once ? "ok" : "WRONG");
    printf("sum = %ld\n", sum);
    return 0;
}
