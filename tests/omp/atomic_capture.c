/*
 * atomic_capture: atomic capture hands out each old value exactly once:
 * N captures of {v = x; x++;} on an int, {x += 3; v = x;} on a long and
 * {v = x; x += 1.0;} on a double give the values 0..N-1 (resp. 3..3N,
 * 0.0..N-1) each exactly once, and the final x counts all updates.
 */
#include <omp.h>
#include <stdio.h>

#define N 1200

int main(void)
{
    static int gi[N];
    static long gl[N];
    static double gd[N];
    int xi = 0;
    long xl = 0;
    double xd = 0.0;

#pragma omp parallel for schedule(dynamic, 5)
    for (int i = 0; i < N; i++) {
        int vi;
        long vl;
        double vd;
#pragma omp atomic capture
        {
            vi = xi;
            xi++;
        }
#pragma omp atomic capture
        {
            xl += 3;
            vl = xl;
        }
#pragma omp atomic capture
        {
            vd = xd;
            xd += 1.0;
        }
        gi[vi]++;
        gl[vl / 3 - 1]++;
        gd[(int)vd] += 1.0;
    }
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= gi[i] == 1 && gl[i] == 1 && gd[i] == 1.0;
    printf("every captured value distinct: %s\n", ok ? "ok" : "WRONG");
    printf("final: %d %ld %.1f\n", xi, xl, xd);
    return 0;
}
