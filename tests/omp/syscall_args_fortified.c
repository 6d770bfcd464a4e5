/*
 * syscall_args_fortified: syscall_args_shared built with _FORTIFY_SOURCE,
 * where poll is the C library's checked form, __poll_chk.
 * Compiler flags: -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
 */
#include "syscall_args_shared.c"
