/*
 * icv_task_scope: the ICVs OpenMP keeps per task, as libgomp keeps them.
 * omp_set_num_threads with a count below 1 means 1; what a thread sets
 * inside a region with omp_set_num_threads, omp_set_schedule,
 * omp_set_dynamic or omp_set_max_active_levels is gone when the region
 * ends (it used to stay: the schedule thread 0 set in a region was the
 * program's from then on).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    omp_set_num_threads(0);
    printf("after omp_set_num_threads(0): max threads %d\n", omp_get_max_threads());
    omp_set_num_threads(-3);
    int n = 0;
#pragma omp parallel
#pragma omp master
    n = omp_get_num_threads();
    printf("after omp_set_num_threads(-3): a team of %d\n", n);

    omp_set_num_threads(2);
    omp_set_schedule(omp_sched_dynamic, 4);
    omp_set_dynamic(0);
    omp_set_max_active_levels(1);
    int in_region = 0;
#pragma omp parallel
    {
#pragma omp master
        {
            omp_set_num_threads(3);
            omp_set_schedule(omp_sched_guided, 7);
            omp_set_dynamic(1);
            omp_set_max_active_levels(4);
            in_region = omp_get_max_threads();
        }
    }
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    printf("in the region: max threads %d; after it: max threads %d, schedule %d,%d, dynamic %d, "
           "max active levels %d\n",
           in_region, omp_get_max_threads(), (int)kind, chunk, omp_get_dynamic(), omp_get_max_active_levels());
    return 0;
}
