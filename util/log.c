/*
 * log.c: formats fatal errors and warnings as one line on stderr.
 *
 * The line is formatted into a buffer first and written with a single
 * write(2), so that lines of different nodes never interleave mid-line, and
 * so that the path stays usable from a fault handler (no stdio locks).
 *
 * It also writes out the program's buffered output at releases
 * (dsm_flush_output, see log.h).
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int dsm_log_node = -1;

static void emit(const char *kind, const char *fmt, va_list ap)
{
    char buf[1024];
    int n;

    if (dsm_log_node >= 0)
        n = snprintf(buf, sizeof buf, "ompdsm: node %d: %s", dsm_log_node, kind);
    else
        n = snprintf(buf, sizeof buf, "ompdsm: %s", kind);
    if (n < 0 || (size_t)n >= sizeof buf)
        n = 0;
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    if (m < 0)
        m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

void dsm_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("", fmt, ap);
    va_end(ap);
    _exit(1);
}

void dsm_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("warning: ", fmt, ap);
    va_end(ap);
}

/* fflush(NULL), not fflush(stdout): the variable stdout may live in the
 * program's shared globals (a copy relocation); the C library's list of
 * streams is private to the node. */
void dsm_flush_output(void)
{
    fflush(NULL);
}
