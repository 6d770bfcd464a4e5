/*
 * fork_child: the master forks a child process between parallel regions,
 * from main() (whose stack is shared memory at node 0) and again from a
 * function deeper down.  The child writes a global variable, a heap block
 * and a local variable of main(), then leaves with _exit; the parent must
 * see none of it, get the child's status, and go on with its regions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int global = 5;

static int child_status(int code, int *heap)
{
    int local[64];
    for (int i = 0; i < 64; i++)
        local[i] = i;
    pid_t c = fork();
    if (c == 0) {
        global = 99;
        heap[0] = 99;
        for (int i = 0; i < 64; i++)
            local[i] = -1;
        _exit(code);
    }
    int st = 0;
    if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
        return -1;
    int sum = 0;
    for (int i = 0; i < 64; i++)
        sum += local[i];
    return sum == 2016 ? WEXITSTATUS(st) : -2;
}

int main(void)
{
    int *heap = malloc(64 * sizeof *heap);
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 64; i++) {
        heap[i] = i;
        s += i;
    }
    int here = 11;
    pid_t c = fork();
    if (c == 0) {
        here = 77;
        global = 98;
        _exit(3);
    }
    int st = 0;
    int waited = c > 0 && waitpid(c, &st, 0) == c;
    printf("main: waited %d, status %d, local %d, global %d\n", waited, WIFEXITED(st) ? WEXITSTATUS(st) : -1, here,
           global);
    printf("deeper: status %d, global %d, heap %d\n", child_status(9, heap), global, heap[0]);
    long t = 0;
#pragma omp parallel for reduction(+ : t)
    for (int i = 0; i < 64; i++)
        t += heap[i];
    printf("sums %ld %ld\n", s, t);
    return 0;
}
