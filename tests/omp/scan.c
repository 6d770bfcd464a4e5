/*
 * scan: worksharing loops with a scan directive (reduction(inscan, ...)),
 * inclusive and exclusive, of an int and a double, combined and in a
 * region; and lastprivate(conditional:), whose last assignment wins
 * whichever thread made it.  GCC keeps each thread's value in memory the construct asks
 * of the runtime for the whole team.
 */
#include <omp.h>
#include <stdio.h>

enum { N = 20000 };
int a[N], inc[N], exc[N];
double x[N], dinc[N];

int main(void)
{
    for (int i = 0; i < N; i++) {
        a[i] = (i * 7) % 13 - 6;
        x[i] = (i % 5) * 0.25;
    }
    int s = 0;
#pragma omp parallel for reduction(inscan, + : s)
    for (int i = 0; i < N; i++) {
        s += a[i];
#pragma omp scan inclusive(s)
        inc[i] = s;
    }
    int t = 0;
    double d = 0;
#pragma omp parallel
    {
#pragma omp for reduction(inscan, + : t)
        for (int i = 0; i < N; i++) {
            exc[i] = t;
#pragma omp scan exclusive(t)
            t += a[i];
        }
#pragma omp for reduction(inscan, + : d)
        for (int i = 0; i < N; i++) {
            d += x[i];
#pragma omp scan inclusive(d)
            dinc[i] = d;
        }
    }
    unsigned long h = 0;
    for (int i = 0; i < N; i++)
        h = h * 31 + (unsigned long)(inc[i] + 3 * exc[i]) + (unsigned long)(4 * dinc[i]);
    printf("scan: %d %d %.2f hash %lu\n", s, t, d, h);

    int last = -1, when = -1;
#pragma omp parallel for lastprivate(conditional : last)
    for (int i = 0; i < N; i++)
        if (a[i] == 6)
            last = i;
#pragma omp parallel
    {
#pragma omp for lastprivate(conditional : when) schedule(dynamic, 7)
        for (int i = 0; i < N; i++)
            if (x[i] > 0.9 && i % 3 == 0)
                when = i;
    }
    printf("lastprivate(conditional:): %d %d\n", last, when);
    return 0;
}
