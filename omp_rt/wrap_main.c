/*
 * wrap_main.c: the piece of the runtime linked statically into every
 * program (libompdsm_main.a).  ompdsm-cc links with -Wl,--wrap=main, so the
 * C library's start-up calls __wrap_main, which hands the real main and the
 * bounds of the program's writable data to the runtime.  It must be a
 * static object: only the executable itself can name __real_main and its
 * own __data_start and _end.
 */
extern int __real_main(int argc, char **argv, char **envp);
extern char __data_start[], _end[];
extern int omp_rt_start(int argc, char **argv, char **envp, int (*real_main)(int, char **, char **),
                        char *data_start, char *data_end);

int __wrap_main(int argc, char **argv, char **envp);

int __wrap_main(int argc, char **argv, char **envp)
{
    return omp_rt_start(argc, argv, envp, __real_main, __data_start, _end);
}
