/*
 * api_query: the query routines agree with the structure of the program:
 * outside any region omp_in_parallel() is 0, the level and active level
 * are 0, and there is one thread (number 0); inside a region of n =
 * omp_get_max_threads() threads the level is 1, omp_in_parallel() is true
 * exactly when n > 1 (an active region), omp_get_team_size(1) is n and
 * omp_get_ancestor_thread_num(1) is the thread number, and
 * omp_get_max_threads() is n still.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int max = omp_get_max_threads();
    int bad = 0;

    printf("outside: in_parallel=%d level=%d active_level=%d num_threads=%d thread_num=%d\n",
           omp_in_parallel(), omp_get_level(), omp_get_active_level(), omp_get_num_threads(),
           omp_get_thread_num());
    printf("outside: ancestor(0)=%d team_size(0)=%d\n", omp_get_ancestor_thread_num(0),
           omp_get_team_size(0));
    printf("max_threads >= 1: %s\n", max >= 1 ? "ok" : "WRONG");
    printf("num_procs >= 1: %s\n", omp_get_num_procs() >= 1 ? "ok" : "WRONG");
#pragma omp parallel reduction(+ : bad)
    {
        int n = omp_get_num_threads(), me = omp_get_thread_num();
        bad += n != max;
        bad += omp_get_level() != 1;
        bad += omp_get_active_level() != (n > 1);
        bad += (omp_in_parallel() != 0) != (n > 1);
        bad += omp_get_team_size(1) != n;
        bad += omp_get_ancestor_thread_num(1) != me;
        bad += omp_get_ancestor_thread_num(0) != 0;
        bad += omp_get_team_size(0) != 1;
        bad += omp_get_ancestor_thread_num(2) != -1;
        bad += omp_get_max_threads() != max;
    }
    printf("inside: queries consistent on every thread: %s\n", bad == 0 ? "ok" : "WRONG");
    printf("after: level=%d in_parallel=%d\n", omp_get_level(), omp_in_parallel());
    return 0;
}
