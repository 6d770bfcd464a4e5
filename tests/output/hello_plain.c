/*
 * hello_plain: a program built with plain gcc (with or without -fopenmp),
 * not with ompdsm-cc: ompdsm-run must refuse it with one line saying so
 * (tests/output).
 */
#include <stdio.h>

int main(void)
{
    printf("hello\n");
    return 0;
}
