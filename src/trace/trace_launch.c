/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel launches: read each launch's arguments (their sizes from cuFuncGetParamInfo) and log
 * the pinned host and managed allocations they point into, so that the analysis knows which
 * kernels were given which memory. Counts what it could and could not read. */
#include "trace_inject.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#define ZC__PARAMS_MAX 64  /* arguments read per kernel; more are rare */
#define ZC__WORDS_MAX  512 /* 8-byte words scanned per launch (4 KiB of arguments) */
#define ZC__FUNCS_MAX  1024
#define ZC__BUFFER_MAX 4096

typedef CUresult (*zc__param_info_fn)(CUfunction, size_t, size_t *, size_t *);
typedef CUresult (*zc__name_fn)(const char **, CUfunction);
typedef CUresult (*zc__load_fn)(CUfunction);
/* cuKernelGetParamInfo and cuKernelGetName take a CUkernel: what the runtime launches since
 * CUDA 12 (its kernels live in context-independent libraries), and what a launch's CUfunction
 * handle then is. */
typedef CUresult (*zc__kernel_param_info_fn)(void *, size_t, size_t *, size_t *);
typedef CUresult (*zc__kernel_name_fn)(const char **, void *);
typedef int (*zc__by_symbol_fn)(CUfunction *, const void *); /* cudaGetFuncBySymbol */
typedef CUresult (*zc__error_name_fn)(CUresult, const char **);

static pthread_once_t zc__resolve_once = PTHREAD_ONCE_INIT;
static zc__param_info_fn zc__param_info;
static zc__name_fn zc__func_name;
static zc__load_fn zc__func_load;
static zc__kernel_param_info_fn zc__kernel_param_info;
static zc__kernel_name_fn zc__kernel_name;
static zc__by_symbol_fn zc__by_symbol;
static zc__error_name_fn zc__error_name;

static uint64_t zc__runtime_launches, zc__inspected, zc__failed;
/* The first refusal of each way of asking, for the note that says why arguments went unread. */
static int zc__func_refusal, zc__kernel_refusal;

/* The argument layout of one kernel, cached: asking the driver for every launch would cost a
 * call per argument. */
typedef struct zc__func {
    CUfunction f;
    int count; /* arguments; -1 when the driver could not say */
    uint16_t offset[ZC__PARAMS_MAX], size[ZC__PARAMS_MAX];
    char name[ZC_TRACE_LAUNCH_NAME];
} zc__func;

static pthread_mutex_t zc__funcs_lock = PTHREAD_MUTEX_INITIALIZER;
static zc__func zc__funcs[ZC__FUNCS_MAX];
static size_t zc__func_count;

/* The driver is loaded already (it loaded this library); take its functions from it without
 * linking to it, so that the library also loads on a machine with no driver. */
static void zc__resolve(void)
{
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == NULL)
        driver = RTLD_DEFAULT; /* loaded under another name, in the global scope */
    zc__param_info = (zc__param_info_fn)dlsym(driver, "cuFuncGetParamInfo");
    zc__func_name = (zc__name_fn)dlsym(driver, "cuFuncGetName");
    zc__func_load = (zc__load_fn)dlsym(driver, "cuFuncLoad");
    zc__kernel_param_info = (zc__kernel_param_info_fn)dlsym(driver, "cuKernelGetParamInfo");
    zc__kernel_name = (zc__kernel_name_fn)dlsym(driver, "cuKernelGetName");
    zc__error_name = (zc__error_name_fn)dlsym(driver, "cuGetErrorName");
    /* The program's own CUDA runtime, when it is a shared library in the global scope (a
     * statically linked runtime is not reachable): only for the fallback below. */
    zc__by_symbol = (zc__by_symbol_fn)dlsym(RTLD_DEFAULT, "cudaGetFuncBySymbol");
}

/* Parameter index of handle through the CUfunction or the CUkernel call. */
static CUresult zc__param(CUfunction f, int as_kernel, size_t index, size_t *offset, size_t *size)
{
    if (as_kernel)
        return zc__kernel_param_info(f, index, offset, size);
    return zc__param_info(f, index, offset, size);
}

static void zc__layout(CUfunction f, zc__func *out)
{
    memset(out, 0, sizeof *out);
    out->f = f;
    out->count = -1;
    /* Modules load lazily (CUDA_MODULE_LOADING=LAZY, the default): a kernel about to be launched
     * for the first time may not be loaded yet, and its parameters cannot be asked for until it
     * is. Loading it here is what the launch would do a moment later anyway. */
    if (zc__func_load != NULL)
        (void)zc__func_load(f);
    /* As a CUfunction first, then as the CUkernel the runtime may have launched. Past the last
     * parameter the driver says CUDA_ERROR_INVALID_VALUE; any other failure of the first
     * question means this way cannot say, not that there are no parameters. */
    for (int as_kernel = 0; as_kernel < 2; as_kernel++) {
        if ((as_kernel ? (void *)zc__kernel_param_info : (void *)zc__param_info) == NULL)
            continue;
        size_t offset = 0, size = 0;
        CUresult first = zc__param(f, as_kernel, 0, &offset, &size);
        if (first != CUDA_SUCCESS && first != CUDA_ERROR_INVALID_VALUE) {
            int none = 0;
            (void)__atomic_compare_exchange_n(as_kernel ? &zc__kernel_refusal : &zc__func_refusal,
                                              &none, (int)first, 0, __ATOMIC_RELAXED,
                                              __ATOMIC_RELAXED);
            continue;
        }
        int count = 0;
        for (CUresult r = first; r == CUDA_SUCCESS && count < ZC__PARAMS_MAX;
             r = zc__param(f, as_kernel, (size_t)++count, &offset, &size)) {
            out->offset[count] = (uint16_t)(offset < UINT16_MAX ? offset : UINT16_MAX);
            out->size[count] = (uint16_t)(size < UINT16_MAX ? size : UINT16_MAX);
        }
        out->count = count;
        const char *name = NULL;
        CUresult named = as_kernel
                             ? (zc__kernel_name ? zc__kernel_name(&name, f) : CUDA_ERROR_NOT_FOUND)
                             : (zc__func_name ? zc__func_name(&name, f) : CUDA_ERROR_NOT_FOUND);
        zc__trace_word(named == CUDA_SUCCESS ? name : NULL, out->name, sizeof out->name);
        return;
    }
}

/* The layout of f, from the cache or the driver. */
static void zc__lookup(CUfunction f, zc__func *out)
{
    pthread_mutex_lock(&zc__funcs_lock);
    for (size_t i = 0; i < zc__func_count; i++) {
        if (zc__funcs[i].f == f) {
            *out = zc__funcs[i];
            pthread_mutex_unlock(&zc__funcs_lock);
            return;
        }
    }
    pthread_mutex_unlock(&zc__funcs_lock);
    zc__layout(f, out);
    /* A kernel the driver could not describe is kept too, so that its every launch does not ask
     * again, once the kernel was loaded first: without cuFuncLoad a later launch, its module
     * loaded by then, may yet be described. */
    pthread_mutex_lock(&zc__funcs_lock);
    if (zc__func_count < ZC__FUNCS_MAX && (out->count >= 0 || zc__func_load != NULL))
        zc__funcs[zc__func_count++] = *out;
    pthread_mutex_unlock(&zc__funcs_lock);
}

/* Append the aligned 8-byte words of [value, value + size) to words. */
static size_t zc__words(const void *value, size_t size, uint64_t *words, size_t count)
{
    for (size_t at = 0; at + 8 <= size && count < ZC__WORDS_MAX; at += 8)
        memcpy(&words[count++], (const unsigned char *)value + at, 8);
    return count;
}

/* The argument buffer of a launch that passes "extra" instead of kernelParams. */
static size_t zc__extra_words(void **extra, uint64_t *words)
{
    const void *buffer = NULL;
    size_t size = 0;
    for (size_t i = 0; extra != NULL && extra[i] != CU_LAUNCH_PARAM_END && i < 16; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buffer = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1] != NULL)
            size = *(const size_t *)extra[i + 1];
    }
    if (buffer == NULL)
        return 0;
    return zc__words(buffer, size < ZC__BUFFER_MAX ? size : ZC__BUFFER_MAX, words, 0);
}

void zc__trace_launch_runtime(void)
{
    __atomic_add_fetch(&zc__runtime_launches, 1, __ATOMIC_RELAXED);
}

int zc__trace_launch_inspect(CUfunction f, void **params, void **extra, uint32_t correlation)
{
    pthread_once(&zc__resolve_once, zc__resolve);
    zc__func layout;
    zc__lookup(f, &layout);
    if (layout.count < 0 || (params == NULL && extra == NULL && layout.count > 0))
        return 0;
    uint64_t words[ZC__WORDS_MAX];
    size_t count = 0;
    if (params != NULL) {
        for (int i = 0; i < layout.count; i++)
            count = zc__words(params[i], layout.size[i], words, count);
    } else {
        count = zc__extra_words(extra, words);
    }
    zc_trace_launch launch = {.correlation = correlation};
    launch.range_count =
        zc__trace_ranges_match(words, count, launch.ranges, ZC_TRACE_LAUNCH_RANGES);
    if (launch.range_count == 0)
        return 1;
    cuptiGetTimestamp(&launch.time);
    snprintf(launch.name, sizeof launch.name, "%s", layout.name);
    FILE *log = zc__trace_writer_lock();
    if (log != NULL)
        zc__trace_write_launch(log, &launch);
    zc__trace_writer_unlock();
    return 1;
}

int zc__trace_launch_inspect_runtime(const void *func, void **params, uint32_t correlation)
{
    pthread_once(&zc__resolve_once, zc__resolve);
    CUfunction f = NULL;
    if (zc__by_symbol == NULL || func == NULL || zc__by_symbol(&f, func) != 0 || f == NULL)
        return 0;
    return zc__trace_launch_inspect(f, params, NULL, correlation);
}

void zc__trace_launch_done(int inspected)
{
    __atomic_add_fetch(inspected ? &zc__inspected : &zc__failed, 1, __ATOMIC_RELAXED);
}

static const char *zc__result_name(int result)
{
    const char *name = NULL;
    if (result == 0)
        return "never refused";
    if (zc__error_name == NULL || zc__error_name((CUresult)result, &name) != CUDA_SUCCESS ||
        name == NULL)
        return "refused";
    return name;
}

void zc__trace_launch_refusals_note(void)
{
    int by_func = __atomic_load_n(&zc__func_refusal, __ATOMIC_RELAXED);
    int by_kernel = __atomic_load_n(&zc__kernel_refusal, __ATOMIC_RELAXED);
    if (__atomic_load_n(&zc__failed, __ATOMIC_RELAXED) == 0 || (by_func == 0 && by_kernel == 0))
        return;
    char text[256];
    snprintf(text, sizeof text,
             "the driver refused to describe kernels' parameters: cuFuncGetParamInfo %s (%d), "
             "cuKernelGetParamInfo %s (%d)%s",
             zc__result_name(by_func), by_func, zc__result_name(by_kernel), by_kernel,
             zc__by_symbol ? ""
                           : "; the program's CUDA runtime is static, so cudaGetFuncBySymbol "
                             "could not be asked");
    zc__trace_note("launch_args_unread", text);
}

void zc__trace_launch_counts(uint64_t *runtime_p, uint64_t *inspected_p, uint64_t *failed_p)
{
    *runtime_p = __atomic_load_n(&zc__runtime_launches, __ATOMIC_RELAXED);
    *inspected_p = __atomic_load_n(&zc__inspected, __ATOMIC_RELAXED);
    *failed_p = __atomic_load_n(&zc__failed, __ATOMIC_RELAXED);
}
