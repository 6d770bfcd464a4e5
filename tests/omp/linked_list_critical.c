/*
 * linked_list_critical: threads malloc list nodes inside the parallel
 * region and push them on a shared list under a critical section; the
 * list ends up holding every value exactly once (printed sorted), and the
 * nodes allocated by any thread are readable by the thread that frees them.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

struct node { int value; struct node *next; };

static int cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(void)
{
    struct node *head = NULL;

#pragma omp parallel for schedule(dynamic, 3)
    for (int i = 0; i < 120; i++) {
        struct node *n = malloc(sizeof *n);
        n->value = (i * 37) % 120 + 1000;
#pragma omp critical(list)
        {
            n->next = head;
            head = n;
        }
    }
    int vals[200], count = 0;
    while (head && count < 200) {
        struct node *n = head;
        vals[count++] = n->value;
        head = n->next;
        free(n);
    }
    qsort(vals, count, sizeof vals[0], cmp);
    printf("%d nodes:", count);
    for (int k = 0; k < count; k++)
        printf("%s%d", k % 20 == 0 ? "\n" : " ", vals[k]);
    printf("\n");
    return 0;
}
