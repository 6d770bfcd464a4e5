/*
 * image.c: every node must run the same build of the program and of the
 * runtime.  The nodes share the program's globals page by page and pass
 * addresses of its functions around, so a node started from another build
 * (an old copy on one host, a rebuilt library) would compute garbage.
 *
 * At bootstrap every node reads the GNU build id (the linker's
 * NT_GNU_BUILD_ID note, a hash of the linked file) of the executable and of
 * libompdsm from its loaded program headers, and all of them compare.  An
 * object linked without a build id is identified by a hash of its file
 * instead.
 */
#include "image.h"
#include "dsm.h"
#include "../net/boot.h"
#include "../util/log.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ID_MAX 32      /* bytes kept of a build id (SHA-1 ones have 20) */

struct image_id {
    uint8_t exe[ID_MAX], lib[ID_MAX];
};

struct lookup {
    uintptr_t lib_addr;         /* an address inside libompdsm */
    uint8_t *exe, *lib;
    const char *lib_name;
    int found_exe, found_lib;
};

static int note_build_id(const struct dl_phdr_info *info, uint8_t out[ID_MAX])
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *n;
            const uint8_t *desc = (const uint8_t *)name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                size_t len = n->n_descsz < ID_MAX ? n->n_descsz : ID_MAX;
                memset(out, 0, ID_MAX);
                memcpy(out, desc, len);
                return 1;
            }
            p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

uint64_t dsm_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* FNV-1a of the whole file, spread over the id. */
static int file_hash(const char *path, uint8_t out[ID_MAX])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    uint64_t h = DSM_FNV1A_START;
    unsigned char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        h = dsm_fnv1a(h, buf, (size_t)n);
    close(fd);
    memset(out, 0, ID_MAX);
    memcpy(out, &h, sizeof h);
    return n == 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct lookup *l = arg;
    if (!l->found_exe) {        /* the first object is the executable */
        l->found_exe = note_build_id(info, l->exe) ? 1 : file_hash("/proc/self/exe", l->exe) ? 2 : -1;
        return 0;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && l->lib_addr >= lo && l->lib_addr < lo + ph->p_memsz) {
            l->lib_name = info->dlpi_name;
            l->found_lib = note_build_id(info, l->lib) ? 1 : file_hash(info->dlpi_name, l->lib) ? 2 : -1;
            return 1;
        }
    }
    return 0;
}

static void hex(const uint8_t *id, char out[2 * ID_MAX + 1])
{
    int len = ID_MAX;
    while (len > 8 && id[len - 1] == 0)
        len--;
    for (int i = 0; i < len; i++)
        snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* This node's ids of the program and of the runtime. */
static void identify(struct image_id *mine)
{
    memset(mine, 0, sizeof *mine);
    struct lookup l = { .lib_addr = (uintptr_t)&dsm_check_image, .exe = mine->exe, .lib = mine->lib };
    dl_iterate_phdr(visit, &l);
    /* With the runtime linked statically into the program, the executable's
     * id covers it and no library is found. */
    if (l.found_exe < 0 || l.found_lib < 0)
        dsm_fatal("cannot identify the program's build (no build id, file unreadable)");
}

const char *dsm_program_id(void)
{
    static char id[2 * ID_MAX + 1];
    if (!id[0]) {
        struct image_id mine;
        identify(&mine);
        hex(mine.exe, id);
    }
    return id;
}

void dsm_check_image(int nodes)
{
    if (nodes < 2)
        return;
    struct image_id mine;
    identify(&mine);

    struct image_id *all = boot_allgather(BOOT_TAG_IMAGE, &mine, sizeof mine, NULL);
    for (int n = 0; n < nodes; n++) {
        char a[2 * ID_MAX + 1], b[2 * ID_MAX + 1];
        if (memcmp(all[n].exe, all[0].exe, ID_MAX) != 0) {
            hex(all[0].exe, a);
            hex(all[n].exe, b);
            dsm_fatal("node %d runs another build of the program than node 0 (build id %s, node 0 %s): "
                      "start every node from the same executable", n, b, a);
        }
        if (memcmp(all[n].lib, all[0].lib, ID_MAX) != 0) {
            hex(all[0].lib, a);
            hex(all[n].lib, b);
            dsm_fatal("node %d uses another build of libompdsm than node 0 (build id %s, node 0 %s): "
                      "install the same ompdsm on every host", n, b, a);
        }
    }
    free(all);
}
