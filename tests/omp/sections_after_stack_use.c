/* env: OMPDSM_MIGRATE=first */
/*
 * sections_after_stack_use: parallel sections constructs, each after the
 * master has filled a stretch of its stack, below its frame, with values
 * that change every time.  Whatever the runtime keeps of a construct must
 * not depend on what its stack held before: a sections construct has no
 * call site of its own, and if the runtime took one from uninitialised
 * stack, node 0 saw a new "loop" at every end of region where the other
 * nodes saw the same one, and with OMPDSM_MIGRATE=first it started a home
 * migration the other nodes did not join.  Each construct's sections
 * update a shared array; the sums must equal libgomp's.
 */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 40
#define N 4096

static long v[N];

/* Fills 32 KiB of stack below the caller's frame with values of round r. */
__attribute__((noinline)) static long scribble(int r)
{
    volatile unsigned long junk[4096];
    for (int i = 0; i < 4096; i++)
        junk[i] = 0x9e3779b97f4a7c15ul * (unsigned long)(r * 4096 + i + 1);
    return (long)junk[r % 4096] & 1;
}

static void add(int part, int r)
{
    for (int i = part * (N / 4); i < (part + 1) * (N / 4); i++)
        v[i] += (i ^ r) & 15;
}

/* The construct of round r, from a call depth of r % 7 frames that
 * scribble first, so that each round starts it from other stack. */
__attribute__((noinline)) static long round_at(int depth, int r)
{
    volatile char frame[512];
    frame[depth] = (char)r;
    if (depth > 0)
        return round_at(depth - 1, r) + frame[depth] - (char)r;
    long odd = scribble(r);
#pragma omp parallel sections
    {
#pragma omp section
        add(0, r);
#pragma omp section
        add(1, r);
#pragma omp section
        add(2, r);
#pragma omp section
        add(3, r);
    }
    return odd;
}

int main(void)
{
    long odd = 0;
    for (int r = 0; r < ROUNDS; r++)
        odd += round_at(r % 7, r);
    long sum = 0, weighted = 0;
    for (int i = 0; i < N; i++) {
        sum += v[i];
        weighted += v[i] * (i % 97);
    }
    printf("rounds %d odd %ld sum %ld weighted %ld\n", ROUNDS, odd, sum, weighted);
    return 0;
}
