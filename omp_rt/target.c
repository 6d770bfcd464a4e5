/*
 * target.c: the target constructs and the device routines, on the host.
 *
 * ompdsm has no offload device, and a program built for one runs as
 * libgomp runs it without a device (its host fallback): a target region is
 * the encountering thread's code, in the same memory, so every map clause
 * is the identity and `target data`, `target update` and `target
 * enter/exit data` do nothing but wait for their depend clauses.  What a
 * target region keeps apart is done as libgomp does:
 * - firstprivate variables (map kind GOMP_MAP_FIRSTPRIVATE) are copied, in
 *   shared memory, so that the region's parallel regions can read them on
 *   every node;
 * - the region runs as an initial thread: outside any team, with the
 *   thread_limit clause as its thread limit and no teams around it.  Met
 *   inside a parallel region, its own parallel regions have a team of one
 *   (libgomp would start a team there; ompdsm's teams span the nodes and
 *   start only from the master outside any region);
 * - `nowait` runs the region at once, after its depend clauses' siblings:
 *   a target task may run at any time, now included.
 * The device is the host whatever the device clause or OMP_TARGET_OFFLOAD
 * says, as for libgomp without a device; the device routines answer for a
 * machine with none (device 0 is the initial device, the host).
 */
#include "omp_rt.h"
#include "gomp_abi.h"
#include "task.h"

#include "../util/log.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#define API __attribute__((visibility("default")))

/* From GCC's gomp-constants.h. */
enum {
    MAP_FIRSTPRIVATE = 12,                      /* GOMP_MAP_FIRSTPRIVATE */
    ARG_DEVICE_MASK = (1 << 7) - 1,             /* GOMP_TARGET_ARG_DEVICE_MASK */
    ARG_DEVICE_ALL = 0,
    ARG_SUBSEQUENT_PARAM = 1 << 7,
    ARG_ID_MASK = ((1 << 8) - 1) << 8,
    ARG_THREAD_LIMIT = 2 << 8,
    ARG_VALUE_SHIFT = 16,
};

/* The firstprivate variables' copies, in one block of the shared heap
 * (NULL if there are none); hostaddrs then points at them, as the region
 * expects.  Each copy is aligned as its kind says (log2 in the high byte). */
static void *copy_firstprivate(size_t mapnum, void **hostaddrs, const size_t *sizes, const unsigned short *kinds,
                               const void *caller)
{
    size_t total = 0, align_max = 1;
    for (size_t i = 0; i < mapnum; i++) {
        if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE || !hostaddrs[i])
            continue;
        size_t align = (size_t)1 << (kinds[i] >> 8);
        total = (total + align - 1) & ~(align - 1);
        total += sizes[i];
        if (align > align_max)
            align_max = align;
    }
    if (total == 0)
        return NULL;
    char *block = omp_rt_memalign(align_max, total, caller);
    if (!block)
        dsm_fatal("out of shared memory for a target region's firstprivate variables (%zu bytes)", total);
    size_t at = 0;
    for (size_t i = 0; i < mapnum; i++) {
        if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE || !hostaddrs[i])
            continue;
        size_t align = (size_t)1 << (kinds[i] >> 8);
        at = (at + align - 1) & ~(align - 1);
        memcpy(block + at, hostaddrs[i], sizes[i]);
        hostaddrs[i] = block + at;
        at += sizes[i];
    }
    return block;
}

/* The thread_limit clause among the target's arguments (0: none). */
static long thread_limit_arg(void **args)
{
    while (args && *args) {
        intptr_t id = (intptr_t)*args++, val;
        if (id & ARG_SUBSEQUENT_PARAM)
            val = (intptr_t)*args++;
        else
            val = id >> ARG_VALUE_SHIFT;
        if ((id & ARG_DEVICE_MASK) == ARG_DEVICE_ALL && (id & ARG_ID_MASK) == ARG_THREAD_LIMIT)
            return val > INT_MAX ? INT_MAX : (long)val;
    }
    return 0;
}

/* Runs fn(data) as an initial thread's code (see above). */
static void run_target(void (*fn)(void *), void *data, long thread_limit)
{
    struct omp_thr outer = omp_thr;
    long outer_limit = omp_icv.thread_limit;
    if (omp_thr.level == 0) {
        if (thread_limit)
            omp_icv.thread_limit = thread_limit;
    }
    omp_thr = (struct omp_thr){ .size = 1, .local = outer.local, .level = outer.level, .active = outer.active };
    omp_rt_call_user(fn, data);
    omp_thr = outer;
    if (omp_thr.level == 0)
        omp_icv.thread_limit = outer_limit;
}

void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                     unsigned short *kinds, unsigned flags, void **depend, void **args)
{
    OMP_RT_ENTRY;
    (void)device;
    (void)flags;
    if (depend)
        omp_task_wait_depend(depend);
    void *copies = copy_firstprivate(mapnum, hostaddrs, sizes, kinds, __builtin_return_address(0));
    run_target(fn, hostaddrs, thread_limit_arg(args));
    omp_rt_free(copies);
}

/* The interface of GCC before 6 (no firstprivate map kinds). */
void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum, void **hostaddrs,
                 size_t *sizes, unsigned char *kinds)
{
    OMP_RT_ENTRY;
    (void)device, (void)unused, (void)mapnum, (void)sizes, (void)kinds;
    run_target(fn, hostaddrs, 0);
}

void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds)
{
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                      unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

void GOMP_target_end_data(void)
{
}

void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds,
                            unsigned flags, void **depend)
{
    OMP_RT_ENTRY;
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    if (depend)
        omp_task_wait_depend(depend);
}

void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                        unsigned char *kinds)
{
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}

void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned short *kinds, unsigned flags, void **depend)
{
    OMP_RT_ENTRY;
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    if (depend)
        omp_task_wait_depend(depend);
}

/* A program built with device code registers it from a constructor; with
 * no device to load it on, its host code runs, as with libgomp. */
void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type,
                               const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type,
                                 const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

/* The device routines.  The host is device 0, the initial device (libgomp
 * numbers it after the offload devices, of which there are none); -1 is
 * OpenMP 5.2's name for it. */
static bool is_host(int device)
{
    return device == 0 || device == -1;
}

API int omp_get_num_devices(void) { return 0; }
API int omp_get_initial_device(void) { return 0; }
API int omp_get_device_num(void) { return 0; }
API int omp_is_initial_device(void) { return 1; }
API int omp_get_default_device(void) { return omp_icv.default_device; }
API void omp_set_default_device(int device) { omp_icv.default_device = device < 0 ? 0 : device; }

API void *omp_target_alloc(size_t size, int device)
{
    return is_host(device) ? omp_rt_malloc(size, __builtin_return_address(0)) : NULL;
}

API void omp_target_free(void *p, int device)
{
    if (p && is_host(device))
        omp_rt_free(p);
}

API int omp_target_is_present(const void *p, int device)
{
    (void)p;
    return is_host(device);
}

API int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset, size_t src_offset,
                          int dst_device, int src_device)
{
    if (!is_host(dst_device) || !is_host(src_device))
        return EINVAL;
    memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

/* One dimension of omp_target_memcpy_rect: the volume[0] slices at the
 * offsets, each of the remaining dimensions. */
static int copy_rect(char *dst, const char *src, size_t element, int dims, const size_t *volume,
                     const size_t *dst_offsets, const size_t *src_offsets, const size_t *dst_dims,
                     const size_t *src_dims)
{
    size_t dst_slice = element, src_slice = element;
    for (int d = 1; d < dims; d++) {
        if (__builtin_mul_overflow(dst_slice, dst_dims[d], &dst_slice) ||
            __builtin_mul_overflow(src_slice, src_dims[d], &src_slice))
            return EINVAL;
    }
    size_t dst_at, src_at;
    if (__builtin_mul_overflow(dst_slice, dst_offsets[0], &dst_at) ||
        __builtin_mul_overflow(src_slice, src_offsets[0], &src_at))
        return EINVAL;
    if (dims == 1) {
        size_t length;
        if (__builtin_mul_overflow(element, volume[0], &length))
            return EINVAL;
        memmove(dst + dst_at, src + src_at, length);
        return 0;
    }
    for (size_t j = 0; j < volume[0]; j++) {
        int err = copy_rect(dst + dst_at + j * dst_slice, src + src_at + j * src_slice, element, dims - 1,
                            volume + 1, dst_offsets + 1, src_offsets + 1, dst_dims + 1, src_dims + 1);
        if (err)
            return err;
    }
    return 0;
}

/* With dst and src NULL: the most dimensions it copies (any number). */
API int omp_target_memcpy_rect(void *dst, const void *src, size_t element, int dims, const size_t *volume,
                               const size_t *dst_offsets, const size_t *src_offsets, const size_t *dst_dims,
                               const size_t *src_dims, int dst_device, int src_device)
{
    if (!dst && !src)
        return INT_MAX;
    if (!dst || !src || dims < 1 || !volume || !dst_offsets || !src_offsets || !dst_dims || !src_dims ||
        !is_host(dst_device) || !is_host(src_device))
        return EINVAL;
    return copy_rect(dst, src, element, dims, volume, dst_offsets, src_offsets, dst_dims, src_dims);
}

/* The host has no device memory to associate with. */
API int omp_target_associate_ptr(const void *host, const void *device_ptr, size_t size, size_t offset, int device)
{
    (void)host, (void)device_ptr, (void)size, (void)offset, (void)device;
    return EINVAL;
}

API int omp_target_disassociate_ptr(const void *p, int device)
{
    (void)p, (void)device;
    return EINVAL;
}
