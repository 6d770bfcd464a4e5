/* nested_doacross.c: a doacross loop (ordered(1) with depend clauses)
 * inside a nested team, which ompdsm does not run: it must stop with a
 * message, not hang or give a wrong answer. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    static int a[100];
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel for ordered(1) num_threads(2)
        for (int i = 1; i < 100; i++) {
#pragma omp ordered depend(sink : i - 1)
            a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
        }
    }
    printf("%d\n", a[99]);
    return 0;
}
