/*
 * log.h: the one error-reporting path of the runtime.
 *
 * Every message names the node that prints it, so that interleaved output of
 * several nodes can be read.  dsm_fatal() prints and exits with status 1; the
 * launcher sees the non-zero exit and tears the job down.
 */
#ifndef DSM_LOG_H
#define DSM_LOG_H

#include <stdnoreturn.h>

extern int dsm_log_node;        /* -1 until the node knows its number */

noreturn void dsm_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dsm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
