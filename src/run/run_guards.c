/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver entry points no cure takes but that may touch a buffer the register cure pinned in
 * place (run_copy_pin.c says why that matters): asynchronous copies between host memory and
 * CUDA arrays, 3D peer copies and batches wait for their stream when they touch one; a graph's
 * copy node, which may run at any later time, unpins the buffers it names for good, so that the
 * graph reads and writes pageable memory as it would have. Everything else they do is the
 * driver's own call, untouched.
 */
#include <stdint.h>

#include "run_copy.h"
#include "run_hooks.h"

/* After the driver's call r: wait for its stream when plan says so. */
static CUresult zc__after(const zc__run_driver *d, zc__plan plan, CUresult r, CUstream stream)
{
    return r == CUDA_SUCCESS && plan == ZC__WAIT ? d->stream_synchronize(stream) : r;
}

/* The guard plan of a host range, or ZC__AS_IT_WAS without a driver to ask. */
static zc__plan zc__guard(const zc__run_driver *d, const void *host, size_t bytes, CUstream s)
{
    return d != NULL ? zc__run_copy_guard(d, host, bytes, s, 1) : ZC__AS_IT_WAS;
}

typedef CUresult (*zc__htoa_fn)(CUarray, size_t, const void *, size_t, CUstream);
typedef CUresult (*zc__atoh_fn)(void *, CUarray, size_t, size_t, CUstream);
typedef CUresult (*zc__peer_fn)(const CUDA_MEMCPY3D_PEER *, CUstream);
typedef CUresult (*zc__batch_fn)(CUdeviceptr *, CUdeviceptr *, size_t *, size_t,
                                 CUmemcpyAttributes *, size_t *, size_t, CUstream);
typedef CUresult (*zc__batch_3d_fn)(size_t, CUDA_MEMCPY3D_BATCH_OP *, unsigned long long, CUstream);

static CUresult zc__htoa(zc__run_hook_id id, int per_thread, CUarray a, size_t offset,
                         const void *src, size_t bytes, CUstream s)
{
    zc__htoa_fn real = (zc__htoa_fn)zc__run_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    const zc__run_driver *d = zc__run_driver_get();
    CUstream stream = zc__run_stream(s, per_thread);
    zc__plan plan = zc__guard(d, src, bytes, stream);
    return zc__after(d, plan, real(a, offset, src, bytes, s), stream);
}

static CUresult zc__atoh(zc__run_hook_id id, int per_thread, void *dst, CUarray a, size_t offset,
                         size_t bytes, CUstream s)
{
    zc__atoh_fn real = (zc__atoh_fn)zc__run_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    const zc__run_driver *d = zc__run_driver_get();
    CUstream stream = zc__run_stream(s, per_thread);
    zc__plan plan = zc__guard(d, dst, bytes, stream);
    return zc__after(d, plan, real(dst, a, offset, bytes, s), stream);
}

static CUresult zc__peer(zc__run_hook_id id, int per_thread, const CUDA_MEMCPY3D_PEER *p,
                         CUstream s)
{
    zc__peer_fn real = (zc__peer_fn)zc__run_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    const zc__run_driver *d = zc__run_driver_get();
    CUstream stream = zc__run_stream(s, per_thread);
    zc__plan plan = d != NULL ? zc__run_pitched_guard_peer(d, p, stream) : ZC__AS_IT_WAS;
    return zc__after(d, plan, real(p, s), stream);
}

static CUresult zc__batch(zc__run_hook_id id, int per_thread, CUdeviceptr *dsts, CUdeviceptr *srcs,
                          size_t *sizes, size_t count, CUmemcpyAttributes *attrs,
                          size_t *attrs_idxs, size_t num_attrs, CUstream s)
{
    zc__batch_fn real = (zc__batch_fn)zc__run_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    const zc__run_driver *d = zc__run_driver_get();
    CUstream stream = zc__run_stream(s, per_thread);
    zc__plan plan = ZC__AS_IT_WAS;
    for (size_t i = 0; dsts != NULL && srcs != NULL && sizes != NULL && i < count; i++) {
        if (zc__guard(d, (const void *)(uintptr_t)srcs[i], sizes[i], stream) == ZC__WAIT ||
            zc__guard(d, (const void *)(uintptr_t)dsts[i], sizes[i], stream) == ZC__WAIT)
            plan = ZC__WAIT;
    }
    return zc__after(d, plan, real(dsts, srcs, sizes, count, attrs, attrs_idxs, num_attrs, s),
                     stream);
}

/* A 3D batch operand given by pointer: its first byte (the layout is in elements of a size the
 * call does not say, so the guard asks about the byte where it starts). */
static zc__plan zc__operand(const zc__run_driver *d, const CUmemcpy3DOperand *o, CUstream s)
{
    if (o->type != CU_MEMCPY_OPERAND_TYPE_POINTER)
        return ZC__AS_IT_WAS;
    return zc__guard(d, (const void *)(uintptr_t)o->op.ptr.ptr, 1, s);
}

static CUresult zc__batch_3d(zc__run_hook_id id, int per_thread, size_t count,
                             CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags, CUstream s)
{
    zc__batch_3d_fn real = (zc__batch_3d_fn)zc__run_real(id);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    const zc__run_driver *d = zc__run_driver_get();
    CUstream stream = zc__run_stream(s, per_thread);
    zc__plan plan = ZC__AS_IT_WAS;
    for (size_t i = 0; ops != NULL && i < count; i++) {
        if (zc__operand(d, &ops[i].src, stream) == ZC__WAIT ||
            zc__operand(d, &ops[i].dst, stream) == ZC__WAIT)
            plan = ZC__WAIT;
    }
    return zc__after(d, plan, real(count, ops, flags, s), stream);
}

CUresult zc__hook_MEMCPY_HTOA_ASYNC(CUarray a, size_t offset, const void *src, size_t bytes,
                                    CUstream s)
{
    return zc__htoa(ZC__HOOK_MEMCPY_HTOA_ASYNC, 0, a, offset, src, bytes, s);
}

CUresult zc__hook_MEMCPY_HTOA_ASYNC_PTSZ(CUarray a, size_t offset, const void *src, size_t bytes,
                                         CUstream s)
{
    return zc__htoa(ZC__HOOK_MEMCPY_HTOA_ASYNC_PTSZ, 1, a, offset, src, bytes, s);
}

CUresult zc__hook_MEMCPY_ATOH_ASYNC(void *dst, CUarray a, size_t offset, size_t bytes, CUstream s)
{
    return zc__atoh(ZC__HOOK_MEMCPY_ATOH_ASYNC, 0, dst, a, offset, bytes, s);
}

CUresult zc__hook_MEMCPY_ATOH_ASYNC_PTSZ(void *dst, CUarray a, size_t offset, size_t bytes,
                                         CUstream s)
{
    return zc__atoh(ZC__HOOK_MEMCPY_ATOH_ASYNC_PTSZ, 1, dst, a, offset, bytes, s);
}

CUresult zc__hook_MEMCPY_3D_PEER_ASYNC(const CUDA_MEMCPY3D_PEER *p, CUstream s)
{
    return zc__peer(ZC__HOOK_MEMCPY_3D_PEER_ASYNC, 0, p, s);
}

CUresult zc__hook_MEMCPY_3D_PEER_ASYNC_PTSZ(const CUDA_MEMCPY3D_PEER *p, CUstream s)
{
    return zc__peer(ZC__HOOK_MEMCPY_3D_PEER_ASYNC_PTSZ, 1, p, s);
}

CUresult zc__hook_MEMCPY_BATCH_ASYNC(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                     size_t count, CUmemcpyAttributes *attrs, size_t *attrs_idxs,
                                     size_t num_attrs, CUstream s)
{
    return zc__batch(ZC__HOOK_MEMCPY_BATCH_ASYNC, 0, dsts, srcs, sizes, count, attrs, attrs_idxs,
                     num_attrs, s);
}

CUresult zc__hook_MEMCPY_BATCH_ASYNC_PTSZ(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                          size_t count, CUmemcpyAttributes *attrs,
                                          size_t *attrs_idxs, size_t num_attrs, CUstream s)
{
    return zc__batch(ZC__HOOK_MEMCPY_BATCH_ASYNC_PTSZ, 1, dsts, srcs, sizes, count, attrs,
                     attrs_idxs, num_attrs, s);
}

CUresult zc__hook_MEMCPY_3D_BATCH_ASYNC(size_t count, CUDA_MEMCPY3D_BATCH_OP *ops,
                                        unsigned long long flags, CUstream s)
{
    return zc__batch_3d(ZC__HOOK_MEMCPY_3D_BATCH_ASYNC, 0, count, ops, flags, s);
}

CUresult zc__hook_MEMCPY_3D_BATCH_ASYNC_PTSZ(size_t count, CUDA_MEMCPY3D_BATCH_OP *ops,
                                             unsigned long long flags, CUstream s)
{
    return zc__batch_3d(ZC__HOOK_MEMCPY_3D_BATCH_ASYNC_PTSZ, 1, count, ops, flags, s);
}

/* ---- graphs: a copy node's host memory must stay pageable ---- */

typedef CUresult (*zc__add_memcpy_node_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                           const CUDA_MEMCPY3D *, CUcontext);
typedef CUresult (*zc__memcpy_node_set_fn)(CUgraphNode, const CUDA_MEMCPY3D *);
typedef CUresult (*zc__exec_memcpy_node_set_fn)(CUgraphExec, CUgraphNode, const CUDA_MEMCPY3D *,
                                                CUcontext);
typedef CUresult (*zc__add_node_fn)(CUgraphNode *, CUgraph, const CUgraphNode *,
                                    const CUgraphEdgeData *, size_t, CUgraphNodeParams *);
typedef CUresult (*zc__node_set_fn)(CUgraphNode, CUgraphNodeParams *);
typedef CUresult (*zc__exec_node_set_fn)(CUgraphExec, CUgraphNode, CUgraphNodeParams *);

static void zc__refuse_params(const CUgraphNodeParams *p)
{
    if (p != NULL && p->type == CU_GRAPH_NODE_TYPE_MEMCPY)
        zc__run_pitched_refuse_3d(&p->memcpy.copyParams);
}

CUresult zc__hook_GRAPH_ADD_MEMCPY_NODE(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                        size_t count, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    zc__add_memcpy_node_fn real =
        (zc__add_memcpy_node_fn)zc__run_real(ZC__HOOK_GRAPH_ADD_MEMCPY_NODE);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_pitched_refuse_3d(p);
    return real(node, graph, deps, count, p, ctx);
}

CUresult zc__hook_GRAPH_MEMCPY_NODE_SET_PARAMS(CUgraphNode node, const CUDA_MEMCPY3D *p)
{
    zc__memcpy_node_set_fn real =
        (zc__memcpy_node_set_fn)zc__run_real(ZC__HOOK_GRAPH_MEMCPY_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_pitched_refuse_3d(p);
    return real(node, p);
}

CUresult zc__hook_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS(CUgraphExec exec, CUgraphNode node,
                                                    const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    zc__exec_memcpy_node_set_fn real =
        (zc__exec_memcpy_node_set_fn)zc__run_real(ZC__HOOK_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_pitched_refuse_3d(p);
    return real(exec, node, p, ctx);
}

CUresult zc__hook_GRAPH_ADD_NODE(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                 const CUgraphEdgeData *edges, size_t count, CUgraphNodeParams *p)
{
    zc__add_node_fn real = (zc__add_node_fn)zc__run_real(ZC__HOOK_GRAPH_ADD_NODE);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__refuse_params(p);
    return real(node, graph, deps, edges, count, p);
}

CUresult zc__hook_GRAPH_NODE_SET_PARAMS(CUgraphNode node, CUgraphNodeParams *p)
{
    zc__node_set_fn real = (zc__node_set_fn)zc__run_real(ZC__HOOK_GRAPH_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__refuse_params(p);
    return real(node, p);
}

CUresult zc__hook_GRAPH_EXEC_NODE_SET_PARAMS(CUgraphExec exec, CUgraphNode node,
                                             CUgraphNodeParams *p)
{
    zc__exec_node_set_fn real =
        (zc__exec_node_set_fn)zc__run_real(ZC__HOOK_GRAPH_EXEC_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__refuse_params(p);
    return real(exec, node, p);
}
