/*
 * taskwait_depend: `taskwait depend(...)` waits for the sibling tasks its
 * clauses name (which may run on any node) and sees what they wrote, while
 * other siblings may still run; mutexinoutset tasks of one variable run
 * one at a time, and an `in` task after them sees all of their updates.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

static long work(long i)
{
    volatile long x = 0;
    for (long k = 0; k < 200000; k++)
        x += k ^ i;
    return x & 1;
}

int main(void)
{
    long a = 0, b = 0, c[4] = { 0 }, sum = 0, seen_a = -1, seen_c = -1;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : a) shared(a)
        a = 41 + work(1) * 0 + 1;
#pragma omp task depend(out : b) shared(b)
        b = 7 + work(2) * 0;
        for (int k = 0; k < 4; k++) {
#pragma omp task depend(inout : c[k]) shared(c) firstprivate(k)
            c[k] += k * 10 + work(k) * 0;
        }
#pragma omp taskwait depend(in : a)
        seen_a = a;
#pragma omp taskwait depend(in : c[0], c[1], c[2], c[3])
        seen_c = c[0] + c[1] + c[2] + c[3];
        for (int i = 0; i < 20; i++) {
#pragma omp task depend(mutexinoutset : sum) shared(sum) firstprivate(i)
            sum += i + work(i) * 0;
        }
#pragma omp taskwait depend(inout : sum)
        sum *= 2;
#pragma omp taskwait
    }
    printf("a %ld (seen %ld), b %ld, c %ld (seen %ld), sum %ld\n", a, seen_a, b, c[0] + c[1] + c[2] + c[3], seen_c,
           sum);
    return 0;
}
