/*
 * env.h: the parsing helpers of every layer's environment variables:
 * OMPDSM_* (dsm/config.c, which parses them all, the transport's too),
 * OMP_* (omp_rt/env.c), UCX_* (net/net.c, net/net_policy.c) and the
 * bootstrap's (net/boot.c).  What a variable means, its default and its
 * message when it is wrong stay with the layer that reads it.
 */
#ifndef UTIL_ENV_H
#define UTIL_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* The variable's value, or NULL if it is unset or empty. */
const char *dsm_env(const char *name);

/* Whether v is word, ignoring case and surrounding blanks. */
bool dsm_is_word(const char *v, const char *word);

/* Parses "123", "64K", "16G" …; returns false on bad text or overflow. */
bool dsm_parse_size(const char *s, size_t *out);

/* A decimal integer in min..max at the start of s, after blanks; *end is
 * set to what follows it.  False if there is none or it is out of range. */
bool dsm_parse_long(const char *s, long min, long max, long *out, const char **end);

#endif
