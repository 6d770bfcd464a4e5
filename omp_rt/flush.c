/*
 * flush.c: `#pragma omp flush`, and every full fence of the program.
 *
 * GCC compiles `#pragma omp flush` (with or without a list) to the same
 * inline fence as `__sync_synchronize()` and
 * `atomic_thread_fence(memory_order_seq_cst)`: `lock orq $0,(%rsp)` (or
 * `mfence` under some -mtune), and never calls the runtime.  ompdsm-cc runs
 * the assembler through tools/ompdsm-as, which replaces each of those
 * instructions with `call ompdsm_fence`.  In a program that shares memory
 * between threads the three mean the same thing (make my writes visible,
 * see what others made visible), so all three are flushes here.
 *
 * The compiler placed a fence, not a call: every register, the flags and
 * the vector state are live across it.  ompdsm_fence therefore saves the
 * general registers and the flags, realigns the stack, saves the whole
 * extended state with xsave (the runtime calls memcpy and UCX, which use
 * vector registers), calls omp_rt_flush and restores everything.  The
 * program is compiled with -mno-red-zone, so the call's return address
 * overwrites nothing the code still needs below its stack pointer.
 *
 * Outside a parallel region of several nodes there is nobody to be
 * consistent with (the next region ships node 0's writes), and the fence is
 * only the CPU's.
 */
#include "gomp_abi.h"
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/log.h"

#include <cpuid.h>

/* Bytes reserved on the stack for xsave; checked against the CPU's needs
 * at start-up. */
#define XSAVE_AREA 4096
#define STR(x) #x
#define XSTR(x) STR(x)

void omp_rt_flush(void)
{
    OMP_RT_ENTRY;
    if (omp_thr.active)
        dsm_flush();
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void omp_rt_flush_at_atomic(void)
{
    OMP_RT_ENTRY;
    if (omp_thr.active)
        dsm_flush_no_wait();
}

/* xsave saves components 0-7 (x87, SSE, AVX, MPX, AVX-512): those the
 * compiler may keep live across a fence.  Tile data (AMX) is not saved: the
 * code between a fence and the next is not compiled to keep tiles live. */
#define XSAVE_MASK 0xff

void omp_rt_flush_check_cpu(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_XSAVE) || !(c & bit_OSXSAVE))
        dsm_fatal("this CPU or kernel does not support xsave, which #pragma omp flush needs");
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    unsigned need = 576;      /* legacy area and header */
    for (unsigned i = 2; i < 8; i++) {
        if (!(lo & (unsigned)XSAVE_MASK & (1u << i)))
            continue;
        __cpuid_count(0xd, i, a, b, c, d);
        if (b + a > need)
            need = b + a;
    }
    if (need > XSAVE_AREA)
        dsm_fatal("this CPU's extended state (%u bytes) exceeds the %d bytes flush reserves", need, XSAVE_AREA);
}

/*
 * The stub.  Stack on entry: the return address at (%rsp), alignment
 * unknown (a fence can sit anywhere).  xsave needs a 64-byte aligned area
 * whose header (bytes 512..575) is zero before the first save; eax:edx
 * select the components (XSAVE_MASK).
 */
__asm__(".text\n"
        ".globl ompdsm_fence\n"
        ".type ompdsm_fence, @function\n"
        "ompdsm_fence:\n"
        ".cfi_startproc\n"
        "    pushfq\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    pushq %rbp\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_offset %rbp, -24\n"
        "    movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "    pushq %rax\n"
        "    pushq %rcx\n"
        "    pushq %rdx\n"
        "    pushq %rsi\n"
        "    pushq %rdi\n"
        "    pushq %r8\n"
        "    pushq %r9\n"
        "    pushq %r10\n"
        "    pushq %r11\n"
        "    subq $" XSTR(XSAVE_AREA) ", %rsp\n"
        "    andq $-64, %rsp\n"
        "    xorl %eax, %eax\n"
        "    movq %rax, 512(%rsp)\n"
        "    movq %rax, 520(%rsp)\n"
        "    movq %rax, 528(%rsp)\n"
        "    movq %rax, 536(%rsp)\n"
        "    movq %rax, 544(%rsp)\n"
        "    movq %rax, 552(%rsp)\n"
        "    movq %rax, 560(%rsp)\n"
        "    movq %rax, 568(%rsp)\n"
        "    movl $" XSTR(XSAVE_MASK) ", %eax\n"
        "    xorl %edx, %edx\n"
        "    xsave64 (%rsp)\n"
        "    call omp_rt_flush\n"
        "    movl $" XSTR(XSAVE_MASK) ", %eax\n"
        "    xorl %edx, %edx\n"
        "    xrstor64 (%rsp)\n"
        "    leaq -72(%rbp), %rsp\n"
        "    popq %r11\n"
        "    popq %r10\n"
        "    popq %r9\n"
        "    popq %r8\n"
        "    popq %rdi\n"
        "    popq %rsi\n"
        "    popq %rdx\n"
        "    popq %rcx\n"
        "    popq %rax\n"
        "    popq %rbp\n"
        ".cfi_def_cfa %rsp, 16\n"
        ".cfi_restore %rbp\n"
        "    popfq\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    ret\n"
        ".cfi_endproc\n"
        ".size ompdsm_fence, .-ompdsm_fence\n");
