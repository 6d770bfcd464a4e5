/* scan.c: a worksharing loop with a scan directive (reduction inscan),
 * which ompdsm does not run. */
#include <stdio.h>

int main(void)
{
    int a[1000], b[1000], s = 0;
    for (int i = 0; i < 1000; i++)
        a[i] = i % 7;
#pragma omp parallel for reduction(inscan, + : s)
    for (int i = 0; i < 1000; i++) {
        s += a[i];
#pragma omp scan inclusive(s)
        b[i] = s;
    }
    printf("%d %d\n", s, b[999]);
    return 0;
}
