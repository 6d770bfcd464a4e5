/*
 * single_copyprivate: copyprivate broadcasts the values of private
 * variables (an int, a double and a struct with an array) set by the
 * thread that executed the single block to the same private variables of
 * every other thread.
 */
#include <omp.h>
#include <stdio.h>

struct blob { int v[8]; long tag; };

int main(void)
{
    int bad = 0;

#pragma omp parallel reduction(+ : bad)
    {
        for (int round = 0; round < 5; round++) {
            int k;
            double d;
            struct blob b;
#pragma omp single copyprivate(k, d, b)
            {
                k = 100 + round;
                d = round * 0.25;
                for (int i = 0; i < 8; i++)
                    b.v[i] = round * 10 + i;
                b.tag = 1L << (30 + round);
            }
            bad += k != 100 + round || d != round * 0.25 || b.tag != 1L << (30 + round);
            for (int i = 0; i < 8; i++)
                bad += b.v[i] != round * 10 + i;
        }
    }
    printf("copyprivate reached every thread: %s\n", bad == 0 ? "ok" : "WRONG");
    return 0;
}
