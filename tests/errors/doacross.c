/* doacross.c: an ordered(1) loop with depend(sink/source) (doacross). */
#include <stdio.h>

int a[100];

int main(void)
{
    a[0] = 1;
#pragma omp parallel for ordered(1)
    for (int i = 1; i < 100; i++) {
#pragma omp ordered depend(sink : i - 1)
        a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
    }
    printf("a[99] %d\n", a[99]);
    return 0;
}
