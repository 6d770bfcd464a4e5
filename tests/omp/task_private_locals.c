/*
 * task_private_locals: every thread makes tasks that write into its own
 * local array (declared inside the parallel region, shared into the tasks)
 * and waits for them; the sums must be right whichever thread or node runs
 * the tasks.  Locals of threads whose stack is private to their node keep
 * such tasks on that node.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        int me = omp_get_thread_num();
        long part[16];
        for (int i = 0; i < 16; i++) {
#pragma omp task shared(part) firstprivate(i, me)
            {
                long s = 0;
                for (int k = 0; k <= 1000 * i; k++)
                    s += k % 7 + me;
                part[i] = s;
            }
        }
#pragma omp taskwait
        for (int i = 0; i < 16; i++)
            total += part[i] - me * (1000L * i + 1);
    }
    printf("total per thread %ld\n", total / omp_get_max_threads());
    return 0;
}
