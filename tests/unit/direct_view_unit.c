/*
 * Read-only views of another process's file-backed memory (net/direct.c):
 * a peer's memfd is mapped and reads what the owner wrote, later writes
 * included; a description that does not match the file behind
 * /proc/PID/fd/FD (another inode, a descriptor that is not the file, our
 * own process, a region larger than the file) gives no view; and the view
 * cannot be written.
 */
#include "unit.h"
#include "../../net/direct.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { LEN = 1 << 20 };

/* The owner: a child with a memfd of LEN bytes whose first page holds
 * "first", and which writes "second" after it reads a byte from go. */
struct owner {
    pid_t pid;
    struct direct_id id;
    int go;
};

static struct owner start_owner(void)
{
    int desc[2], go[2];
    if (pipe(desc) || pipe(go))
        _exit(2);
    pid_t pid = fork();
    if (pid == 0) {
        close(go[1]);
        close(desc[0]);
        int fd = memfd_create("direct-unit", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, LEN))
            _exit(2);
        char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        strcpy(p, "first");
        struct direct_id id = direct_describe(fd);
        if (write(desc[1], &id, sizeof id) != sizeof id)
            _exit(2);
        char c;
        if (read(go[0], &c, 1) == 1)
            strcpy(p + LEN - 4096, "second");
        if (write(desc[1], &c, 1) != 1)
            _exit(2);
        (void)read(go[0], &c, 1);      /* until the parent closes */
        _exit(0);
    }
    struct owner o = { .pid = pid, .go = go[1] };
    close(go[0]);
    close(desc[1]);
    if (read(desc[0], &o.id, sizeof o.id) != sizeof o.id)
        _exit(2);
    /* Let the owner write its second word and wait until it has. */
    char c = 1;
    if (write(o.go, &c, 1) != 1 || read(desc[0], &c, 1) != 1)
        _exit(2);
    close(desc[0]);
    return o;
}

static void stop_owner(struct owner *o)
{
    close(o->go);
    waitpid(o->pid, NULL, 0);
}

static void test_reads_the_owners_file(const struct owner *o)
{
    const char *v = direct_map(&o->id, LEN);
    EXPECT(v != NULL, "no view of the owner's memfd");
    if (!v)
        return;
    EXPECT(!strcmp(v, "first"), "the view reads '%.8s', not what the owner wrote first", v);
    EXPECT(!strcmp(v + LEN - 4096, "second"), "the view misses the owner's later write");
    direct_unmap(v, LEN);
}

static void test_refuses_what_does_not_match(const struct owner *o)
{
    struct direct_id id = o->id;
    id.ino++;
    EXPECT(direct_map(&id, LEN) == NULL, "a view despite another inode");
    id = o->id;
    id.fd = 0;
    EXPECT(direct_map(&id, LEN) == NULL, "a view of the owner's descriptor 0");
    id = o->id;
    id.fd = -1;
    EXPECT(direct_map(&id, LEN) == NULL, "a view of a region with no file");
    EXPECT(direct_map(&o->id, 2 * LEN) == NULL, "a view larger than the file");
    id = direct_describe(-1);
    EXPECT(id.fd == -1, "a description of no file names descriptor %d", (int)id.fd);
}

static sigjmp_buf fault_jmp;

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(fault_jmp, 1);
}

static void test_view_is_read_only(const struct owner *o)
{
    char *v = (char *)direct_map(&o->id, LEN);
    if (!v)
        return;
    struct sigaction sa = { .sa_handler = on_segv }, old;
    sigaction(SIGSEGV, &sa, &old);
    volatile int wrote = 0;
    if (!sigsetjmp(fault_jmp, 1)) {
        *(volatile char *)v = 'X';
        wrote = 1;
    }
    sigaction(SIGSEGV, &old, NULL);
    EXPECT(!wrote, "the view could be written");
    direct_unmap(v, LEN);
}

int main(void)
{
    struct owner o = start_owner();
    test_reads_the_owners_file(&o);
    test_refuses_what_does_not_match(&o);
    test_view_is_read_only(&o);
    stop_owner(&o);
    return unit_status();
}
