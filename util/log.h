/*
 * log.h: the one error-reporting path of the runtime.
 *
 * Every message names the node that prints it, so that interleaved output of
 * several nodes can be read.  dsm_fatal() prints and exits with status 1; the
 * launcher sees the non-zero exit and tears the job down.
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

#include <stdnoreturn.h>

extern int dsm_log_node;        /* -1 until the node knows its number */

noreturn void dsm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dsm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes out what the program printed on this node and the C library still
 * buffers.  Called at every release (barrier, lock release, end of an
 * ordered iteration) before another node can go on: the nodes share the
 * launcher's stdout and stderr (one open file description, one offset), so
 * what a thread prints before a release appears before what another prints
 * after the matching acquire, also when output goes to a file or a pipe
 * and stdio buffers it.  Costs a few locks when nothing is buffered. */
void dsm_flush_output(void);

#endif
