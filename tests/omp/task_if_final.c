/*
 * task_if_final: if(0) makes an undeferred task, final(1) makes its
 * descendants included; omp_in_final reports it.  The results are the
 * same as for ordinary tasks.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int a = 0, b = 0, in_final = -1, in_final_child = -1, outside_final = -1;

#pragma omp parallel
#pragma omp single
    {
        outside_final = omp_in_final();
#pragma omp task if (0) shared(a)
        a = 5;
#pragma omp task final(1) shared(b, in_final, in_final_child)
        {
            in_final = omp_in_final();
#pragma omp task shared(b, in_final_child)
            {
                in_final_child = omp_in_final();
                b = 7;
            }
        }
#pragma omp taskwait
    }
    printf("a = %d b = %d\n", a, b);
    printf("omp_in_final: outside %d, final task %d, its child %d\n", outside_final, in_final != 0,
           in_final_child != 0);
    return 0;
}
