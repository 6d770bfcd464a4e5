/*
 * env.c: the helpers that parse every layer's environment variables
 * (see env.h).
 */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool dsm_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return false;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    }
    if (*end == 'i' && shift)
        end++;
    if ((*end == 'B' || *end == 'b') && end[1] == '\0')
        end++;
    if (*end != '\0' || (shift && v > (~0ULL >> shift)))
        return false;
    *out = (size_t)(v << shift);
    return true;
}

const char *dsm_env(const char *name)
{
    const char *v = getenv(name);
    return (v && *v) ? v : NULL;
}

bool dsm_parse_long(const char *s, long min, long max, long *out, const char **end)
{
    char *e;
    errno = 0;
    while (isspace((unsigned char)*s))
        s++;
    long v = strtol(s, &e, 10);
    if (errno || e == s || v < min || v > max)
        return false;
    *out = v;
    *end = e;
    return true;
}

bool dsm_is_word(const char *v, const char *word)
{
    while (isspace((unsigned char)*v))
        v++;
    size_t n = strlen(word);
    if (strncasecmp(v, word, n))
        return false;
    for (v += n; isspace((unsigned char)*v); v++)
        ;
    return *v == '\0';
}
