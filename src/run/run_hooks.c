/* SPDX-License-Identifier: Apache-2.0 */
/* How the replacements reach the program: dlsym (which the CUDA runtime, static or shared, uses
 * to find cuGetProcAddress in libcuda) and cuGetProcAddress (through which it finds every other
 * driver entry point). A program linked with -lcuda reaches the exported symbols directly. */
#include "run_hooks.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "run_config.h"
#include "run_driver.h"

typedef struct zc__run_hook {
    const char *proc_name;
    const char *symbol;
    int min_version;
    int stream; /* ZC__RUN_ANY_STREAM, _LEGACY_STREAM or _THREAD_STREAM */
    void *replacement;
} zc__run_hook;

#define ZC__RUN_HOOK_ROW(id, proc, symbol, version, stream)                                        \
    {proc, symbol, version, stream, (void *)zc__hook_##id},
static const zc__run_hook zc__hooks[ZC__HOOK_COUNT] = {ZC__RUN_HOOK_MAP(ZC__RUN_HOOK_ROW)};
#undef ZC__RUN_HOOK_ROW

/* The driver's definitions the program was given; written once per entry point (a pointer store
 * is atomic on the machines CUDA runs on; every writer stores a driver function of one ABI). */
static void *volatile zc__real[ZC__HOOK_COUNT];

static int zc__is_replacement(const void *fn)
{
    for (int i = 0; i < ZC__HOOK_COUNT; i++) {
        if (zc__hooks[i].replacement == fn)
            return 1;
    }
    return 0;
}

void *zc__run_real(zc__run_hook_id id)
{
    void *fn = zc__real[id];
    if (fn == NULL && zc__run_driver_get() != NULL) {
        fn = zc__run_driver_symbol(zc__hooks[id].symbol);
        if (fn != NULL && !zc__is_replacement(fn))
            zc__real[id] = fn;
        else
            fn = NULL;
    }
    return fn;
}

/* The replacement for fn, the driver's answer for name (by cuGetProcAddress's name when proc is
 * set, else by the exported symbol), or fn itself. */
static void *zc__replace(const char *name, int proc, void *fn, int version, cuuint64_t flags)
{
    if (fn == NULL || zc__is_replacement(fn))
        return fn;
    int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    for (int i = 0; i < ZC__HOOK_COUNT; i++) {
        const zc__run_hook *h = &zc__hooks[i];
        if (strcmp(name, proc ? h->proc_name : h->symbol) != 0)
            continue;
        /* By name, the row of the default stream asked for; by symbol, the one row. */
        if (proc && h->stream != ZC__RUN_ANY_STREAM &&
            h->stream != (per_thread ? ZC__RUN_THREAD_STREAM : ZC__RUN_LEGACY_STREAM))
            continue;
        if (proc && version < h->min_version) {
            if (zc__run_config_get()->verbose)
                fprintf(stderr, "zerocopy run: %s (version %d%s) left as it is\n", name, version,
                        per_thread ? ", per-thread default stream" : "");
            return fn;
        }
        zc__real[i] = fn;
        if (zc__run_config_get()->verbose)
            fprintf(stderr, "zerocopy run: %s replaced (version %d)\n", name, version);
        return h->replacement;
    }
    return fn;
}

/* cuGetProcAddress in its two forms: _v2 (CUDA 12 and later) tells why a symbol was not found. */
typedef CUresult (*zc__gpa_v1)(const char *, void **, int, cuuint64_t);
typedef CUresult (*zc__gpa_v2)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);
static void *volatile zc__real_gpa_v1, *volatile zc__real_gpa_v2;

CUresult zc__hook_get_proc_v1(const char *symbol, void **pfn, int version, cuuint64_t flags)
    ZC__RUN_EXPORT("cuGetProcAddress");
CUresult zc__hook_get_proc_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                              CUdriverProcAddressQueryResult *status)
    ZC__RUN_EXPORT("cuGetProcAddress_v2");

/* The driver's cuGetProcAddress answered; the program gets our replacements in its place, and
 * our own cuGetProcAddress when it asks for that one. */
static void zc__answer(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    if (pfn == NULL || *pfn == NULL || symbol == NULL)
        return;
    if (strcmp(symbol, "cuGetProcAddress") == 0) {
        /* CUDA 12 gives the _v2 form under this name. */
        if (version >= 12000) {
            zc__real_gpa_v2 = *pfn;
            *pfn = (void *)zc__hook_get_proc_v2;
        } else {
            zc__real_gpa_v1 = *pfn;
            *pfn = (void *)zc__hook_get_proc_v1;
        }
        return;
    }
    *pfn = zc__replace(symbol, 1, *pfn, version, flags);
}

CUresult zc__hook_get_proc_v1(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    zc__gpa_v1 real = (zc__gpa_v1)zc__real_gpa_v1;
    if (real == NULL && zc__run_driver_get() != NULL)
        real = (zc__gpa_v1)zc__run_driver_symbol("cuGetProcAddress");
    if (real == NULL || (void *)real == (void *)zc__hook_get_proc_v1)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, version, flags);
    if (r == CUDA_SUCCESS)
        zc__answer(symbol, pfn, version, flags);
    return r;
}

CUresult zc__hook_get_proc_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                              CUdriverProcAddressQueryResult *status)
{
    zc__gpa_v2 real = (zc__gpa_v2)zc__real_gpa_v2;
    if (real == NULL && zc__run_driver_get() != NULL)
        real = (zc__gpa_v2)zc__run_driver_symbol("cuGetProcAddress_v2");
    if (real == NULL || (void *)real == (void *)zc__hook_get_proc_v2)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, version, flags, status);
    if (r == CUDA_SUCCESS)
        zc__answer(symbol, pfn, version, flags);
    return r;
}

/*
 * dlsym for the whole process. The CUDA runtime opens libcuda.so.1 and asks it for
 * cuGetProcAddress by name, which symbol interposition alone would never see (a handle's lookup
 * starts in that library). Every other name, and every answer that is not a driver entry point
 * we replace, goes back exactly as glibc gives it.
 */
void *zc__run_dlsym_hook(void *handle, const char *name);
void *zc__run_dlsym_hook(void *handle, const char *name)
{
    void *fn = zc__run_real_dlsym(handle, name);
    /* glibc declares name nonnull; a NULL from a program would have crashed glibc's too. */
    if (fn == NULL || name[0] != 'c' || name[1] != 'u')
        return fn;
    if (strcmp(name, "cuGetProcAddress") == 0) {
        if (fn != (void *)zc__hook_get_proc_v1)
            zc__real_gpa_v1 = fn;
        return (void *)zc__hook_get_proc_v1;
    }
    if (strcmp(name, "cuGetProcAddress_v2") == 0) {
        if (fn != (void *)zc__hook_get_proc_v2)
            zc__real_gpa_v2 = fn;
        return (void *)zc__hook_get_proc_v2;
    }
    return zc__replace(name, 0, fn, 0, 0);
}

#if defined(__x86_64__)
/*
 * dlsym(RTLD_NEXT, name) finds the definition after the object that called it, which glibc's
 * dlsym learns from its return address. Called from here, it would answer for this library: a
 * wrapper that finds the function it wraps that way (a preloaded malloc or cuMemAlloc wrapper)
 * would be handed itself and recurse for ever. So RTLD_NEXT jumps to glibc's dlsym with the
 * caller's return address still on the stack, untouched; every other handle goes to the hook.
 */
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    cmpq $-1, %rdi\n" /* RTLD_NEXT */
        "    jne zc__run_dlsym_hook\n"
        "    pushq %rdi\n"
        "    pushq %rsi\n"
        "    subq $8, %rsp\n" /* the call below on a 16-byte boundary */
        "    call zc__run_glibc_dlsym\n"
        "    addq $8, %rsp\n"
        "    popq %rsi\n"
        "    popq %rdi\n"
        "    testq %rax, %rax\n"
        "    jz 1f\n"
        "    jmp *%rax\n"
        "1:  xorl %eax, %eax\n" /* no glibc dlsym found: nothing is */
        "    ret\n"
        ".size dlsym, .-dlsym\n");
_Static_assert(sizeof(void *) == 8, "the dlsym trampoline is for x86-64");
#else
/* Elsewhere RTLD_NEXT is answered relative to this library (docs/run.md, limits). */
__attribute__((visibility("default"))) void *dlsym(void *handle, const char *name)
{
    return zc__run_dlsym_hook(handle, name);
}
#endif
