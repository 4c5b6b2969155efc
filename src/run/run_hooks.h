/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the interposition library: the driver entry points it replaces, one row each,
 * and the driver's own definition of each (which the replacement calls when it leaves a call as
 * it was). */
#ifndef ZC_RUN_HOOKS_H
#define ZC_RUN_HOOKS_H

#if defined(ZC_PART) && !defined(ZC_SEES_run)
#error "src/run/ included from below run: docs/architecture.md's layers (src/CMakeLists.txt)"
#endif

#include <cuda.h>

/* Which default stream a row's entry point uses: none (no stream in it), the legacy one, or
 * the calling thread's (the _ptds and _ptsz forms, what cuGetProcAddress gives for
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM and programs built with --default-stream
 * per-thread call). */
#define ZC__RUN_ANY_STREAM    0
#define ZC__RUN_LEGACY_STREAM 1
#define ZC__RUN_THREAD_STREAM 2

/*
 * X(id, name asked of cuGetProcAddress, exported symbol, first CUDA version with this ABI,
 *   default stream). cuGetProcAddress answers a name with the row of its default stream.
 */
#define ZC__RUN_HOOK_MAP(X)                                                                        \
    X(MEMCPY_HTOD, "cuMemcpyHtoD", "cuMemcpyHtoD_v2", 3020, ZC__RUN_LEGACY_STREAM)                 \
    X(MEMCPY_HTOD_PTDS, "cuMemcpyHtoD", "cuMemcpyHtoD_v2_ptds", 7000, ZC__RUN_THREAD_STREAM)       \
    X(MEMCPY_DTOH, "cuMemcpyDtoH", "cuMemcpyDtoH_v2", 3020, ZC__RUN_LEGACY_STREAM)                 \
    X(MEMCPY_DTOH_PTDS, "cuMemcpyDtoH", "cuMemcpyDtoH_v2_ptds", 7000, ZC__RUN_THREAD_STREAM)       \
    X(MEMCPY_HTOD_ASYNC, "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", 3020, ZC__RUN_LEGACY_STREAM) \
    X(MEMCPY_HTOD_ASYNC_PTSZ, "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2_ptsz", 7000,              \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_DTOH_ASYNC, "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", 3020, ZC__RUN_LEGACY_STREAM) \
    X(MEMCPY_DTOH_ASYNC_PTSZ, "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2_ptsz", 7000,              \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY, "cuMemcpy", "cuMemcpy", 4000, ZC__RUN_LEGACY_STREAM)                                 \
    X(MEMCPY_PTDS, "cuMemcpy", "cuMemcpy_ptds", 7000, ZC__RUN_THREAD_STREAM)                       \
    X(MEMCPY_ASYNC, "cuMemcpyAsync", "cuMemcpyAsync", 4000, ZC__RUN_LEGACY_STREAM)                 \
    X(MEMCPY_ASYNC_PTSZ, "cuMemcpyAsync", "cuMemcpyAsync_ptsz", 7000, ZC__RUN_THREAD_STREAM)       \
    X(MEMCPY_2D, "cuMemcpy2D", "cuMemcpy2D_v2", 3020, ZC__RUN_LEGACY_STREAM)                       \
    X(MEMCPY_2D_PTDS, "cuMemcpy2D", "cuMemcpy2D_v2_ptds", 7000, ZC__RUN_THREAD_STREAM)             \
    X(MEMCPY_2D_UNALIGNED, "cuMemcpy2DUnaligned", "cuMemcpy2DUnaligned_v2", 3020,                  \
      ZC__RUN_LEGACY_STREAM)                                                                       \
    X(MEMCPY_2D_UNALIGNED_PTDS, "cuMemcpy2DUnaligned", "cuMemcpy2DUnaligned_v2_ptds", 7000,        \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_2D_ASYNC, "cuMemcpy2DAsync", "cuMemcpy2DAsync_v2", 3020, ZC__RUN_LEGACY_STREAM)       \
    X(MEMCPY_2D_ASYNC_PTSZ, "cuMemcpy2DAsync", "cuMemcpy2DAsync_v2_ptsz", 7000,                    \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_3D, "cuMemcpy3D", "cuMemcpy3D_v2", 3020, ZC__RUN_LEGACY_STREAM)                       \
    X(MEMCPY_3D_PTDS, "cuMemcpy3D", "cuMemcpy3D_v2_ptds", 7000, ZC__RUN_THREAD_STREAM)             \
    X(MEMCPY_3D_ASYNC, "cuMemcpy3DAsync", "cuMemcpy3DAsync_v2", 3020, ZC__RUN_LEGACY_STREAM)       \
    X(MEMCPY_3D_ASYNC_PTSZ, "cuMemcpy3DAsync", "cuMemcpy3DAsync_v2_ptsz", 7000,                    \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_HTOA_ASYNC, "cuMemcpyHtoAAsync", "cuMemcpyHtoAAsync_v2", 3020, ZC__RUN_LEGACY_STREAM) \
    X(MEMCPY_HTOA_ASYNC_PTSZ, "cuMemcpyHtoAAsync", "cuMemcpyHtoAAsync_v2_ptsz", 7000,              \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_ATOH_ASYNC, "cuMemcpyAtoHAsync", "cuMemcpyAtoHAsync_v2", 3020, ZC__RUN_LEGACY_STREAM) \
    X(MEMCPY_ATOH_ASYNC_PTSZ, "cuMemcpyAtoHAsync", "cuMemcpyAtoHAsync_v2_ptsz", 7000,              \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_3D_PEER_ASYNC, "cuMemcpy3DPeerAsync", "cuMemcpy3DPeerAsync", 4000,                    \
      ZC__RUN_LEGACY_STREAM)                                                                       \
    X(MEMCPY_3D_PEER_ASYNC_PTSZ, "cuMemcpy3DPeerAsync", "cuMemcpy3DPeerAsync_ptsz", 7000,          \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_BATCH_ASYNC, "cuMemcpyBatchAsync", "cuMemcpyBatchAsync_v2", 13000,                    \
      ZC__RUN_LEGACY_STREAM)                                                                       \
    X(MEMCPY_BATCH_ASYNC_PTSZ, "cuMemcpyBatchAsync", "cuMemcpyBatchAsync_v2_ptsz", 13000,          \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(MEMCPY_3D_BATCH_ASYNC, "cuMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync_v2", 13000,             \
      ZC__RUN_LEGACY_STREAM)                                                                       \
    X(MEMCPY_3D_BATCH_ASYNC_PTSZ, "cuMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync_v2_ptsz", 13000,   \
      ZC__RUN_THREAD_STREAM)                                                                       \
    X(GRAPH_ADD_MEMCPY_NODE, "cuGraphAddMemcpyNode", "cuGraphAddMemcpyNode", 10000,                \
      ZC__RUN_ANY_STREAM)                                                                          \
    X(GRAPH_MEMCPY_NODE_SET_PARAMS, "cuGraphMemcpyNodeSetParams", "cuGraphMemcpyNodeSetParams",    \
      10000, ZC__RUN_ANY_STREAM)                                                                   \
    X(GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS, "cuGraphExecMemcpyNodeSetParams",                         \
      "cuGraphExecMemcpyNodeSetParams", 10020, ZC__RUN_ANY_STREAM)                                 \
    X(GRAPH_ADD_NODE, "cuGraphAddNode", "cuGraphAddNode_v2", 12030, ZC__RUN_ANY_STREAM)            \
    X(GRAPH_NODE_SET_PARAMS, "cuGraphNodeSetParams", "cuGraphNodeSetParams", 12020,                \
      ZC__RUN_ANY_STREAM)                                                                          \
    X(GRAPH_EXEC_NODE_SET_PARAMS, "cuGraphExecNodeSetParams", "cuGraphExecNodeSetParams", 12020,   \
      ZC__RUN_ANY_STREAM)                                                                          \
    X(MEM_HOST_ALLOC, "cuMemHostAlloc", "cuMemHostAlloc", 2020, ZC__RUN_ANY_STREAM)                \
    X(MEM_ALLOC_HOST, "cuMemAllocHost", "cuMemAllocHost_v2", 3020, ZC__RUN_ANY_STREAM)             \
    X(MEM_FREE_HOST, "cuMemFreeHost", "cuMemFreeHost", 2000, ZC__RUN_ANY_STREAM)                   \
    X(MEM_HOST_REGISTER, "cuMemHostRegister", "cuMemHostRegister_v2", 6050, ZC__RUN_ANY_STREAM)    \
    X(MEM_HOST_UNREGISTER, "cuMemHostUnregister", "cuMemHostUnregister", 4000, ZC__RUN_ANY_STREAM) \
    X(POINTER_GET_ATTRIBUTE, "cuPointerGetAttribute", "cuPointerGetAttribute", 4000,               \
      ZC__RUN_ANY_STREAM)                                                                          \
    X(POINTER_GET_ATTRIBUTES, "cuPointerGetAttributes", "cuPointerGetAttributes", 7000,            \
      ZC__RUN_ANY_STREAM)                                                                          \
    X(MEM_HOST_GET_FLAGS, "cuMemHostGetFlags", "cuMemHostGetFlags", 2030, ZC__RUN_ANY_STREAM)      \
    X(MEM_HOST_GET_DEVICE_POINTER, "cuMemHostGetDevicePointer", "cuMemHostGetDevicePointer_v2",    \
      3020, ZC__RUN_ANY_STREAM)                                                                    \
    X(CTX_DESTROY, "cuCtxDestroy", "cuCtxDestroy_v2", 4000, ZC__RUN_ANY_STREAM)                    \
    X(PRIMARY_RESET, "cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset_v2", 7000,                \
      ZC__RUN_ANY_STREAM)                                                                          \
    X(PRIMARY_RELEASE, "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", 7000,          \
      ZC__RUN_ANY_STREAM)

#define ZC__RUN_HOOK_ENUM(id, proc, symbol, version, default_stream) ZC__HOOK_##id,
typedef enum zc__run_hook_id { ZC__RUN_HOOK_MAP(ZC__RUN_HOOK_ENUM) ZC__HOOK_COUNT } zc__run_hook_id;
#undef ZC__RUN_HOOK_ENUM

/* The driver's definition of a replaced entry point (the one cuGetProcAddress or dlsym gave the
 * program, else libcuda's symbol), or NULL when there is none. */
void *zc__run_real(zc__run_hook_id id);

/* In a function that gives a CUresult: give the driver's own entry point of row id called with
 * the arguments, or CUDA_ERROR_NOT_INITIALIZED without one (as from a driver that is not
 * there). type is the entry point's function pointer type. */
#define ZC__RUN_RETURN_REAL(type, id, ...)                                                         \
    do {                                                                                           \
        type zc__real_fn = (type)zc__run_real(id);                                                 \
        return zc__real_fn != NULL ? zc__real_fn(__VA_ARGS__) : CUDA_ERROR_NOT_INITIALIZED;        \
    } while (0)

/* Where the replacements are defined: the exported symbol is the driver's name, so that a
 * program linked with -lcuda reaches them too. */
#define ZC__RUN_EXPORT(symbol) __asm__(symbol) __attribute__((visibility("default")))

/* The replacements (run_copy.c, run_copy_pitched.c, run_pinning.c, run_guards.c,
 * run_pins_view.c). */
CUresult zc__hook_MEMCPY_HTOD(CUdeviceptr dst, const void *src, size_t bytes)
    ZC__RUN_EXPORT("cuMemcpyHtoD_v2");
CUresult zc__hook_MEMCPY_DTOH(void *dst, CUdeviceptr src, size_t bytes)
    ZC__RUN_EXPORT("cuMemcpyDtoH_v2");
CUresult zc__hook_MEMCPY_HTOD_ASYNC(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyHtoDAsync_v2");
CUresult zc__hook_MEMCPY_DTOH_ASYNC(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyDtoHAsync_v2");
CUresult zc__hook_MEMCPY(CUdeviceptr dst, CUdeviceptr src, size_t bytes) ZC__RUN_EXPORT("cuMemcpy");
CUresult zc__hook_MEMCPY_ASYNC(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyAsync");
CUresult zc__hook_MEMCPY_HTOD_PTDS(CUdeviceptr dst, const void *src, size_t bytes)
    ZC__RUN_EXPORT("cuMemcpyHtoD_v2_ptds");
CUresult zc__hook_MEMCPY_DTOH_PTDS(void *dst, CUdeviceptr src, size_t bytes)
    ZC__RUN_EXPORT("cuMemcpyDtoH_v2_ptds");
CUresult zc__hook_MEMCPY_HTOD_ASYNC_PTSZ(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyHtoDAsync_v2_ptsz");
CUresult zc__hook_MEMCPY_DTOH_ASYNC_PTSZ(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyDtoHAsync_v2_ptsz");
CUresult zc__hook_MEMCPY_PTDS(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
    ZC__RUN_EXPORT("cuMemcpy_ptds");
CUresult zc__hook_MEMCPY_ASYNC_PTSZ(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyAsync_ptsz");
CUresult zc__hook_MEMCPY_2D_PTDS(const CUDA_MEMCPY2D *p) ZC__RUN_EXPORT("cuMemcpy2D_v2_ptds");
CUresult zc__hook_MEMCPY_2D_UNALIGNED_PTDS(const CUDA_MEMCPY2D *p)
    ZC__RUN_EXPORT("cuMemcpy2DUnaligned_v2_ptds");
CUresult zc__hook_MEMCPY_2D_ASYNC_PTSZ(const CUDA_MEMCPY2D *p, CUstream stream)
    ZC__RUN_EXPORT("cuMemcpy2DAsync_v2_ptsz");
CUresult zc__hook_MEMCPY_2D(const CUDA_MEMCPY2D *p) ZC__RUN_EXPORT("cuMemcpy2D_v2");
CUresult zc__hook_MEMCPY_2D_UNALIGNED(const CUDA_MEMCPY2D *p)
    ZC__RUN_EXPORT("cuMemcpy2DUnaligned_v2");
CUresult zc__hook_MEMCPY_2D_ASYNC(const CUDA_MEMCPY2D *p, CUstream stream)
    ZC__RUN_EXPORT("cuMemcpy2DAsync_v2");
CUresult zc__hook_MEMCPY_3D(const CUDA_MEMCPY3D *p) ZC__RUN_EXPORT("cuMemcpy3D_v2");
CUresult zc__hook_MEMCPY_3D_PTDS(const CUDA_MEMCPY3D *p) ZC__RUN_EXPORT("cuMemcpy3D_v2_ptds");
CUresult zc__hook_MEMCPY_3D_ASYNC(const CUDA_MEMCPY3D *p, CUstream stream)
    ZC__RUN_EXPORT("cuMemcpy3DAsync_v2");
CUresult zc__hook_MEMCPY_3D_ASYNC_PTSZ(const CUDA_MEMCPY3D *p, CUstream stream)
    ZC__RUN_EXPORT("cuMemcpy3DAsync_v2_ptsz");
CUresult zc__hook_MEMCPY_HTOA_ASYNC(CUarray a, size_t offset, const void *src, size_t bytes,
                                    CUstream s) ZC__RUN_EXPORT("cuMemcpyHtoAAsync_v2");
CUresult zc__hook_MEMCPY_HTOA_ASYNC_PTSZ(CUarray a, size_t offset, const void *src, size_t bytes,
                                         CUstream s) ZC__RUN_EXPORT("cuMemcpyHtoAAsync_v2_ptsz");
CUresult zc__hook_MEMCPY_ATOH_ASYNC(void *dst, CUarray a, size_t offset, size_t bytes, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyAtoHAsync_v2");
CUresult zc__hook_MEMCPY_ATOH_ASYNC_PTSZ(void *dst, CUarray a, size_t offset, size_t bytes,
                                         CUstream s) ZC__RUN_EXPORT("cuMemcpyAtoHAsync_v2_ptsz");
CUresult zc__hook_MEMCPY_3D_PEER_ASYNC(const CUDA_MEMCPY3D_PEER *p, CUstream s)
    ZC__RUN_EXPORT("cuMemcpy3DPeerAsync");
CUresult zc__hook_MEMCPY_3D_PEER_ASYNC_PTSZ(const CUDA_MEMCPY3D_PEER *p, CUstream s)
    ZC__RUN_EXPORT("cuMemcpy3DPeerAsync_ptsz");
CUresult zc__hook_MEMCPY_BATCH_ASYNC(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                     size_t count, CUmemcpyAttributes *attrs, size_t *attrs_idxs,
                                     size_t num_attrs, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyBatchAsync_v2");
CUresult zc__hook_MEMCPY_BATCH_ASYNC_PTSZ(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                          size_t count, CUmemcpyAttributes *attrs,
                                          size_t *attrs_idxs, size_t num_attrs, CUstream s)
    ZC__RUN_EXPORT("cuMemcpyBatchAsync_v2_ptsz");
CUresult zc__hook_MEMCPY_3D_BATCH_ASYNC(size_t count, CUDA_MEMCPY3D_BATCH_OP *ops,
                                        unsigned long long flags, CUstream s)
    ZC__RUN_EXPORT("cuMemcpy3DBatchAsync_v2");
CUresult zc__hook_MEMCPY_3D_BATCH_ASYNC_PTSZ(size_t count, CUDA_MEMCPY3D_BATCH_OP *ops,
                                             unsigned long long flags, CUstream s)
    ZC__RUN_EXPORT("cuMemcpy3DBatchAsync_v2_ptsz");
CUresult zc__hook_GRAPH_ADD_MEMCPY_NODE(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                        size_t count, const CUDA_MEMCPY3D *p, CUcontext ctx)
    ZC__RUN_EXPORT("cuGraphAddMemcpyNode");
CUresult zc__hook_GRAPH_MEMCPY_NODE_SET_PARAMS(CUgraphNode node, const CUDA_MEMCPY3D *p)
    ZC__RUN_EXPORT("cuGraphMemcpyNodeSetParams");
CUresult zc__hook_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS(CUgraphExec exec, CUgraphNode node,
                                                    const CUDA_MEMCPY3D *p, CUcontext ctx)
    ZC__RUN_EXPORT("cuGraphExecMemcpyNodeSetParams");
CUresult zc__hook_GRAPH_ADD_NODE(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                 const CUgraphEdgeData *edges, size_t count, CUgraphNodeParams *p)
    ZC__RUN_EXPORT("cuGraphAddNode_v2");
CUresult zc__hook_GRAPH_NODE_SET_PARAMS(CUgraphNode node, CUgraphNodeParams *p)
    ZC__RUN_EXPORT("cuGraphNodeSetParams");
CUresult zc__hook_GRAPH_EXEC_NODE_SET_PARAMS(CUgraphExec exec, CUgraphNode node,
                                             CUgraphNodeParams *p)
    ZC__RUN_EXPORT("cuGraphExecNodeSetParams");
CUresult zc__hook_MEM_HOST_REGISTER(void *p, size_t bytes, unsigned flags)
    ZC__RUN_EXPORT("cuMemHostRegister_v2");
CUresult zc__hook_MEM_HOST_UNREGISTER(void *p) ZC__RUN_EXPORT("cuMemHostUnregister");
CUresult zc__hook_POINTER_GET_ATTRIBUTE(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
    ZC__RUN_EXPORT("cuPointerGetAttribute");
CUresult zc__hook_POINTER_GET_ATTRIBUTES(unsigned count, CUpointer_attribute *attributes,
                                         void **data, CUdeviceptr ptr)
    ZC__RUN_EXPORT("cuPointerGetAttributes");
CUresult zc__hook_MEM_HOST_GET_FLAGS(unsigned *flags, void *p) ZC__RUN_EXPORT("cuMemHostGetFlags");
CUresult zc__hook_MEM_HOST_GET_DEVICE_POINTER(CUdeviceptr *dptr, void *p, unsigned flags)
    ZC__RUN_EXPORT("cuMemHostGetDevicePointer_v2");
CUresult zc__hook_MEM_HOST_ALLOC(void **p, size_t bytes, unsigned int flags)
    ZC__RUN_EXPORT("cuMemHostAlloc");
CUresult zc__hook_MEM_ALLOC_HOST(void **p, size_t bytes) ZC__RUN_EXPORT("cuMemAllocHost_v2");
CUresult zc__hook_MEM_FREE_HOST(void *p) ZC__RUN_EXPORT("cuMemFreeHost");
CUresult zc__hook_CTX_DESTROY(CUcontext ctx) ZC__RUN_EXPORT("cuCtxDestroy_v2");
CUresult zc__hook_PRIMARY_RESET(CUdevice dev) ZC__RUN_EXPORT("cuDevicePrimaryCtxReset_v2");
CUresult zc__hook_PRIMARY_RELEASE(CUdevice dev) ZC__RUN_EXPORT("cuDevicePrimaryCtxRelease_v2");

#endif
