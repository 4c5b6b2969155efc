/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU thread that plays the GPU's side of a frame ring, as ring_device.cuh does on the GPU,
 * so that the real host code (src/ring) and the protocol can be tested without a GPU. */
#ifndef ZC_TESTS_RING_FAKE_GPU_H
#define ZC_TESTS_RING_FAKE_GPU_H

#include <pthread.h>
#include <stdint.h>

#include "ring/ring_internal.h"

/* Test frames: word 0 and 1 hold the sequence number, word 2 the producer's offer number, the
 * last word a checksum of all before it; the rest derive from (offer, index). Results hold the
 * input words XOR ZC_FAKE_MASK, each consumer writing its share. */
#define ZC_FAKE_MASK 0xa5a5a5a5u

typedef struct zc_fake_gpu {
    zc_ring_dev view;    /* the ring, host addresses (a simulated ring maps 1:1) */
    uint32_t block;      /* which consumer this thread plays */
    uint64_t first_seq;  /* the first frame to expect */
    uint64_t max_frames; /* stop after this many (0: until the stop word) */
    int lag;             /* release seq, not seq + 1, and re-read the previous frame's tail */
    uint64_t delay_ns;   /* sleep per frame: a slow consumer */
    int paused;          /* atomic: while set, consume nothing */
    int reverse_writes;  /* write result words last to first, as unordered GPU stores may land */
    uint64_t processed;  /* frames done */
    uint64_t errors;     /* frames found lost, duplicated, reordered or torn */
    char first_error[256];
    pthread_t thread;
} zc_fake_gpu;

/* Fill an input frame of n words for seq and offer. */
void zc_fake_fill(uint32_t *words, size_t n, uint64_t seq, uint32_t offer);

/* Check a result of n words for seq and offer; 0 when right, else the first bad index + 1. */
size_t zc_fake_check(const uint32_t *words, size_t n, uint64_t seq, uint32_t offer);

/* Start and join the thread. */
void zc_fake_start(zc_fake_gpu *gpu);
void zc_fake_join(zc_fake_gpu *gpu);

/* Make a simulated ring in malloc'd memory, frames numbered from first_seq; free both. */
zc_ring *zc_fake_ring(const zc_ring_config *config, uint64_t first_seq, void **memory_p);

#endif
