/*
 * file_written_by_every_node: a file the master opens before a region is
 * written by every thread of the team (fprintf in an ordered loop, fputs,
 * fputc and fwrite under critical, an fflush), and read back by the master
 * after the region: no line is lost and the ordered lines are in order.
 * A file each thread opens for itself stays its own (written, then read
 * back with fgets by the same thread).
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define ITERS 40

int main(void)
{
    FILE *f = tmpfile();
    if (!f) {
        printf("tmpfile failed\n");
        return 1;
    }
    fprintf(f, "header\n");

#pragma omp parallel for ordered schedule(static, 1)
    for (int i = 0; i < ITERS; i++) {
#pragma omp ordered
        fprintf(f, "ordered %d\n", i);
    }

    int threads = 0, own_bad = 0;
#pragma omp parallel reduction(+ : own_bad)
    {
        int t = omp_get_thread_num();
#pragma omp single
        threads = omp_get_num_threads();
#pragma omp critical
        {
            char line[32];
            snprintf(line, sizeof line, "fwrite %d\n", t);
            fputs("fputs ", f);
            fputc('x', f);
            fputc('\n', f);
            fwrite(line, 1, strlen(line), f);
        }
#pragma omp barrier
#pragma omp single
        fflush(f);

        FILE *mine = tmpfile();
        char got[64] = "";
        if (mine) {
            fprintf(mine, "thread %d\n", t);
            rewind(mine);
            if (!fgets(got, sizeof got, mine))
                got[0] = '\0';
            fclose(mine);
        }
        char want[64];
        snprintf(want, sizeof want, "thread %d\n", t);
        own_bad += strcmp(got, want) != 0;
    }

    rewind(f);
    char line[64];
    int next = 0, ordered_bad = 0, header = 0, fputs_lines = 0, fwrite_lines = 0;
    long fwrite_sum = 0;
    while (fgets(line, sizeof line, f)) {
        int v;
        if (!strcmp(line, "header\n"))
            header++;
        else if (sscanf(line, "ordered %d", &v) == 1)
            ordered_bad += v != next++;
        else if (!strcmp(line, "fputs x\n"))
            fputs_lines++;
        else if (sscanf(line, "fwrite %d", &v) == 1)
            fwrite_lines++, fwrite_sum += v;
        else
            ordered_bad++;
    }
    fclose(f);
    printf("header: %s\n", header == 1 ? "ok" : "WRONG");
    printf("ordered lines in order: %s (%d)\n", !ordered_bad && next == ITERS ? "ok" : "WRONG", next);
    printf("a line of every thread: %s\n",
           fputs_lines == threads && fwrite_lines == threads && fwrite_sum == (long)threads * (threads - 1) / 2
               ? "ok"
               : "WRONG");
    printf("each thread's own file: %s\n", own_bad ? "WRONG" : "ok");
    return 0;
}
