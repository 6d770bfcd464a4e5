/*
 * api_affinity_teams: the routines of OpenMP 5.0 and 5.1 that a program
 * may call without teams, devices or places: the affinity format
 * (omp_get_affinity_format's default and truncation, omp_capture_affinity's
 * fields, widths and length, per thread inside a region), the place
 * queries, the teams ICVs and omp_pause_resource.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char buf[128];
    size_t n = omp_get_affinity_format(buf, sizeof buf);
    printf("default format: '%s' (%zu)\n", buf, n);
    n = omp_capture_affinity(buf, sizeof buf, "%L|%n|%N|%a|%t|%T|%%|%0.4n|%.3L|%3n|%{thread_num}|%{nesting_level}");
    printf("outside: '%s' (%zu)\n", buf, n);
    n = omp_capture_affinity(buf, 6, "level %L of %N threads");
    printf("truncated: '%s' (%zu)\n", buf, n);
    omp_set_affinity_format("thread %n of %N at level %L");
    n = omp_get_affinity_format(buf, 10);
    printf("set format: '%s' (%zu)\n", buf, n);
    int wrong = 0;
#pragma omp parallel reduction(+ : wrong)
    {
        char mine[128], want[128];
        omp_capture_affinity(mine, sizeof mine, NULL);
        snprintf(want, sizeof want, "thread %d of %d at level 1", omp_get_thread_num(), omp_get_num_threads());
        wrong += strcmp(mine, want) != 0;
        omp_capture_affinity(mine, sizeof mine, "%a|%{ancestor_tnum}|%0.3L");
        wrong += strcmp(mine, "0|0|001") != 0;
    }
    printf("in a region: wrong %d\n", wrong);
    printf("places: %d, place %d, procs %d, partition %d\n", omp_get_num_places(), omp_get_place_num(),
           omp_get_place_num_procs(0), omp_get_partition_num_places());
    printf("teams: %d %d", omp_get_max_teams(), omp_get_teams_thread_limit());
    omp_set_num_teams(3);
    omp_set_teams_thread_limit(5);
    printf(" -> %d %d\n", omp_get_max_teams(), omp_get_teams_thread_limit());
    printf("pause: host %d, all %d, device 7 %d\n", omp_pause_resource(omp_pause_soft, omp_get_initial_device()),
           omp_pause_resource_all(omp_pause_hard), omp_pause_resource(omp_pause_soft, 7));
    return 0;
}
