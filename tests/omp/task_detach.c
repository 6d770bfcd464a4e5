/*
 * task_detach.c: tasks with a detach clause, which complete when their body
 * is done and their event fulfilled: an event fulfilled by another task,
 * by the creating thread, by the task itself, and by an included task's
 * own body; a task that depends on a detached one runs only after the
 * fulfilment (it must see what the fulfilling task wrote before); and many
 * detached tasks whose events other tasks fulfil in reverse order, on any
 * thread of any node.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

enum { MANY = 40 };

int main(void)
{
    int x = 0, y = 0, a = 0, b = 0, c = 0, own = 0, inc = 0;
    long sum = 0;
    static omp_event_handle_t events[MANY];
    static int done[MANY];
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev, dep_ev, own_ev, mine, inc_ev;
#pragma omp task detach(ev) shared(x)
        x = 1;
#pragma omp task shared(y) firstprivate(ev)
        {
            y = 2;
            omp_fulfill_event(ev);
        }

#pragma omp task detach(dep_ev) depend(out : a) shared(a)
        a = 10;
#pragma omp task depend(in : a) shared(a, b, c)
        b = a + c;
#pragma omp task shared(c) firstprivate(dep_ev)
        {
            c = 5;
            omp_fulfill_event(dep_ev);
        }

#pragma omp task detach(own_ev) shared(own)
        {
            own = 7;
            omp_fulfill_event(own_ev);
        }

#pragma omp task detach(mine) shared(sum)
        {
#pragma omp atomic
            sum += 1000;
        }
        omp_fulfill_event(mine);

#pragma omp task detach(inc_ev) if(0) shared(inc)
        {
            inc = 3;
            omp_fulfill_event(inc_ev);
        }

        for (int i = 0; i < MANY; i++) {
            omp_event_handle_t e;
#pragma omp task detach(e) shared(sum)
            {
                done[i] = 1;
#pragma omp atomic
                sum += i;
            }
            events[i] = e;
        }
        for (int i = MANY - 1; i >= 0; i--) {
#pragma omp task
            omp_fulfill_event(events[i]);
        }
#pragma omp taskwait
    }
    int all = 0;
    for (int i = 0; i < MANY; i++)
        all += done[i];
    printf("fulfilled by another task: x %d y %d\n", x, y);
    printf("after a detached task: b %d (a %d, c %d)\n", b, a, c);
    printf("by itself: %d; included: %d\n", own, inc);
    printf("many: %d done, sum %ld\n", all, sum);
    return 0;
}
