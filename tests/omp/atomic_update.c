/*
 * atomic_update: atomic update (x++, x += e, x -= e, x *= e, x |= e,
 * x = x op e) of shared int, long and double variables never loses an
 * update when every thread hammers the same variables.
 */
#include <omp.h>
#include <stdio.h>

#define N 2000

int main(void)
{
    int ci = 0, bits = 0;
    long cl = 0, pl = 1;
    double cd = 0.0, cd2 = 100.0;

#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < N; i++) {
#pragma omp atomic
        ci++;
#pragma omp atomic update
        cl += (long)i << 20;
#pragma omp atomic
        cd += 0.5;
#pragma omp atomic
        cd2 -= 0.25;
#pragma omp atomic
        bits |= 1 << (i % 31);
        if (i % 100 == 0) {
#pragma omp atomic
            pl *= 2;
        }
#pragma omp atomic
        ci = ci + 2;
    }
    printf("int ++ and = x + 2: %d\n", ci);
    printf("long +=: %ld\n", cl);
    printf("long *=: %ld\n", pl);
    printf("double +=: %.6f\n", cd);
    printf("double -=: %.6f\n", cd2);
    printf("int |=: %d\n", bits);
    return 0;
}
