/*
 * task_depend: depend(out/in/inout) order sibling tasks.  Chains of tasks
 * over a few variables, made by one thread, must see every earlier writer's
 * value: each step checks what it reads against the order the clauses
 * impose, whichever thread or node runs it.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int a = 0, b = 0, c = 0, errors = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int step = 1; step <= 20; step++) {
#pragma omp task depend(out : a) firstprivate(step) shared(a, errors)
            {
                if (a != (step - 1) * 10)
                    errors++;
                a = step * 10 - 5;
            }
#pragma omp task depend(inout : a) firstprivate(step) shared(a, errors)
            {
                if (a != step * 10 - 5)
                    errors++;
                a += 5;
            }
#pragma omp task depend(in : a) depend(out : b) firstprivate(step) shared(a, b, errors)
            {
                if (a != step * 10)
                    errors++;
                b = a + 1;
            }
#pragma omp task depend(in : a) depend(out : c) firstprivate(step) shared(a, c, errors)
            {
                if (a != step * 10)
                    errors++;
                c = a + 2;
            }
#pragma omp task depend(in : b, c) firstprivate(step) shared(b, c, errors)
            {
                if (b != step * 10 + 1 || c != step * 10 + 2)
                    errors++;
            }
        }
#pragma omp taskwait
    }
    printf("a %d b %d c %d errors %d\n", a, b, c, errors);
    return 0;
}
