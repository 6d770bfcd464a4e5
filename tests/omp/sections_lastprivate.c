/*
 * sections_lastprivate: lastprivate on sections takes the value from the
 * lexically last section; firstprivate gives every section the original
 * value; parallel sections (the combined form) behaves the same.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int x = -1, f = 100, a = 0, b = 0, c = 0;

#pragma omp parallel
#pragma omp sections lastprivate(x) firstprivate(f)
    {
#pragma omp section
        { x = 1; a = f + 1; }
#pragma omp section
        { x = 2; b = f + 2; }
#pragma omp section
        { x = 3; c = f + 3; }
    }
    printf("x = %d (from last section), a b c = %d %d %d\n", x, a, b, c);

    int y = 0;
    long s1 = 0, s2 = 0;
#pragma omp parallel sections lastprivate(y)
    {
#pragma omp section
        { y = 10; for (int i = 0; i < 1000; i++) s1 += i; }
#pragma omp section
        { y = 20; for (int i = 0; i < 1000; i++) s2 += 2 * i; }
    }
    printf("parallel sections: y = %d s1 = %ld s2 = %ld\n", y, s1, s2);
    return 0;
}
