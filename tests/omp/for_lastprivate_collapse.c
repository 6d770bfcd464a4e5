/*
 * for_lastprivate_collapse: lastprivate on a collapse(2) loop gets the
 * values of the last (i, j) iteration, and the loop variables end as a
 * sequential nest leaves them.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int i, j, last = -1;

#pragma omp parallel for collapse(2) lastprivate(i, j, last) schedule(dynamic, 3)
    for (i = 0; i < 20; i++)
        for (j = 0; j < 13; j++)
            last = i * 1000 + j;
    printf("last = %d i = %d j = %d\n", last, i, j);
    return 0;
}
