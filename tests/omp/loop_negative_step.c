/*
 * loop_negative_step: loops counting down, with step -1 and -3, and with
 * negative bounds, run exactly the sequential iterations under static,
 * static,chunk, dynamic and guided schedules; lastprivate gets the final
 * value of the variable.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void)
{
    static int c1[N], c2[N], c3[N], c4[N];
    int last = 0, iv = 0;

#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = N - 1; i >= 0; i--)
            c1[i]++;
#pragma omp for schedule(static, 4)
        for (int i = N - 1; i >= 0; i -= 3)
            c2[i]++;
#pragma omp for schedule(dynamic, 5)
        for (int i = -1; i > -N - 1; i--)
            c3[-1 - i]++;
#pragma omp for schedule(guided) lastprivate(last, iv)
        for (iv = N - 2; iv > -5; iv -= 3) {
            if (iv >= 0)
                c4[iv]++;
            last = iv;
        }
    }
    int ok1 = 1, ok2 = 1, ok3 = 1, ok4 = 1;
    for (int i = 0; i < N; i++) {
        ok1 &= c1[i] == 1;
        ok2 &= c2[i] == ((N - 1 - i) % 3 == 0);
        ok3 &= c3[i] == 1;
        ok4 &= c4[i] == ((N - 2 - i) % 3 == 0 && i <= N - 2);
    }
    printf("step -1 static: %s\n", ok1 ? "ok" : "WRONG");
    printf("step -3 static,4: %s\n", ok2 ? "ok" : "WRONG");
    printf("negative bounds dynamic,5: %s\n", ok3 ? "ok" : "WRONG");
    printf("step -3 guided: %s, last = %d, iv = %d\n", ok4 ? "ok" : "WRONG", last, iv);
    return 0;
}
