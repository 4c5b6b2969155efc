/* SPDX-License-Identifier: Apache-2.0 */
/* The trace findings, one row each: what zc trace reports, in this order, and the function that
 * decides it. docs/pitfalls.md and docs/json.md name every key (cpu_trace_finding_rows). */
#include "trace_findings.h"

const zc__trace_finding_row zc__trace_finding_rows[] = {
    {
        .key = "pageable_transfers",
        .severity = ZC_TRACE_WARNING,
        .title = "Copies from or to pageable memory",
        .fix = "Allocate the host buffers pinned once (cudaHostAlloc), or pin the existing ones "
               "with cudaHostRegister (about 10x cheaper than cudaHostAlloc), and reuse them; "
               "then cudaMemcpyAsync runs at the link's speed and can overlap kernels. As it is, "
               "zc run stages them by several threads and pins buffers copied again and again in "
               "place; zc run --fix pageable,register,reuse,fresh also keeps each new destination "
               "of a copy back (.cpu()), pinned, for the next, and faults fresh pages in ahead "
               "(docs/run.md).",
        .find = zc__trace_find_pageable,
    },
    {
        .key = "small_transfers",
        .severity = ZC_TRACE_WARNING,
        .title = "Many small copies",
        .fix = "Gather the small pieces into one pinned staging buffer and copy it at once (or "
               "use cudaMemcpyBatchAsync); for a few bytes read by a kernel, let the kernel read "
               "mapped host memory instead of copying.",
        .find = zc__trace_find_small,
    },
    /* Both this and small_transfers may fire on the same copies (300 copies of 4 KiB from
     * pinned memory): small_transfers counts every small copy, of any size and memory, and
     * points to gathering them into one buffer; this counts moves of equal blocks between
     * pinned and device memory, which the mover makes in one call without a staging copy, and
     * prices that. Their savings overlap: never add them up. */
    {
        .key = "block_copies",
        .severity = ZC_TRACE_WARNING,
        .title = "Many blocks moved one call each",
        .fix = "Move the blocks in one call with the block mover: zc_blocks_move "
               "(zerocopy/blocks.h) or zerocopy.Mover in Python takes the list of blocks, or a "
               "base and indices, and runs the engine predicted fastest (one copy per block, "
               "cudaMemcpyBatchAsync, or an SM kernel through mapped memory; docs/blocks.md). "
               "zc advise --blocks SIZE --count N --bench FILE ranks the engines for your "
               "blocks on this machine.",
        .find = zc__trace_find_blocks,
    },
    {
        .key = "sync_copies_serialize",
        .severity = ZC_TRACE_WARNING,
        .title = "Synchronous copies serialize with compute",
        .fix = "Use pinned buffers with cudaMemcpyAsync on non-default streams, split the work "
               "into chunks and pipeline copy-in, kernel and copy-out on two or more streams; "
               "synchronize once per chunk with events, not with cudaMemcpy.",
        .find = zc__trace_find_sync,
    },
    {
        .key = "host_staging_copies",
        .severity = ZC_TRACE_WARNING,
        .title = "Host copies through a framework's pinned buffers",
        .fix = "Hand the framework pinned memory of your own, so that its copies go straight "
               "between it and the device with no host copy beside them (CuPy: an array in "
               "cupyx.empty_pinned memory; PyTorch: pin_memory=True tensors and non_blocking "
               "copies). In the program as it is, zc run --fix hostcopy makes these copies with "
               "several threads (docs/run.md, \"The hostcopy cure\").",
        .find = zc__trace_find_staging,
    },
    {
        .key = "pinned_alloc_in_loop",
        .severity = ZC_TRACE_WARNING,
        .title = "Pinned memory allocated over and over",
        .fix = "Pin once at start-up, outside the loop, and reuse the buffers (a pool of pinned "
               "buffers for varying sizes); free them at exit.",
        .find = zc__trace_find_pin_loop,
    },
    {
        .key = "slow_pinned_alloc",
        .severity = ZC_TRACE_WARNING,
        .title = "cudaHostAlloc time",
        .fix = "Allocate with mmap and huge pages, touch the pages from several threads, then "
               "cudaHostRegister the range (zc_buffer_alloc does it): on the H200 machine that "
               "pinned 1 GiB in 58 ms against 360 ms for cudaHostAlloc; or pin in the "
               "background before the data is needed. In the program as it is, zc run --fix "
               "fastpin,pageable,pinning,register serves large pinned allocations that way "
               "(docs/run.md, \"The fastpin cure\").",
        .find = zc__trace_find_slow_pin,
    },
    {
        .key = "over_pinning",
        .severity = ZC_TRACE_WARNING,
        .title = "Pinned memory out of proportion to RAM",
        .fix = "Pin only the staging buffers that copies go through (a few chunks of tens of "
               "MiB, double-buffered), not whole data sets; stream large data through them with "
               "cudaMemcpyAsync.",
        .find = zc__trace_find_over_pinning,
    },
    {
        .key = "managed_faults",
        .severity = ZC_TRACE_WARNING,
        .title = "Managed memory used by kernels without prefetch",
        .fix = "Prefetch with cudaMemPrefetchAsync to the GPU before the kernels and back to the "
               "CPU before the host reads, or give advice (cudaMemAdviseSetReadMostly, "
               "SetPreferredLocation); for data streamed once, use pinned buffers and explicit "
               "copies instead.",
        .find = zc__trace_find_managed,
    },
    {
        .key = "mapped_memory_reads",
        .severity = ZC_TRACE_NOTE,
        .title = "Mapped host memory read by kernels",
        .fix = "Read mapped memory once per byte with coalesced 16-byte loads; if a kernel reads "
               "the same bytes more than once, copy them to device memory first "
               "(cudaMemcpyAsync) and read them there.",
        .find = zc__trace_find_mapped_reads,
    },
    {
        .key = "mapped_memory_rereads",
        .severity = ZC_TRACE_WARNING,
        .title = "Kernels read mapped host memory again and again",
        .fix = "Copy the host memory to device memory once (cudaMemcpyAsync from the pinned "
               "buffer) and let the kernel read it there; keep zero-copy for data each kernel "
               "reads once, with coalesced loads.",
        .find = zc__trace_find_mapped_rereads,
    },
};

const size_t zc__trace_finding_row_count =
    sizeof zc__trace_finding_rows / sizeof zc__trace_finding_rows[0];

/* Every row's finding fits in a report. */
_Static_assert(sizeof zc__trace_finding_rows / sizeof zc__trace_finding_rows[0] <=
                   ZC_TRACE_FINDING_MAX,
               "a report holds one finding per row: raise ZC_TRACE_FINDING_MAX");
