/*
 * print_return3: prints lines before, in and after a parallel region and
 * returns 3 from main(): every line must come out and the job's status be
 * 3, with nothing said on standard error (tests/output).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long sum = 0;
    for (int i = 0; i < 20; i++)
        printf("before %d\n", i);
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 1000; i++)
        sum += i;
    printf("sum %ld\n", sum);
    for (int i = 0; i < 20; i++)
        printf("after %d\n", i);
    return 3;
}
