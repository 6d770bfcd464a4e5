/*
 * global_struct_array: a global array of structs (mixed int/double/array
 * fields, not page aligned) updated field by field by different threads;
 * neighbouring structs written by different threads on the same page do
 * not clobber each other, and all fields read back as the sequential
 * program would write them.
 */
#include <omp.h>
#include <stdio.h>

#define N 3000

struct particle {
    int id;
    char tag;
    double pos[3];
    long hits;
};

struct particle parts[N];

int main(void)
{
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < N; i++) {
        parts[i].id = i;
        parts[i].tag = (char)('a' + i % 26);
        for (int d = 0; d < 3; d++)
            parts[i].pos[d] = i * 0.125 + d;
        parts[i].hits = 0;
    }
    for (int step = 0; step < 3; step++) {
#pragma omp parallel for schedule(dynamic, 17)
        for (int i = 0; i < N; i++) {
            parts[i].pos[step] += 1.0;
            parts[i].hits += i % 5;
        }
    }
    long ids = 0, hits = 0, tags = 0;
    double pos = 0;
    for (int i = 0; i < N; i++) {
        ids += parts[i].id;
        hits += parts[i].hits;
        tags += parts[i].tag;
        pos += parts[i].pos[0] + parts[i].pos[1] + parts[i].pos[2];
    }
    printf("ids = %ld hits = %ld tags = %ld pos = %.3f\n", ids, hits, tags, pos);
    printf("parts[1234] = %d %c %.3f %.3f %.3f %ld\n", parts[1234].id, parts[1234].tag, parts[1234].pos[0],
           parts[1234].pos[1], parts[1234].pos[2], parts[1234].hits);
    return 0;
}
