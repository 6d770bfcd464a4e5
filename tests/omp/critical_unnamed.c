/*
 * critical_unnamed: the unnamed critical region excludes all threads from
 * each other; a non-atomic read-modify-write of shared data (a counter and
 * a two-field invariant) inside it never loses an update.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long counter = 0;
    long a = 0, b = 0;     /* invariant inside the region: a == 2 * b */
    int broken = 0;

#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < 400; i++) {
#pragma omp critical
        {
            counter = counter + 1;
            if (a != 2 * b)
                broken = 1;
            b += i;
            a += 2 * i;
        }
    }
    printf("counter = %ld a = %ld b = %ld invariant held: %s\n", counter, a, b, broken ? "WRONG" : "ok");
    return 0;
}
