/*
 * direct.c: read-only views of the file-backed regions of the other nodes
 * of this host (see direct.h for why).
 *
 * The owner describes its file by PID, descriptor, device and inode; a peer
 * opens /proc/PID/fd/FD read-only, which the kernel allows only to a
 * process with ptrace read access to the owner (the same user), and keeps
 * the view only if the file it got is the one described.  The caller
 * decides whether the owner runs on this host at all (net_policy.c): a PID
 * means nothing elsewhere.  The views are never written: the owner's pages
 * change only through the owner's own protocol.
 */
#include "direct.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct direct_id direct_describe(int fd)
{
    struct direct_id id = { .pid = (int32_t)getpid(), .fd = -1 };
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        id.fd = fd;
        id.dev = (uint64_t)st.st_dev;
        id.ino = (uint64_t)st.st_ino;
    }
    return id;
}

const void *direct_map(const struct direct_id *id, size_t len)
{
    if (id->fd < 0 || id->pid == (int32_t)getpid())
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)id->pid, (int)id->fd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *view = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_dev == id->dev && (uint64_t)st.st_ino == id->ino
        && (size_t)st.st_size >= len)
        view = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    return view == MAP_FAILED ? NULL : view;
}

void direct_unmap(const void *view, size_t len)
{
    if (view)
        munmap((void *)view, len);
}
