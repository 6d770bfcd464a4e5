/*
 * unit.h: the few lines every unit test shares.  A test is a program run
 * by `make check` (automake's test driver): it prints one FAIL line per
 * broken expectation, naming the function that found it, and exits 1 if
 * there was any (0 otherwise).
 */
#ifndef TESTS_UNIT_UNIT_H
#define TESTS_UNIT_UNIT_H

#include <stdio.h>

extern int unit_failures;

#define EXPECT(cond, ...)                                                \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("FAIL %s:%d %s: ", __FILE__, __LINE__, __func__);     \
            printf(__VA_ARGS__);                                         \
            putchar('\n');                                               \
            unit_failures++;                                             \
        }                                                                \
    } while (0)

/* The exit status of a test: 0 if every expectation held. */
int unit_status(void);

#endif
