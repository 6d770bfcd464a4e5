/*
 * image.h: the check that every node runs the same build (prefix dsm_).
 */
#ifndef DSM_IMAGE_H
#define DSM_IMAGE_H

/* Collective (a bootstrap all-gather): stops with a message naming the
 * first node whose executable or libompdsm has another build id than node
 * 0's. */
void dsm_check_image(int nodes);

/* The executable's build id (or file hash), in hex: what names the
 * program in files one run leaves for the next. */
const char *dsm_program_id(void);

#endif
