/* detach.c: a task with the detach clause (fulfilled by omp_fulfill_event),
 * which ompdsm does not run; the program must still link. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int x = 0;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) shared(x)
        x = 1;
#pragma omp task
        omp_fulfill_event(ev);
    }
    printf("x %d\n", x);
    return 0;
}
