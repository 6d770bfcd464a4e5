/* teams.c: uses #pragma omp teams, which ompdsm does not run. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int n = 0;
#pragma omp teams num_teams(2)
    if (omp_get_team_num() == 0)
        n = omp_get_num_teams();
    printf("n %d\n", n);
    return 0;
}
