/*
 * host_seg.c: the memory segment the nodes of a job share when they all run
 * on one host (see host_seg.h for what it holds).
 *
 * Node 0 creates a POSIX shared-memory object of an unguessable name, mode
 * 0600, with O_EXCL (nobody else can have made it first), and gives the
 * name to the other nodes through the bootstrap; each opens it, checks that
 * it belongs to this user and carries node 0's random tag, and maps it.
 * Then every node tells whether it could; only if all could do they use
 * it, and node 0 removes the name.  Nodes on other hosts, or in other IPC
 * or mount namespaces, cannot open it: the job then does without.
 *
 * The object is sparse: only the boxes the barriers write take memory.
 */
#include "host_seg.h"
#include "dsm.h"
#include "../net/boot.h"
#include "../util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

enum { LINE = 64, NAME_LEN = 64 };

struct seg_head {
    uint64_t magic, tag;
};

#define SEG_MAGIC 0x6f6d7064736d6867ull     /* "ompdsmhg" */

/* The boxes' sizes, headers included: an arrival box of OMPDSM_HOST_BOX
 * bytes, a release box of as many as four arrivals or all nodes'. */
static struct {
    char *base;
    size_t size, arrival, release;
    int nodes;
} seg;

static size_t news_offset(void)
{
    return LINE;
}

/* n rounded up to a multiple of `align`, a power of two. */
static size_t round_up(size_t n, size_t align)
{
    return (n + align - 1) & ~(align - 1);
}

/* Per node, a row of counts per other node, on lines of its own. */
static size_t counts_row(void)
{
    return round_up((size_t)seg.nodes * sizeof(uint64_t), LINE);
}

static size_t posted_offset(void)
{
    return round_up(news_offset() + (size_t)seg.nodes * sizeof(struct host_news), LINE);
}

static size_t applied_offset(void)
{
    return posted_offset() + (size_t)seg.nodes * counts_row();
}

static size_t arrivals_offset(void)
{
    return round_up(applied_offset() + (size_t)seg.nodes * counts_row(), 4096);
}

static size_t releases_offset(void)
{
    return arrivals_offset() + (size_t)seg.nodes * 2 * seg.arrival;
}

static size_t total_size(void)
{
    return releases_offset() + (size_t)seg.nodes * 2 * seg.release;
}

/* Node 0: creates the object; fills name and tag.  -1 on failure. */
static int create(char *name, uint64_t *tag)
{
    if (getrandom(tag, sizeof *tag, 0) != sizeof *tag)
        return -1;
    snprintf(name, NAME_LEN, "/ompdsm-%d-%016llx", (int)getpid(), (unsigned long long)*tag);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)seg.size) != 0) {
        close(fd);
        shm_unlink(name);
        return -1;
    }
    return fd;
}

/* Other nodes: opens node 0's object if it is this user's and of the
 * expected size.  -1 otherwise. */
static int open_existing(const char *name)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) || (size_t)st.st_size != seg.size) {
        close(fd);
        return -1;
    }
    return fd;
}

static char *map(int fd)
{
    void *p = mmap(NULL, seg.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

void host_seg_init(void)
{
    if (dsm.nodes == 1 || !dsm_cfg.host_segment)
        return;
    seg.nodes = dsm.nodes;
    seg.arrival = dsm_cfg.host_box;
    seg.release = (size_t)(dsm.nodes > 4 ? dsm.nodes : 4) * seg.arrival;
    seg.size = total_size();
    char name[NAME_LEN] = "";
    uint64_t tag = 0;
    char *base = NULL;
    if (dsm.node == 0) {
        int fd = create(name, &tag);
        if (fd >= 0 && (base = map(fd)) != NULL)
            *(struct seg_head *)base = (struct seg_head){ .magic = SEG_MAGIC, .tag = tag };
        else if (fd >= 0)
            shm_unlink(name);
        if (!base)
            name[0] = '\0';
    }
    char *names = boot_allgather(BOOT_TAG_HOST_SEG, name, sizeof name, NULL);
    if (dsm.node != 0 && names[0]) {
        memcpy(name, names, NAME_LEN);
        name[NAME_LEN - 1] = '\0';
        int fd = open_existing(name);
        base = fd >= 0 ? map(fd) : NULL;
        unsigned long long want = 0;
        const char *dash = strrchr(name, '-');
        if (base && (!dash || sscanf(dash + 1, "%llx", &want) != 1 ||
                     ((struct seg_head *)base)->magic != SEG_MAGIC || ((struct seg_head *)base)->tag != want)) {
            munmap(base, seg.size);
            base = NULL;
        }
    }
    free(names);
    char mine = base != NULL, *all = boot_allgather(BOOT_TAG_HOST_SEG_MAPPED, &mine, 1, NULL);
    bool every = true;
    for (int n = 0; n < dsm.nodes; n++)
        every = every && all[n];
    free(all);
    if (dsm.node == 0 && base)
        shm_unlink(name);
    if (every) {
        seg.base = base;
    } else if (base) {
        munmap(base, seg.size);
    }
}

bool host_seg_on(void)
{
    return seg.base != NULL;
}

struct host_news *host_seg_news(int node)
{
    return seg.base ? (struct host_news *)(seg.base + news_offset() + (size_t)node * sizeof(struct host_news)) : NULL;
}

_Atomic uint64_t *host_seg_posted(int from, int to)
{
    return (_Atomic uint64_t *)(seg.base + posted_offset() + (size_t)from * counts_row()) + to;
}

_Atomic uint64_t *host_seg_applied(int to, int from)
{
    return (_Atomic uint64_t *)(seg.base + applied_offset() + (size_t)to * counts_row()) + from;
}

struct host_box *host_seg_arrival(int node, uint64_t epoch)
{
    return (struct host_box *)(seg.base + arrivals_offset() + ((size_t)node * 2 + (epoch & 1)) * seg.arrival);
}

struct host_box *host_seg_release(int node, uint64_t epoch)
{
    return (struct host_box *)(seg.base + releases_offset() + ((size_t)node * 2 + (epoch & 1)) * seg.release);
}

size_t host_seg_arrival_cap(void)
{
    return seg.arrival - sizeof(struct host_box);
}

size_t host_seg_release_cap(void)
{
    return seg.release - sizeof(struct host_box);
}
