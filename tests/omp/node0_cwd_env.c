/*
 * node0_cwd_env: main() enters a new directory and changes its environment
 * (setenv, putenv, unsetenv), then every thread of a parallel region opens
 * a file there by its relative name and reads the variables; then main()
 * goes back, changes them again, and a second region checks the new state.
 * Every thread, on every node, must see what main() set, as the threads
 * of one process do.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int reads_file(const char *name, int want)
{
    FILE *f = fopen(name, "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v == want;
}

static int is(const char *name, const char *want)
{
    const char *v = getenv(name);
    return want ? v && strcmp(v, want) == 0 : v == NULL;
}

int main(void)
{
    static char putenv_string[] = "NODE0_TEST_PUT=put";
    char dir[] = "/tmp/ompdsm-cwd-XXXXXX", back[4096];
    if (!mkdtemp(dir) || !getcwd(back, sizeof back) || chdir(dir))
        return 1;
    FILE *f = fopen("input.txt", "w");
    fprintf(f, "42\n");
    fclose(f);
    setenv("NODE0_TEST_MODE", "fast", 1);
    putenv(putenv_string);
    setenv("NODE0_TEST_GONE", "soon", 1);
    unsetenv("NODE0_TEST_GONE");

    int file = 0, mode = 0, put = 0, gone = 0;
#pragma omp parallel reduction(+ : file, mode, put, gone)
    {
        file += reads_file("input.txt", 42);
        mode += is("NODE0_TEST_MODE", "fast");
        put += is("NODE0_TEST_PUT", "put");
        gone += is("NODE0_TEST_GONE", NULL);
    }
    printf("first region: file %d mode %d put %d gone %d of %d\n", file, mode, put, gone,
           omp_get_max_threads());

    if (chdir(back))
        return 1;
    setenv("NODE0_TEST_MODE", "slow", 1);
    unsetenv("NODE0_TEST_PUT");
    int away = 0, slow = 0, unput = 0;
#pragma omp parallel reduction(+ : away, slow, unput)
    {
        char there[4200];
        snprintf(there, sizeof there, "%s/input.txt", dir);
        away += !reads_file("input.txt", 42) && reads_file(there, 42);
        slow += is("NODE0_TEST_MODE", "slow");
        unput += is("NODE0_TEST_PUT", NULL);
    }
    printf("second region: away %d slow %d unput %d of %d\n", away, slow, unput, omp_get_max_threads());

    char path[4200];
    snprintf(path, sizeof path, "%s/input.txt", dir);
    unlink(path);
    rmdir(dir);
    return 0;
}
