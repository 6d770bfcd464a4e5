/* file_read_elsewhere.c: every thread reads a line of a file the master
 * opened.  Node 0's FILE is not another node's: ompdsm must stop the job
 * and say that such a file cannot be read there (it forwards writes to
 * node 0, not reads). */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    FILE *f = tmpfile();
    if (!f)
        return 1;
    for (int i = 0; i < 100; i++)
        fprintf(f, "line %d\n", i);
    rewind(f);
    int lines = 0;
#pragma omp parallel reduction(+ : lines)
    {
        char buf[64];
#pragma omp critical
        lines += fgets(buf, sizeof buf, f) != NULL;
    }
    printf("lines %d\n", lines);
    fclose(f);
    return 0;
}
