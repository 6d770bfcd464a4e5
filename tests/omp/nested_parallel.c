/*
 * nested_parallel: a parallel region inside a parallel region (nesting not
 * requested) runs with a team of one thread: in it omp_get_num_threads()
 * is 1, omp_get_thread_num() is 0, omp_get_level() is 2 and the active
 * level stays that of the outer region; its work and its worksharing loops
 * still run completely, and omp_get_ancestor_thread_num(1) is the outer
 * thread number.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    static long part[64];
    int bad = 0;

#pragma omp parallel reduction(+ : bad)
    {
        int outer = omp_get_thread_num();
        int outer_active = omp_get_active_level();
        long local = 0;
#pragma omp parallel reduction(+ : local) shared(bad)
        {
            if (omp_get_num_threads() != 1 || omp_get_thread_num() != 0 || omp_get_level() != 2 ||
                omp_get_active_level() != outer_active || omp_get_ancestor_thread_num(1) != outer)
                bad++;
#pragma omp for
            for (int i = 0; i < 100; i++)
                local += i;
#pragma omp single
            local += 1;
        }
        part[outer] = local;
    }
    int n = omp_get_max_threads(), ok = 1;
    for (int t = 0; t < n; t++)
        ok &= part[t] == 4951;
    printf("inner teams of one thread, queries consistent: %s\n", bad == 0 ? "ok" : "WRONG");
    printf("inner work complete on every outer thread: %s\n", ok ? "ok" : "WRONG");
    return 0;
}
