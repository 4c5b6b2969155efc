/* SPDX-License-Identifier: Apache-2.0 */
/* One sentence per technique saying what a GPU's capabilities mean for it. */
#include "zerocopy/device.h"

#include <stdio.h>

#include "core/error.h"

static void zc__note(zc_technique_note *note, const char *key, const char *title,
                     zc_verdict verdict, const char *text)
{
    note->key = key;
    note->title = title;
    note->verdict = verdict;
    snprintf(note->text, sizeof note->text, "%s", text);
}

ZC_EXTERN zc_status zc_device_technique_notes(const zc_device_info *info,
                                              zc_technique_note notes[ZC_TECHNIQUE_NOTE_COUNT])
{
    ZC_REQUIRE_ARG(info);
    ZC_REQUIRE_ARG(notes);
    const zc_device_info *d = info;
    int n = 0;

    zc__note(&notes[n++], "pageable", "Pageable (malloc) copies", ZC_VERDICT_LIMITED,
             "works everywhere, but every cudaMemcpy is staged through a driver buffer: "
             "expect a fraction of the link and no true async copies");
    zc__note(&notes[n++], "pinned", "Pinned memory (cudaHostAlloc)", ZC_VERDICT_YES,
             d->async_engine_count >= 2
                 ? "yes: copies run at link speed and overlap with kernels; with 2+ copy "
                   "engines H2D and D2H run at the same time"
                 : "yes: copies run at link speed and overlap with kernels (one copy engine: "
                   "one direction at a time)");
    zc__note(&notes[n++], "mapped", "Mapped (zero-copy) host memory",
             d->can_map_host_memory ? ZC_VERDICT_YES : ZC_VERDICT_NO,
             d->can_map_host_memory
                 ? (d->integrated ? "yes, and this GPU shares the host's memory: no link to cross"
                                  : "yes: kernels read and write host memory across PCIe, "
                                    "no copy; every access pays the link")
                 : "no: canMapHostMemory is 0, cudaHostAllocMapped fails on this device");
    zc__note(&notes[n++], "uva", "Unified virtual addressing",
             d->unified_addressing ? ZC_VERDICT_YES : ZC_VERDICT_NO,
             d->unified_addressing
                 ? "yes: one address space; a cudaHostAlloc pointer can be passed to a kernel "
                   "as is, and cudaMemcpyDefault infers the direction"
                 : "no: host and device pointers differ; always ask cudaHostGetDevicePointer");
    zc__note(&notes[n++], "write_combined", "Write-combined pinned memory",
             d->can_map_host_memory ? ZC_VERDICT_LIMITED : ZC_VERDICT_NO,
             "for buffers the CPU only writes: CPU reads from it are uncached and very slow");
    zc__note(&notes[n++], "registered", "Registered memory (cudaHostRegister)",
             d->host_register_supported ? ZC_VERDICT_YES : ZC_VERDICT_NO,
             d->host_register_supported
                 ? (d->can_use_host_pointer_for_registered_mem
                        ? "yes: pins an existing range in place; the device can use the host "
                          "address as is"
                        : "yes: pins an existing range in place; kernels need the pointer from "
                          "cudaHostGetDevicePointer")
                 : "no: cudaHostRegister is not supported on this device");
    zc__note(&notes[n++], "managed", "Managed (unified) memory",
             !d->managed_memory             ? ZC_VERDICT_NO
             : d->concurrent_managed_access ? ZC_VERDICT_YES
                                            : ZC_VERDICT_LIMITED,
             !d->managed_memory ? "no: managed memory is not supported"
             : d->concurrent_managed_access
                 ? "yes: pages migrate on demand; prefetch and advice avoid fault storms; the "
                   "CPU may touch it while kernels run"
                 : "limited: concurrentManagedAccess is 0, so the CPU must not touch managed "
                   "memory while any kernel runs");
    zc__note(&notes[n++], "pageable_gpu_access", "GPU access to malloc memory",
             d->pageable_memory_access ? ZC_VERDICT_YES : ZC_VERDICT_NO,
             d->pageable_memory_access
                 ? "yes: kernels may dereference plain malloc pointers (HMM or ATS)"
                 : "no: a kernel that dereferences a pageable pointer faults and the context is "
                   "lost; pin or register the memory first");
    zc__note(&notes[n++], "host_atomics", "Atomics shared by CPU and GPU",
             d->host_native_atomic_supported ? ZC_VERDICT_YES : ZC_VERDICT_NO,
             d->host_native_atomic_supported
                 ? "yes: GPU atomics on host memory are atomic against the CPU's"
                 : "no: hostNativeAtomicSupported is 0, GPU atomics on mapped memory are not "
                   "atomic against the CPU; use single-writer words and sequence numbers");
    return ZC_OK;
}
