/*
 * task_firstprivate: a task's firstprivate variables are captured when the
 * task is created: later changes by the creator do not affect the task,
 * and the task's changes do not affect the creator.  Variables that are
 * private in the enclosing context are firstprivate in the task by default.
 */
#include <omp.h>
#include <stdio.h>

#define N 64

int main(void)
{
    static int got[N], got_default[N];
    int x = 0;

#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < N; i++) {
            x = i * 10;
#pragma omp task firstprivate(x)
            {
                got[i] = x;
                x = -1;    /* private to the task */
            }
            int y = i + 5;  /* private in the creating context: firstprivate by default */
#pragma omp task
            got_default[i] = y;
            y = -100;
            (void)y;
        }
#pragma omp taskwait
    }
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= got[i] == i * 10 && got_default[i] == i + 5;
    printf("captured at creation: %s\n", ok ? "ok" : "WRONG");
    printf("creator's x after = %d\n", x);
    return 0;
}
