/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers of every kind (pageable, pinned, mapped, write-combined, registered, managed, device)
 * behind one handle, and queries that say what any pointer is. */
#ifndef ZEROCOPY_BUFFER_H
#define ZEROCOPY_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "zerocopy/export.h"
#include "zerocopy/status.h"

/* The CUDA runtime's stream type is `struct CUstream_st *`: a cudaStream_t passes as is, and
 * this header needs no CUDA header. NULL is the legacy default stream. */
struct CUstream_st;

/*
 * Flags for zc_buffer_alloc and zc_buffer_register. Bits not listed here, or listed but not
 * meaningful for the kind asked for, are rejected with ZC_ERR_INVALID_ARG.
 */
#define ZC_BUFFER_FLAG_MAPPED   0x01u /* pinned / registered: map for the device */
#define ZC_BUFFER_FLAG_PORTABLE 0x02u /* pinned / registered: pinned for every GPU */
#define ZC_BUFFER_FLAG_WRITE_COMBINED                                                              \
    0x04u                                      /* pinned: write-combined (fast to write, slow to   \
                                                  read from the CPU) */
#define ZC_BUFFER_FLAG_READ_ONLY         0x08u /* registered: the device only reads it */
/* Pinned kinds: when pinning fails (out of pinnable memory, no device, unsupported), give
 * pageable memory instead of failing; zc_buffer_is_fallback then says 1. */
#define ZC_BUFFER_FLAG_FALLBACK_PAGEABLE 0x10u
/* Pinned kinds: always cudaHostAlloc, never the faster pinning by registration. */
#define ZC_BUFFER_FLAG_HOST_ALLOC        0x20u
/* Managed: attach to the host (cudaMemAttachHost) instead of globally. Where
 * concurrentManagedAccess is 0, kernels may touch it only once the caller has attached it to a
 * stream (cudaStreamAttachMemAsync). */
#define ZC_BUFFER_FLAG_ATTACH_HOST       0x40u

#define ZC_BUFFER_FLAG_ALL 0x7fu

/* Flags that every kind of pinned memory takes from zc_buffer_alloc. */
#define ZC_BUFFER_FLAGS_PINNED                                                                     \
    (ZC_BUFFER_FLAG_MAPPED | ZC_BUFFER_FLAG_PORTABLE | ZC_BUFFER_FLAG_WRITE_COMBINED |             \
     ZC_BUFFER_FLAG_FALLBACK_PAGEABLE | ZC_BUFFER_FLAG_HOST_ALLOC)

/* What a memory kind is (zc_buffer_kind_props): properties every part reads from the table
 * instead of naming kinds. */
#define ZC_KIND_HOST        0x01u /* the CPU reads and writes it */
#define ZC_KIND_PAGE_LOCKED 0x02u /* page-locked host memory the device may map */
#define ZC_KIND_ON_DEVICE   0x04u /* a GPU's own memory (the CPU cannot touch it) */
#define ZC_KIND_MIGRATES    0x08u /* pages move between host and GPU on demand (managed) */
#define ZC_KIND_BY_REGISTER 0x10u /* the caller's memory, pinned by zc_buffer_register */
/* A copy engine's host end: zc bench measures copies from it each way ("copy.h2d.<key>") and zc
 * advise models them (its copy curves and copy latency in a zc_profile). */
#define ZC_KIND_COPY_SOURCE 0x20u

/*
 * The one list of memory kinds: every part reads it (the enum below, src/mem's table behind
 * zc_buffer_kind_name, _key, _props and _flags, the bench cases generated per kind, zc advise's
 * copy curves, the report and the Python package). Each entry is
 *   X(A, NAME, "name", "key", COPY or NOCOPY, properties, flags, "title")
 * name as people read it, key as bench case names, profiles and JSON fields write it, COPY for a
 * copy source (ZC_KIND_COPY_SOURCE, written as a word so that the bench case ids can be made per
 * copy kind), properties ZC_KIND_*, the ZC_BUFFER_FLAG_* its buffers take, and a title naming
 * the call that makes it. A is passed through for the caller's use. Values are stable: a new kind
 * goes at the end, with its row of exact calls in src/mem/exact.c (docs/architecture.md).
 */
#define ZC_BUFFER_KIND_MAP(X, A)                                                                   \
    X(A, PAGEABLE, "pageable", "pageable", COPY, ZC_KIND_HOST, 0u, "pageable (malloc)")            \
    X(A, PINNED, "pinned", "pinned", COPY, ZC_KIND_HOST | ZC_KIND_PAGE_LOCKED,                     \
      ZC_BUFFER_FLAGS_PINNED, "pinned (cudaHostAlloc)")                                            \
    X(A, MAPPED, "mapped", "mapped", NOCOPY, ZC_KIND_HOST | ZC_KIND_PAGE_LOCKED,                   \
      ZC_BUFFER_FLAGS_PINNED, "mapped pinned (cudaHostAllocMapped)")                               \
    X(A, WRITE_COMBINED, "write-combined", "write_combined", COPY,                                 \
      ZC_KIND_HOST | ZC_KIND_PAGE_LOCKED, ZC_BUFFER_FLAGS_PINNED, "write-combined pinned")         \
    X(A, REGISTERED, "registered", "registered", COPY,                                             \
      ZC_KIND_HOST | ZC_KIND_PAGE_LOCKED | ZC_KIND_BY_REGISTER,                                    \
      ZC_BUFFER_FLAG_MAPPED | ZC_BUFFER_FLAG_PORTABLE | ZC_BUFFER_FLAG_READ_ONLY,                  \
      "registered (malloc + cudaHostRegister)")                                                    \
    X(A, MANAGED, "managed", "managed", NOCOPY, ZC_KIND_HOST | ZC_KIND_MIGRATES,                   \
      ZC_BUFFER_FLAG_ATTACH_HOST, "managed (cudaMallocManaged)")                                   \
    X(A, DEVICE, "device", "device", NOCOPY, ZC_KIND_ON_DEVICE, 0u, "device (cudaMalloc)")         \
    ZC__BUFFER_KIND_PLANT(X, A)

/* tests/mem plants a kind at the end of the list: every per-kind table without its row must
 * fail to build, every table made from the list must grow by itself. */
#ifdef ZC_PLANT_BUFFER_KIND
#define ZC__BUFFER_KIND_PLANT(X, A)                                                                \
    X(A, PLANTED, "planted", "planted", COPY, ZC_KIND_HOST | ZC_KIND_PAGE_LOCKED,                  \
      ZC_BUFFER_FLAGS_PINNED, "planted (tests/mem)")
#else
#define ZC__BUFFER_KIND_PLANT(X, A)
#endif

/* Helpers for users of the list: ZC_BUFFER_KIND_IF_##copy(...) keeps its arguments for a copy
 * source and drops them otherwise; ZC_KIND_COPY_BIT_##copy is its property bit. */
#define ZC_BUFFER_KIND_IF_COPY(...) __VA_ARGS__
#define ZC_BUFFER_KIND_IF_NOCOPY(...)
#define ZC_KIND_COPY_BIT_COPY   ZC_KIND_COPY_SOURCE
#define ZC_KIND_COPY_BIT_NOCOPY 0u

#define ZC__BUFFER_KIND_ENUM(A, NAME, ...) ZC_BUFFER_##NAME,
#define ZC__BUFFER_KIND_ONE(A, NAME, ...)  +1

/* What a buffer is: UNKNOWN (0, pointer queries only), then the list's kinds from 1 in its order:
 * PAGEABLE 1, PINNED 2, MAPPED 3, WRITE_COMBINED 4, REGISTERED 5, MANAGED 6, DEVICE 7. */
typedef enum zc_buffer_kind {
    ZC_BUFFER_UNKNOWN = 0, /* neither the CUDA runtime nor zerocopy knows the pointer */
    ZC_BUFFER_KIND_MAP(ZC__BUFFER_KIND_ENUM, _)
} zc_buffer_kind;

/* UNKNOWN and every kind of the list: the length of every table indexed by kind. */
#define ZC_BUFFER_KIND_COUNT (1 ZC_BUFFER_KIND_MAP(ZC__BUFFER_KIND_ONE, _))

/* The first kind of the list; the kinds are ZC_BUFFER_KIND_FIRST .. ZC_BUFFER_KIND_COUNT - 1. */
#define ZC_BUFFER_KIND_FIRST ZC_BUFFER_PAGEABLE

/*
 * Pinned buffers of at least this many bytes are pinned by mapping pages, touching them and
 * registering them (cudaHostRegister); smaller ones come from cudaHostAlloc. Measured on the
 * H200 (tests/mem/measure_pinning, docs/buffers.md): from 2 MiB this way was 2.8x (2 MiB) to
 * 7.8x (4 GiB) cheaper than cudaHostAlloc; below 2 MiB plain malloc + cudaHostRegister was
 * cheaper still, a path the library does not take yet.
 */
#define ZC_PIN_REGISTER_THRESHOLD ((size_t)2 << 20)

/* How a buffer's memory was obtained (for reports and tests). */
typedef enum zc_buffer_method {
    ZC_METHOD_NONE = 0,
    ZC_METHOD_MALLOC = 1,         /* posix_memalign; free */
    ZC_METHOD_MMAP = 2,           /* anonymous mmap; munmap */
    ZC_METHOD_HOST_ALLOC = 3,     /* cudaHostAlloc; cudaFreeHost */
    ZC_METHOD_MMAP_REGISTER = 4,  /* mmap, touch, cudaHostRegister; unregister, munmap */
    ZC_METHOD_USER_REGISTER = 5,  /* the caller's range, cudaHostRegister; unregister only */
    ZC_METHOD_MALLOC_MANAGED = 6, /* cudaMallocManaged; cudaFree */
    ZC_METHOD_MALLOC_DEVICE = 7   /* cudaMalloc; cudaFree */
} zc_buffer_method;

/* Notes recorded on a buffer: facts the caller must know about it. */
#define ZC_BUFFER_NOTE_FALLBACK             0x1u /* pinning failed; this is pageable memory (see status) */
/* Managed memory on a device without concurrentManagedAccess: the host must not touch the
 * buffer while any kernel runs on that device (the access would fault). */
#define ZC_BUFFER_NOTE_NO_CONCURRENT_ACCESS 0x2u
/* The buffer belongs to a zc_pool and goes back to it when freed. */
#define ZC_BUFFER_NOTE_POOLED               0x4u

/* A buffer. The handle is opaque and never dereferenced by the caller; a handle that was
 * freed is recognised as such (ZC_ERR_DOUBLE_FREE), even after its memory is reused. */
typedef struct zc_buffer zc_buffer;

/* Everything known about one buffer. */
typedef struct zc_buffer_info {
    zc_buffer_kind kind;           /* what the memory is (PAGEABLE after a fallback) */
    zc_buffer_kind requested_kind; /* what was asked for */
    unsigned flags;                /* ZC_BUFFER_FLAG_* in effect */
    unsigned notes;                /* ZC_BUFFER_NOTE_* */
    zc_buffer_method method;
    int device;       /* the GPU it was made for; -1 for pageable memory made with no GPU */
    void *host_ptr;   /* NULL for the device kind */
    void *device_ptr; /* what cudaHostGetDevicePointer gave for host kinds (NULL when the
                         memory is not mapped); the cudaMalloc / managed pointer otherwise;
                         for pageable memory, the host pointer only where the device has
                         pageableMemoryAccess, else NULL */
    size_t size;      /* bytes asked for */
    size_t capacity;  /* bytes actually allocated, pinned or mapped (page rounding, pools) */
    zc_status fallback_status; /* with ZC_BUFFER_NOTE_FALLBACK: why pinning failed */
} zc_buffer_info;

/* The device number that means "the host" for zc_buffer_prefetch and zc_buffer_advise. */
#define ZC_DEVICE_HOST (-1)

/* What zc_buffer_advise may say about managed memory. */
typedef enum zc_advice {
    ZC_ADVISE_READ_MOSTLY = 1,        /* cudaMemAdviseSetReadMostly */
    ZC_ADVISE_UNSET_READ_MOSTLY = 2,  /* cudaMemAdviseUnsetReadMostly */
    ZC_ADVISE_PREFERRED_LOCATION = 3, /* cudaMemAdviseSetPreferredLocation (device or host) */
    ZC_ADVISE_UNSET_PREFERRED_LOCATION = 4,
    ZC_ADVISE_ACCESSED_BY = 5, /* cudaMemAdviseSetAccessedBy */
    ZC_ADVISE_UNSET_ACCESSED_BY = 6
} zc_advice;

/* What a pointer is, as zc_pointer_query reports it. */
typedef struct zc_pointer_info {
    zc_buffer_kind kind;
    unsigned flags;    /* ZC_BUFFER_FLAG_* of the memory, when flags_known */
    int flags_known;   /* 1 when zerocopy made or registered this memory and knows its flags;
                          the runtime alone cannot tell pinned from registered, nor see
                          write-combining */
    int from_zerocopy; /* 1 when the pointer lies in a live zerocopy buffer (or pool block) */
    int device;        /* the GPU the memory belongs to; -1 for host memory with none */
    void *device_ptr;  /* the device-side address of this very byte, NULL when none */
    void *base;        /* start of the zerocopy buffer holding it (NULL when not ours) */
    size_t size;       /* that buffer's capacity (0 when not ours) */
    size_t offset;     /* ptr - base */
    /* 1 when a kernel on the current device may dereference ptr itself on this machine:
     * device and managed memory of a reachable GPU, mapped pinned memory with unified
     * addressing, pageable memory only where pageableMemoryAccess is 1. */
    int kernel_can_access;
    /* Bit d set when GPU d (0..63) may use this pointer: portable pinned memory, every GPU;
     * pinned memory that is not portable, its own GPU; device memory, its own GPU and those
     * with peer access to it enabled in this process; managed memory, every GPU with managed
     * memory; pageable memory, the GPUs with pageableMemoryAccess. 0 with no GPU. Mapped host
     * memory is dereferenced on GPU d at the address zc_buffer_device_ptr_for gives. */
    uint64_t device_mask;
} zc_pointer_info;

/* Totals over every live zerocopy buffer of the process (pool blocks included). */
typedef struct zc_buffer_totals {
    size_t live_buffers;                /* handles not yet freed */
    size_t live_blocks;                 /* allocations held, handed out or cached */
    size_t bytes[ZC_BUFFER_KIND_COUNT]; /* capacity held, by kind */
    size_t pinned_bytes;                /* host memory page-locked by zerocopy */
    uint64_t allocs;                    /* successful allocations and registrations */
    uint64_t frees;
} zc_buffer_totals;

ZC_BEGIN_DECLS

/*
 * Allocate size bytes of the given kind for GPU number device (any kind but REGISTERED). The
 * device kinds need a device; PAGEABLE accepts device -1 and works without a GPU. Failures:
 * ZC_ERR_INVALID_ARG (size 0, unknown kind or flags, flags foreign to the kind, bad device),
 * ZC_ERR_OVERFLOW (size too large to round to pages), ZC_ERR_NO_DEVICE, ZC_ERR_UNSUPPORTED
 * (mapped memory where canMapHostMemory is 0, managed memory where managedMemory is 0),
 * ZC_ERR_NO_MEMORY. Nothing is allocated when a call fails.
 */
ZC_EXTERN zc_status zc_buffer_alloc(size_t size, zc_buffer_kind kind, unsigned flags, int device,
                                    zc_buffer **buf_p);

/*
 * Pin the caller's host range [ptr, ptr + size) with cudaHostRegister and give it a handle of
 * kind REGISTERED. Flags: MAPPED, PORTABLE, READ_ONLY. Failures besides those of
 * zc_buffer_alloc: ZC_ERR_OVERLAP (the range overlaps one already registered or a zerocopy
 * buffer), ZC_ERR_WRONG_KIND (ptr is device or managed memory), ZC_ERR_UNSUPPORTED (READ_ONLY
 * where hostRegisterReadOnlySupported is 0, or no hostRegisterSupported). Freeing the handle
 * unregisters the range and leaves the memory to the caller.
 */
ZC_EXTERN zc_status zc_buffer_register(void *ptr, size_t size, unsigned flags, int device,
                                       zc_buffer **buf_p);

/*
 * Unregister the registration that starts at ptr (the same as freeing its handle).
 * ZC_ERR_NOT_BASE when ptr lies inside a registration but is not its start, ZC_ERR_NOT_FOUND
 * when zerocopy registered nothing there.
 */
ZC_EXTERN zc_status zc_buffer_unregister(void *ptr);

/*
 * Release a buffer with the function its kind needs (free, munmap, cudaFreeHost,
 * cudaHostUnregister, cudaFree). NULL is accepted (ZC_OK). A handle already freed gives
 * ZC_ERR_DOUBLE_FREE and changes nothing. A pool's buffer goes back to its pool.
 */
ZC_EXTERN zc_status zc_buffer_free(zc_buffer *buf);

/* Fill *info_p for a live buffer; ZC_ERR_DOUBLE_FREE for a freed handle. */
ZC_EXTERN zc_status zc_buffer_info_get(const zc_buffer *buf, zc_buffer_info *info_p);

/*
 * Shortcuts to single fields of zc_buffer_info. On a NULL or freed handle they give NULL, 0,
 * ZC_BUFFER_UNKNOWN or -1 and record why in zc_last_error().
 */
ZC_EXTERN void *zc_buffer_host_ptr(const zc_buffer *buf);
ZC_EXTERN void *zc_buffer_device_ptr(const zc_buffer *buf);
ZC_EXTERN size_t zc_buffer_size(const zc_buffer *buf);

/*
 * The address at which kernels on GPU device reach the buffer. Host kinds: mapped memory's
 * cudaHostGetDevicePointer taken with that device current (its own device's pointer without a
 * call); a buffer that is not PORTABLE gives ZC_ERR_WRONG_KIND on any other GPU, and memory
 * that is not mapped ZC_ERR_UNSUPPORTED. Device memory: its own address, on another GPU only
 * once that GPU has peer access to it enabled (else ZC_ERR_UNSUPPORTED, naming
 * cudaDeviceEnablePeerAccess). Managed memory: its address on every GPU. Pageable memory: the
 * host address where that GPU has pageableMemoryAccess. ZC_ERR_INVALID_ARG for a device out of
 * range. The current device is left as it was.
 */
ZC_EXTERN zc_status zc_buffer_device_ptr_for(const zc_buffer *buf, int device, void **ptr_p);
ZC_EXTERN zc_buffer_kind zc_buffer_kind_of(const zc_buffer *buf);
ZC_EXTERN unsigned zc_buffer_flags(const zc_buffer *buf);
ZC_EXTERN int zc_buffer_device(const zc_buffer *buf);
/* 1 when the buffer fell back to pageable memory (ZC_BUFFER_FLAG_FALLBACK_PAGEABLE), else 0. */
ZC_EXTERN int zc_buffer_is_fallback(const zc_buffer *buf);

/*
 * Managed buffers: migrate [offset, offset + length) (length 0: to the end) to a device or to
 * the host (ZC_DEVICE_HOST), queued on stream. ZC_ERR_WRONG_KIND for other kinds,
 * ZC_ERR_UNSUPPORTED where concurrentManagedAccess is 0 (prefetch needs it).
 */
ZC_EXTERN zc_status zc_buffer_prefetch(const zc_buffer *buf, size_t offset, size_t length,
                                       int device, struct CUstream_st *stream);

/* Managed buffers: give the driver advice about [offset, offset + length) for device (a GPU
 * or ZC_DEVICE_HOST). */
ZC_EXTERN zc_status zc_buffer_advise(const zc_buffer *buf, size_t offset, size_t length,
                                     zc_advice advice, int device);

/*
 * Say what ptr is: kind, flags, device, device-side address and whether a kernel may use it
 * directly. Uses cudaPointerGetAttributes and zerocopy's own record of what it allocated and
 * registered. A pointer the runtime calls unregistered host memory is PAGEABLE; with no GPU
 * and not zerocopy's, UNKNOWN (both with ZC_OK). ptr must not be NULL.
 */
ZC_EXTERN zc_status zc_pointer_query(const void *ptr, zc_pointer_info *info_p);

/* Totals over the live buffers of this process (for leak checks and reports). */
ZC_EXTERN zc_status zc_buffer_totals_get(zc_buffer_totals *totals_p);

/* "pageable", "pinned", "mapped", "write-combined", "registered", "managed", "device",
 * "unknown". */
ZC_EXTERN const char *zc_buffer_kind_name(zc_buffer_kind kind);

/* The kind's ZC_KIND_* properties; 0 for ZC_BUFFER_UNKNOWN and values outside the enum. */
ZC_EXTERN unsigned zc_buffer_kind_props(zc_buffer_kind kind);

/* The ZC_BUFFER_FLAG_* a buffer of the kind takes (from zc_buffer_alloc, or zc_buffer_register
 * for a ZC_KIND_BY_REGISTER kind); 0 outside the enum. */
ZC_EXTERN unsigned zc_buffer_kind_flags(zc_buffer_kind kind);

/* The kind's name with the call that makes it ("pinned (cudaHostAlloc)"), for titles; NULL for
 * ZC_BUFFER_UNKNOWN and values outside the enum. */
ZC_EXTERN const char *zc_buffer_kind_title(zc_buffer_kind kind);

/* The kind's name as a key, as bench case names, profiles and JSON fields write it: the name
 * with '_' for '-' ("write_combined"); NULL for ZC_BUFFER_UNKNOWN and values outside the enum. */
ZC_EXTERN const char *zc_buffer_kind_key(zc_buffer_kind kind);

/* The kind named name, its name or its key ("write-combined" and "write_combined" alike);
 * ZC_ERR_NOT_FOUND for anything else ("unknown" included), ZC_ERR_INVALID_ARG for NULL. */
ZC_EXTERN zc_status zc_buffer_kind_from_name(const char *name, zc_buffer_kind *kind_p);

/* "malloc", "mmap", "cudaHostAlloc", "mmap+cudaHostRegister", ... ; "none". */
ZC_EXTERN const char *zc_buffer_method_name(zc_buffer_method method);

ZC_END_DECLS

#endif
