/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver entry points no cure stages but that may touch host memory a cure changed (a
 * buffer pinned in place, which the driver would copy asynchronously where the program was
 * promised a pageable buffer's behaviour): asynchronous copies between host memory and CUDA
 * arrays, 3D peer copies and batches are described by the host ranges they touch and asked of
 * the cure table like any copy (a row may make them wait for their stream); a graph's copy node,
 * which may run at any later time, raises RANGE_IN_GRAPH for its host ranges. Everything else
 * they do is the driver's own call, untouched.
 */
#include <stdint.h>

#include "run_copy.h"
#include "run_cures.h"
#include "run_hooks.h"

typedef CUresult (*zc__htoa_fn)(CUarray, size_t, const void *, size_t, CUstream);
typedef CUresult (*zc__atoh_fn)(void *, CUarray, size_t, size_t, CUstream);
typedef CUresult (*zc__peer_fn)(const CUDA_MEMCPY3D_PEER *, CUstream);
typedef CUresult (*zc__batch_fn)(CUdeviceptr *, CUdeviceptr *, size_t *, size_t,
                                 CUmemcpyAttributes *, size_t *, size_t, CUstream);
typedef CUresult (*zc__batch_3d_fn)(size_t, CUDA_MEMCPY3D_BATCH_OP *, unsigned long long, CUstream);

/* The program's arguments of each guarded call, for its zc__run_copy's call. */
typedef struct zc__array_args {
    zc__run_hook_id id;
    CUarray array;
    size_t offset;
    void *host;
    size_t bytes;
    CUstream stream;
} zc__array_args;

typedef struct zc__peer_args {
    zc__run_hook_id id;
    const CUDA_MEMCPY3D_PEER *p;
    CUstream stream;
} zc__peer_args;

typedef struct zc__batch_args {
    zc__run_hook_id id;
    CUdeviceptr *dsts, *srcs;
    size_t *sizes, count;
    CUmemcpyAttributes *attrs;
    size_t *attrs_idxs, num_attrs;
    CUstream stream;
} zc__batch_args;

typedef struct zc__batch_3d_args {
    zc__run_hook_id id;
    size_t count;
    CUDA_MEMCPY3D_BATCH_OP *ops;
    unsigned long long flags;
    CUstream stream;
} zc__batch_3d_args;

static CUresult zc__call_htoa(const zc__run_copy *c)
{
    const zc__array_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__htoa_fn, a->id, a->array, a->offset, a->host, a->bytes, a->stream);
}

static CUresult zc__call_atoh(const zc__run_copy *c)
{
    const zc__array_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__atoh_fn, a->id, a->host, a->array, a->offset, a->bytes, a->stream);
}

static CUresult zc__call_peer(const zc__run_copy *c)
{
    const zc__peer_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__peer_fn, a->id, a->p, a->stream);
}

static CUresult zc__call_batch(const zc__run_copy *c)
{
    const zc__batch_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__batch_fn, a->id, a->dsts, a->srcs, a->sizes, a->count, a->attrs,
                        a->attrs_idxs, a->num_attrs, a->stream);
}

static CUresult zc__call_batch_3d(const zc__run_copy *c)
{
    const zc__batch_3d_args *a = c->args;
    ZC__RUN_RETURN_REAL(zc__batch_3d_fn, a->id, a->count, a->ops, a->flags, a->stream);
}

/* A guarded call with one host range. */
static CUresult zc__guarded(zc__run_copy *c, const void *host, size_t bytes)
{
    if (c->d == NULL || bytes == 0)
        return c->call(c);
    c->kind = ZC__COPY_GUARD;
    c->guard[0] = host;
    c->guard_extent[0] = bytes;
    return zc__run_copy_dispatch(c);
}

static CUresult zc__htoa(zc__run_hook_id id, int per_thread, CUarray array, size_t offset,
                         const void *src, size_t bytes, CUstream s)
{
    zc__array_args a = {id, array, offset, (void *)src, bytes, s};
    zc__run_copy c;
    zc__run_copy_init(&c, zc__call_htoa, &a, s, per_thread, 1);
    return zc__guarded(&c, src, bytes);
}

static CUresult zc__atoh(zc__run_hook_id id, int per_thread, void *dst, CUarray array,
                         size_t offset, size_t bytes, CUstream s)
{
    zc__array_args a = {id, array, offset, dst, bytes, s};
    zc__run_copy c;
    zc__run_copy_init(&c, zc__call_atoh, &a, s, per_thread, 1);
    return zc__guarded(&c, dst, bytes);
}

static CUresult zc__peer(zc__run_hook_id id, int per_thread, const CUDA_MEMCPY3D_PEER *p,
                         CUstream s)
{
    zc__peer_args a = {id, p, s};
    zc__run_copy c;
    zc__run_copy_init(&c, zc__call_peer, &a, s, per_thread, 1);
    return zc__run_describe_peer(&c, p) ? zc__run_copy_dispatch(&c) : c.call(&c);
}

/*
 * A batch: each of its host ranges asked of the table in turn (a guard at a time), then the
 * driver's one call, waited for if any range asked for it. A batch with a range that a cure
 * would stage is never split: the driver's batch runs as the program made it.
 */
static int zc__range_must_wait(zc__run_copy *c, const void *host, size_t bytes)
{
    c->kind = ZC__COPY_GUARD;
    c->guard[0] = host;
    c->guard_extent[0] = bytes;
    c->guard[1] = NULL;
    c->must_wait = 0;
    return zc__run_plan(c) == ZC__WAIT;
}

static CUresult zc__after(const zc__run_copy *c, int wait, CUresult r)
{
    return r == CUDA_SUCCESS && wait ? c->d->stream_synchronize(c->stream) : r;
}

static CUresult zc__batch(zc__run_hook_id id, int per_thread, CUdeviceptr *dsts, CUdeviceptr *srcs,
                          size_t *sizes, size_t count, CUmemcpyAttributes *attrs,
                          size_t *attrs_idxs, size_t num_attrs, CUstream s)
{
    zc__batch_args a = {id, dsts, srcs, sizes, count, attrs, attrs_idxs, num_attrs, s};
    zc__run_copy c;
    zc__run_copy_init(&c, zc__call_batch, &a, s, per_thread, 1);
    int wait = 0;
    for (size_t i = 0; c.d != NULL && dsts != NULL && srcs != NULL && sizes != NULL && i < count;
         i++) {
        wait |= zc__range_must_wait(&c, (const void *)(uintptr_t)srcs[i], sizes[i]);
        wait |= zc__range_must_wait(&c, (const void *)(uintptr_t)dsts[i], sizes[i]);
    }
    return zc__after(&c, wait, c.call(&c));
}

/* A 3D batch operand given by pointer: its first byte (the layout is in elements of a size the
 * call does not say, so the guard asks about the byte where it starts). */
static int zc__operand_must_wait(zc__run_copy *c, const CUmemcpy3DOperand *o)
{
    return o->type == CU_MEMCPY_OPERAND_TYPE_POINTER &&
           zc__range_must_wait(c, (const void *)(uintptr_t)o->op.ptr.ptr, 1);
}

static CUresult zc__batch_3d(zc__run_hook_id id, int per_thread, size_t count,
                             CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags, CUstream s)
{
    zc__batch_3d_args a = {id, count, ops, flags, s};
    zc__run_copy c;
    zc__run_copy_init(&c, zc__call_batch_3d, &a, s, per_thread, 1);
    int wait = 0;
    for (size_t i = 0; c.d != NULL && ops != NULL && i < count; i++) {
        wait |= zc__operand_must_wait(&c, &ops[i].src);
        wait |= zc__operand_must_wait(&c, &ops[i].dst);
    }
    return zc__after(&c, wait, c.call(&c));
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

static void zc__in_graph_params(const CUgraphNodeParams *p)
{
    if (p != NULL && p->type == CU_GRAPH_NODE_TYPE_MEMCPY)
        zc__run_pitched_in_graph(&p->memcpy.copyParams);
}

CUresult zc__hook_GRAPH_ADD_MEMCPY_NODE(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                        size_t count, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    zc__add_memcpy_node_fn real =
        (zc__add_memcpy_node_fn)zc__run_real(ZC__HOOK_GRAPH_ADD_MEMCPY_NODE);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_pitched_in_graph(p);
    return real(node, graph, deps, count, p, ctx);
}

CUresult zc__hook_GRAPH_MEMCPY_NODE_SET_PARAMS(CUgraphNode node, const CUDA_MEMCPY3D *p)
{
    zc__memcpy_node_set_fn real =
        (zc__memcpy_node_set_fn)zc__run_real(ZC__HOOK_GRAPH_MEMCPY_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_pitched_in_graph(p);
    return real(node, p);
}

CUresult zc__hook_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS(CUgraphExec exec, CUgraphNode node,
                                                    const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    zc__exec_memcpy_node_set_fn real =
        (zc__exec_memcpy_node_set_fn)zc__run_real(ZC__HOOK_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__run_pitched_in_graph(p);
    return real(exec, node, p, ctx);
}

CUresult zc__hook_GRAPH_ADD_NODE(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                 const CUgraphEdgeData *edges, size_t count, CUgraphNodeParams *p)
{
    zc__add_node_fn real = (zc__add_node_fn)zc__run_real(ZC__HOOK_GRAPH_ADD_NODE);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__in_graph_params(p);
    return real(node, graph, deps, edges, count, p);
}

CUresult zc__hook_GRAPH_NODE_SET_PARAMS(CUgraphNode node, CUgraphNodeParams *p)
{
    zc__node_set_fn real = (zc__node_set_fn)zc__run_real(ZC__HOOK_GRAPH_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__in_graph_params(p);
    return real(node, p);
}

CUresult zc__hook_GRAPH_EXEC_NODE_SET_PARAMS(CUgraphExec exec, CUgraphNode node,
                                             CUgraphNodeParams *p)
{
    zc__exec_node_set_fn real =
        (zc__exec_node_set_fn)zc__run_real(ZC__HOOK_GRAPH_EXEC_NODE_SET_PARAMS);
    if (real == NULL)
        return CUDA_ERROR_NOT_INITIALIZED;
    zc__in_graph_params(p);
    return real(exec, node, p);
}
