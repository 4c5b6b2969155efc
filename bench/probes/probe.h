// SPDX-License-Identifier: Apache-2.0
// What every probe of bench/probes/ starts from: a CUDA call checked (a failure names the call
// and ends the probe, which is a measurement tool, not the library) and the host clock.
#ifndef ZC_BENCH_PROBE_H
#define ZC_BENCH_PROBE_H

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// The host's steady clock in microseconds.
static inline double now_us()
{
    using namespace std::chrono;
    return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

// Where a prefetch of managed memory goes: GPU device, or the host when device < 0.
static inline cudaMemLocation probe_where(int device)
{
    cudaMemLocation l;
    memset(&l, 0, sizeof l);
    l.type = device >= 0 ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    l.id = device >= 0 ? device : 0;
    return l;
}

#endif
