/*
 * taskgroup: the end of a taskgroup waits for all tasks created in it,
 * including descendants of those tasks (which taskwait would not).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    static int leaf[10][10];
    long sum = 0;

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
            for (int i = 0; i < 10; i++) {
#pragma omp task firstprivate(i)
                {
                    for (int j = 0; j < 10; j++) {
#pragma omp task firstprivate(i, j)
                        leaf[i][j] = i * 10 + j + 1;
                    }
                }
            }
        }
        for (int i = 0; i < 10; i++)
            for (int j = 0; j < 10; j++)
                sum += leaf[i][j];
    }
    printf("sum of grandchildren after taskgroup = %ld\n", sum);
    return 0;
}
