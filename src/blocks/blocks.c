/* SPDX-License-Identifier: Apache-2.0 */
/* The block mover: its settings, the pointer queries behind the planner's kind ops, and the
 * move, queued on the caller's stream through the chosen engine's executor. */
#include "zerocopy/blocks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "blocks/blocks_exec.h"
#include "blocks/blocks_plan.h"
#include "core/error.h"
#include "device/cuda_check.h"
#include "zerocopy/buffer.h"

struct zc_blocks {
    int device;
    unsigned sm_count;
    unsigned max_sms;
    int batch_runtime;
    zc_blocks_profile profile;
    zc__blocks_plan plan;
    zc__blocks_batch_scratch batch;
    /* Both directions by the copy engines: the to-host list runs on the side stream, forked
     * from the caller's stream and joined back to it, so that each direction has its engine. */
    cudaStream_t side;
    cudaEvent_t fork;
    cudaEvent_t join;
};

/* cuda.h's cuMemGetAddressRange (v2) with plain types: zerocopy never includes the driver's
 * header nor links libcuda (src/device/stream_memops.h says the same). */
typedef int (*zc__address_range_fn)(unsigned long long *base_p, size_t *size_p,
                                    unsigned long long ptr);

static zc__address_range_fn zc__address_range;
static pthread_once_t zc__address_range_once = PTHREAD_ONCE_INIT;

static void zc__address_range_find(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess) {
        ZC_CUDA_IGNORE(cudaGetLastError());
        return;
    }
    if (found == cudaDriverEntryPointSuccess)
        zc__address_range = (zc__address_range_fn)fn;
}

/* The extent of the allocation holding addr where the driver knows it (cudaMalloc'd memory,
 * and host memory where it answers for it), so that blocks of one allocation cost one query;
 * 0 otherwise, and the planner asks about each range's last byte instead. */
static void zc__extent(uintptr_t addr, zc__blocks_region *r)
{
    pthread_once(&zc__address_range_once, zc__address_range_find);
    unsigned long long base = 0;
    size_t size = 0;
    if (zc__address_range == NULL || zc__address_range(&base, &size, addr) != 0)
        return; /* not found there: an expected answer, nothing to report */
    if (size == 0 || addr < base || addr - base >= size)
        return;
    r->base = (uintptr_t)base;
    r->size = size;
}

/* The planner's kind query: zerocopy's record (which knows a buffer's extent), the CUDA
 * runtime's attributes otherwise, and the driver's extent where it has one. */
static zc_status zc__blocks_query(void *ctx, uintptr_t addr, zc__blocks_region *region_p)
{
    (void)ctx;
    zc_pointer_info info;
    ZC_CHECK(zc_pointer_query((const void *)addr, &info));
    zc__blocks_region r = {ZC__BLOCKS_MEM_OTHER, -1, addr, 0, 0};
    unsigned props = zc_buffer_kind_props(info.kind);
    if (props & ZC_KIND_ON_DEVICE)
        r.mem = ZC__BLOCKS_MEM_DEVICE;
    else if (props & ZC_KIND_MIGRATES)
        r.mem = ZC__BLOCKS_MEM_MANAGED;
    else if (props & ZC_KIND_PAGE_LOCKED)
        r.mem = info.device_ptr != NULL ? ZC__BLOCKS_MEM_MAPPED : ZC__BLOCKS_MEM_PINNED;
    else if (props & ZC_KIND_HOST)
        r.mem = ZC__BLOCKS_MEM_PAGEABLE;
    if (r.mem == ZC__BLOCKS_MEM_DEVICE)
        r.device = info.device;
    if (info.from_zerocopy) {
        r.base = (uintptr_t)info.base;
        r.size = info.size;
    } else if (r.mem == ZC__BLOCKS_MEM_DEVICE || r.mem == ZC__BLOCKS_MEM_PINNED ||
               r.mem == ZC__BLOCKS_MEM_MAPPED) {
        zc__extent(addr, &r);
    }
    if (r.mem == ZC__BLOCKS_MEM_MAPPED)
        r.dev_base = (uintptr_t)info.device_ptr - (addr - r.base);
    *region_p = r;
    return ZC_OK;
}

static zc_status zc__mover_streams(zc_blocks *m)
{
    ZC_CHECK(ZC_CUDA(cudaStreamCreateWithFlags(&m->side, cudaStreamNonBlocking)));
    ZC_CHECK(ZC_CUDA(cudaEventCreateWithFlags(&m->fork, cudaEventDisableTiming)));
    return ZC_CUDA(cudaEventCreateWithFlags(&m->join, cudaEventDisableTiming));
}

ZC_EXTERN zc_status zc_blocks_create(int device, zc_blocks **mover_p)
{
    ZC_REQUIRE_ARG(mover_p);
    int count = 0;
    ZC_CHECK(ZC_CUDA(cudaGetDeviceCount(&count)));
    if (device < 0 || device >= count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: device %d is not one of the %d GPUs", __func__,
                       device, count);
    zc_blocks *m = calloc(1, sizeof *m);
    if (m == NULL)
        return ZC_FAIL(ZC_ERR_NO_MEMORY, "%s: no memory for the mover", __func__);
    m->device = device;
    zc__blocks_plan_init(&m->plan);
    zc__blocks_profile_placeholder(&m->profile);
    m->batch_runtime = zc__blocks_batch_available();
    int current = 0, sms = 0;
    zc_status st = ZC_OK;
    ZC_CUDA_GOTO(cudaGetDevice(&current), st, fail);
    ZC_CUDA_GOTO(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), st, fail);
    m->sm_count = (unsigned)sms;
    m->max_sms = ZC_BLOCKS_DEFAULT_MAX_SMS < m->sm_count ? ZC_BLOCKS_DEFAULT_MAX_SMS : m->sm_count;
    ZC_CUDA_GOTO(cudaSetDevice(device), st, fail);
    st = zc__mover_streams(m);
    ZC_CUDA_IGNORE(cudaSetDevice(current));
    if (st != ZC_OK)
        goto fail;
    *mover_p = m;
    return ZC_OK;
fail:
    zc_blocks_destroy(m);
    return st;
}

ZC_EXTERN void zc_blocks_destroy(zc_blocks *mover)
{
    if (mover == NULL)
        return;
    if (mover->join != NULL)
        ZC_CUDA_IGNORE(cudaEventDestroy(mover->join));
    if (mover->fork != NULL)
        ZC_CUDA_IGNORE(cudaEventDestroy(mover->fork));
    if (mover->side != NULL)
        ZC_CUDA_IGNORE(cudaStreamDestroy(mover->side));
    zc__blocks_batch_scratch_fini(&mover->batch);
    zc__blocks_plan_fini(&mover->plan);
    free(mover);
}

ZC_EXTERN zc_status zc_blocks_set_profile(zc_blocks *mover, const zc_blocks_profile *profile)
{
    ZC_REQUIRE_ARG(mover);
    ZC_REQUIRE_ARG(profile);
    ZC_CHECK(zc__blocks_profile_check(__func__, profile));
    mover->profile = *profile;
    return ZC_OK;
}

ZC_EXTERN zc_status zc_blocks_set_max_sms(zc_blocks *mover, unsigned max_sms)
{
    ZC_REQUIRE_ARG(mover);
    if (max_sms == 0 || max_sms > mover->sm_count)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: max_sms %u is not between 1 and the GPU's %u SMs",
                       __func__, max_sms, mover->sm_count);
    mover->max_sms = max_sms;
    return ZC_OK;
}

static zc_status zc__plan(zc_blocks *m, const char *who, const zc_blocks_desc *desc,
                          const zc_blocks_options *options)
{
    zc__blocks_env env = {{zc__blocks_query, NULL}, who,        m->device, m->sm_count, m->max_sms,
                          m->batch_runtime,         &m->profile};
    return zc__blocks_plan_make(&m->plan, &env, desc, options);
}

ZC_EXTERN zc_status zc_blocks_plan(zc_blocks *mover, const zc_blocks_desc *desc,
                                   const zc_blocks_options *options, zc_blocks_choice *choice_p)
{
    ZC_REQUIRE_ARG(mover);
    ZC_REQUIRE_ARG(desc);
    ZC_REQUIRE_ARG(options);
    ZC_REQUIRE_ARG(choice_p);
    ZC_CHECK(zc__plan(mover, __func__, desc, options));
    *choice_p = mover->plan.choice;
    return ZC_OK;
}

/* One direction's items by a copy engine on stream. */
static zc_status zc__copy_dir(zc_blocks *m, const zc__blocks_item *items, size_t n, int to_host,
                              cudaStream_t stream)
{
    if (n == 0)
        return ZC_OK;
    if (m->plan.choice.engine == ZC_BLOCKS_BATCH)
        return zc__blocks_batch_run(&m->batch, items, n, m->profile.batch_max, stream);
    return zc__blocks_copy_run(items, n, to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice,
                               stream);
}

/* The side stream's work joined back into the caller's stream. */
static zc_status zc__join(zc_blocks *m, cudaStream_t stream)
{
    ZC_CHECK(ZC_CUDA(cudaEventRecord(m->join, m->side)));
    return ZC_CUDA(cudaStreamWaitEvent(stream, m->join, 0));
}

/* The copy engines: the to-device list on the caller's stream; the to-host list there too
 * when alone, and on the side stream between a fork and a join when both are given, so that
 * the two directions run at once, each on its copy engine. */
static zc_status zc__copy_move(zc_blocks *m, cudaStream_t stream)
{
    const zc__blocks_plan *p = &m->plan;
    const zc__blocks_item *to_host = p->items + p->n_to_device;
    if (p->n_to_device == 0 || p->n_to_host == 0) {
        ZC_CHECK(zc__copy_dir(m, p->items, p->n_to_device, 0, stream));
        return zc__copy_dir(m, to_host, p->n_to_host, 1, stream);
    }
    ZC_CHECK(ZC_CUDA(cudaEventRecord(m->fork, stream)));
    ZC_CHECK(ZC_CUDA(cudaStreamWaitEvent(m->side, m->fork, 0)));
    zc_status st = zc__copy_dir(m, to_host, p->n_to_host, 1, m->side);
    if (st == ZC_OK)
        st = zc__copy_dir(m, p->items, p->n_to_device, 0, stream);
    /* Joined after a failure too, so that the caller's stream never runs ahead of copies
     * already queued on the side stream; the failure's detail is the one kept. */
    if (st == ZC_OK)
        return zc__join(m, stream);
    ZC_CHECK_IGNORE(zc__join(m, stream));
    return st;
}

/* The chosen engine's executor. A switch without a default: an engine of the list without its
 * case here fails to build (-Wswitch, warnings as errors; cpu_blocks_plant_engine_exec). */
static zc_status zc__queue(zc_blocks *m, cudaStream_t stream)
{
    const zc__blocks_plan *p = &m->plan;
    switch (p->choice.engine) {
    case ZC_BLOCKS_COPY:
    case ZC_BLOCKS_BATCH:
        return zc__copy_move(m, stream);
    case ZC_BLOCKS_KERNEL:
        return zc__blocks_kernel_run(p->items, p->n_to_device, p->n_to_device + p->n_to_host,
                                     p->choice.sms, stream);
    case ZC_BLOCKS_AUTO:
        break;
    }
    return ZC_FAIL(ZC_ERR_STATE, "zc_blocks_move: the plan chose no engine");
}

ZC_EXTERN zc_status zc_blocks_move(zc_blocks *mover, const zc_blocks_desc *desc,
                                   const zc_blocks_options *options, zc_blocks_choice *choice_p)
{
    ZC_REQUIRE_ARG(mover);
    ZC_REQUIRE_ARG(desc);
    ZC_REQUIRE_ARG(options);
    ZC_CHECK(zc__plan(mover, __func__, desc, options));
    int current = 0;
    ZC_CHECK(ZC_CUDA(cudaGetDevice(&current)));
    if (current != mover->device)
        ZC_CHECK(ZC_CUDA(cudaSetDevice(mover->device)));
    zc_status st = zc__queue(mover, (cudaStream_t)options->stream);
    if (current != mover->device)
        ZC_CUDA_IGNORE(cudaSetDevice(current));
    ZC_CHECK(st);
    if (choice_p != NULL)
        *choice_p = mover->plan.choice;
    return ZC_OK;
}
