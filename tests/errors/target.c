/* target.c: uses #pragma omp target, which ompdsm does not run. */
#include <stdio.h>

int main(void)
{
    int x = 0;
#pragma omp target map(tofrom : x)
    x = 42;
    printf("x %d\n", x);
    return 0;
}
