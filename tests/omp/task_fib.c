/*
 * task_fib: recursive task parallelism: fib(n) computed with two child
 * tasks per call and a taskwait, results passed back through shared
 * variables of the parent's frame.
 */
#include <omp.h>
#include <stdio.h>

static long fib(int n)
{
    long a, b;
    if (n < 2)
        return n;
    if (n < 12)
        return fib(n - 1) + fib(n - 2);
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

int main(void)
{
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(27);
    printf("fib(27) = %ld\n", r);
    return 0;
}
