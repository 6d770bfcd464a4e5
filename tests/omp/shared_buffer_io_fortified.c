/*
 * shared_buffer_io_fortified: shared_buffer_io built with _FORTIFY_SOURCE,
 * where read and fread into arrays of known size are the C library's
 * checked forms (__read_chk, __fread_chk).
 * Compiler flags: -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
 */
#include "shared_buffer_io.c"
