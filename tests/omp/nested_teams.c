/*
 * nested_teams: parallel regions inside parallel regions with nesting on
 * (omp_set_nested, omp_set_max_active_levels): each outer thread's inner
 * team has the threads it asks for, with their own numbers, levels and
 * ancestors; dynamic, guided and ordered loops, sections, single with
 * copyprivate, reductions and tasks run inside the inner teams; a third
 * level beyond omp_set_max_active_levels(2) runs one thread; and
 * omp_set_num_threads in a region sizes only the calling thread's nested
 * teams.  Every outer thread's results are printed in turn.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

#define OUTER_MAX 64

static long sums[OUTER_MAX][3];
static int info[OUTER_MAX][3][4];
static int ordered_ok[OUTER_MAX], copied[OUTER_MAX][4], sections[OUTER_MAX], set_sizes[OUTER_MAX];
static long reduced[OUTER_MAX], tasked[OUTER_MAX];
static int third[OUTER_MAX][3];

int main(void)
{
    omp_set_nested(1);
    omp_set_max_active_levels(2);
    printf("nested %d, max active levels above 1: %d\n", omp_get_nested(), omp_get_max_active_levels() > 1);
    int counter = 0, outer_n = 0;
#pragma omp parallel shared(counter)
    {
#pragma omp single
        outer_n = omp_get_num_threads();
#pragma omp critical
        counter++;
#pragma omp parallel num_threads(3)
        {
#pragma omp critical
            counter--;
        }
    }
    printf("counter + 2 x outer threads: %d\n", counter + 2 * outer_n);

#pragma omp parallel
    {
        int o = omp_get_thread_num();
        if (o < OUTER_MAX) {
#pragma omp parallel num_threads(3)
            {
                int i = omp_get_thread_num();
                info[o][i][0] = omp_get_level() * 10 + omp_get_active_level();
                info[o][i][1] = omp_get_ancestor_thread_num(1) - o + 10 * omp_get_ancestor_thread_num(2);
                info[o][i][2] = omp_get_team_size(2) * 10 + omp_get_num_threads();
                info[o][i][3] = omp_in_parallel();
#pragma omp for schedule(dynamic, 7)
                for (int k = 0; k < 1000; k++) {
#pragma omp atomic
                    sums[o][k % 3] += k;
                }
            }
        }
    }

#pragma omp parallel
    {
        int o = omp_get_thread_num();
        int next = 0;
        long r = 0;
        int s = 0;
        if (o < OUTER_MAX) {
#pragma omp parallel num_threads(4) firstprivate(o)
            {
                int v;
#pragma omp single copyprivate(v)
                v = 100 + o;
                copied[o][omp_get_thread_num()] = v;
#pragma omp for ordered schedule(dynamic, 2)
                for (int k = 0; k < 50; k++) {
#pragma omp ordered
                    {
                        if (next != k)
                            next = -1000;
                        else
                            next = k + 1;
                    }
                }
#pragma omp for schedule(guided) reduction(+ : r)
                for (int k = 0; k < 10000; k++)
                    r += k + o;
#pragma omp sections reduction(+ : s)
                {
#pragma omp section
                    s += 1;
#pragma omp section
                    s += 2;
#pragma omp section
                    s += 4;
                }
#pragma omp single
                {
                    long a = 0, b = 0;
#pragma omp task shared(a)
                    a = 20 + o;
#pragma omp task shared(b)
                    b = 22;
#pragma omp taskwait
                    tasked[o] = a * b;
                }
#pragma omp parallel num_threads(2)
                {
#pragma omp master
                    third[o][omp_get_ancestor_thread_num(2) % 3] = omp_get_num_threads() * 100 + omp_get_level() * 10 + omp_get_active_level();
                }
            }
            ordered_ok[o] = next == 50;
            reduced[o] = r;
            sections[o] = s;
            omp_set_num_threads(o % 3 + 1);
#pragma omp parallel
            {
#pragma omp master
                set_sizes[o] = omp_get_num_threads();
            }
        }
    }

    for (int o = 0; o < outer_n && o < OUTER_MAX; o++) {
        printf("outer thread %d:", o);
        for (int i = 0; i < 3; i++)
            printf(" [sum %ld level %d ancestors %d sizes %d in parallel %d]", sums[o][i], info[o][i][0],
                   info[o][i][1], info[o][i][2], info[o][i][3]);
        printf("\n  ordered %d copyprivate %d %d %d %d reduction %ld sections %d tasks %ld third %d %d %d set %d\n",
               ordered_ok[o], copied[o][0] - o, copied[o][1] - o, copied[o][2] - o, copied[o][3] - o,
               reduced[o] - 10000L * o, sections[o], tasked[o] - 22L * o, third[o][0], third[o][1], third[o][2],
               set_sizes[o]);
    }
    return 0;
}
