/*
 * nested_inside_loops: parallel regions started inside the worksharing
 * constructs of a team, with nesting off (each runs one thread) and on (a
 * team of its own): a dynamic, a guided and an ordered loop and sections
 * whose bodies each run a region with a dynamic loop of its own.  The
 * enclosing construct must go on where it was: every row once, every
 * ordered part in turn, every section once.  (A region of one thread used
 * to take over its thread's state of the enclosing loop: at 1 node the
 * dynamic loop ran 1 row of 40, at 2 nodes 99.)
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

static long inner_sum(int i)
{
    long s = 0;
#pragma omp parallel for schedule(dynamic, 3) reduction(+ : s) num_threads(2)
    for (int j = 0; j < 100; j++)
        s += j + i;
    return s;
}

int main(void)
{
    for (int levels = 1; levels <= 2; levels++) {
        omp_set_max_active_levels(levels);
        long total = 0, guided = 0;
        int rows = 0, next = 0, in_turn = 1, sections = 0;
#pragma omp parallel reduction(+ : total, rows, guided, sections)
        {
#pragma omp for schedule(dynamic, 1)
            for (int i = 0; i < 40; i++) {
                rows++;
                total += inner_sum(i);
            }
#pragma omp for schedule(guided, 2)
            for (int i = 0; i < 57; i++)
                guided += inner_sum(i) - 4950;
#pragma omp for ordered schedule(dynamic, 2)
            for (int i = 0; i < 30; i++) {
                long s = inner_sum(i);
#pragma omp ordered
                {
                    if (next != i || s != 4950 + 100L * i)
                        in_turn = 0;
                    next = i + 1;
                }
            }
#pragma omp sections
            {
#pragma omp section
                sections += inner_sum(0) == 4950;
#pragma omp section
                sections += 10 * (inner_sum(1) == 5050);
#pragma omp section
                sections += 100 * (inner_sum(2) == 5150);
            }
        }
        printf("max active levels %d: rows %d total %ld guided %ld ordered in turn %d (%d parts) sections %d\n",
               levels, rows, total, guided, in_turn, next, sections);
    }
    return 0;
}
