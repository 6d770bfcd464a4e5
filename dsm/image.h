/*
 * image.h: the check that every node runs the same build (prefix dsm_).
 */
#ifndef DSM_IMAGE_H
#define DSM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Collective (a bootstrap all-gather): stops with a message naming the
 * first node whose executable or libompdsm has another build id than node
 * 0's. */
void dsm_check_image(int nodes);

/* dsm_program_id(), the executable's build id: dsm.h. */

/* FNV-1a, 64 bits, of n bytes, continuing hash h: start with
 * DSM_FNV1A_START.  Used where nodes compare what should be the same bytes
 * (files without a build id, the globals at start-up). */
#define DSM_FNV1A_START 0xcbf29ce484222325ULL
uint64_t dsm_fnv1a(uint64_t h, const void *p, size_t n);

#endif
