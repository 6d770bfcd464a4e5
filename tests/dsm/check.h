/*
 * check.h: how the DSM tests report.  A failed check names the node, the
 * test and what differed, and exits non-zero, which makes the launcher stop
 * the whole job and fail.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "ompdsm.h"

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "FAIL %s node %d: ", __FILE__, ompdsm_node());        \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

#endif
