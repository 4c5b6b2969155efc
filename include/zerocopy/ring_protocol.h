/* SPDX-License-Identifier: Apache-2.0 */
/* The frame ring's shared layout and its index, sequence and LL-word arithmetic, compiled by
 * both the C compiler (host side, CPU tests) and nvcc (device side). */
#ifndef ZEROCOPY_RING_PROTOCOL_H
#define ZEROCOPY_RING_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Everything here is pure arithmetic on values already loaded: the loads and stores that cross
 * PCIe (acquire, release, volatile) are made by the callers, the host in src/ring and the GPU in
 * ring_device.cuh, so that these functions can be tested on a CPU with two threads.
 */
#if defined(__CUDACC__)
#define ZC_RING_HD static __host__ __device__ __forceinline__
#else
#define ZC_RING_HD static inline
#endif

/* How a frame's readiness is signalled. */
typedef enum zc_ring_protocol {
    /* A sequence stamp per slot, stored with release after the payload; the reader polls the
     * stamp with acquire, then reads the payload: two dependent PCIe trips for the GPU. */
    ZC_RING_PROTO_FLAG = 0,
    /* NCCL's "LL": every 8-byte word holds 4 bytes of payload and a 4-byte flag derived from
     * the sequence number, written with one 8-byte store; the reader polls the data itself, so
     * one trip suffices, at the price of half the link's payload bandwidth. */
    ZC_RING_PROTO_LL = 1
} zc_ring_protocol;

/* Why a persistent kernel ended, as it writes it in zc_ring_ctrl.exit_reason. */
#define ZC_RING_EXIT_NONE     0u /* still running (or never started) */
#define ZC_RING_EXIT_STOP     1u /* the host asked it to stop */
#define ZC_RING_EXIT_WATCHDOG 2u /* the host's heartbeat stood still for watchdog_ns */
#define ZC_RING_EXIT_ERROR    3u /* the kernel found a protocol error (see error_code) */

/* Protocol errors a kernel reports in zc_ring_ctrl.error_code. */
#define ZC_RING_ERROR_NONE      0u
#define ZC_RING_ERROR_POLL_TIME 1u /* a bounded poll ran out of time with the host alive */
#define ZC_RING_ERROR_USER      2u /* the user's kernel said so (error_detail is theirs) */
#define ZC_RING_ERROR_GRID      3u /* the grid is not one block per consumer (detail: gridDim.x) */

/* The most GPU blocks that can consume one ring (one release word each). */
#define ZC_RING_MAX_CONSUMERS 1024u

/*
 * 64-bit words between two neighbouring stamps or release words: one per 64-byte cache line.
 * Words that several writers store into one line, while the other side polls that line, make
 * the line travel back and forth across PCIe once per store.
 */
#define ZC_RING_WORD_STRIDE 8u

/*
 * Control words, in mapped pinned host memory. Each cache line has one writer: the host writes
 * the first line, the GPU the second; neither side ever read-modify-writes the other's words.
 */
typedef struct zc_ring_ctrl {
    /* Written by the host, read by the GPU. */
    uint64_t stop;        /* non-zero: stop now */
    uint64_t heartbeat;   /* bumped by the host's heartbeat thread; its movement is what counts */
    uint64_t host_pad[6]; /* keeps the GPU's words on their own cache line */
    /* Written by the GPU (block 0, thread 0), read by the host. */
    uint64_t started;      /* launch number the kernel saw, stored once when it begins */
    uint64_t exit_reason;  /* ZC_RING_EXIT_*, stored once when it ends */
    uint64_t error_code;   /* ZC_RING_ERROR_* */
    uint64_t error_detail; /* a value that explains the error (the sequence number involved) */
    uint64_t exit_time_ns; /* %globaltimer when it ended */
    uint64_t gpu_pad[3];
} zc_ring_ctrl;

/*
 * What a persistent kernel needs to use a ring: passed to the kernel by value. All pointers are
 * device pointers (cudaHostGetDevicePointer), never assumed equal to the host's.
 */
typedef struct zc_ring_dev {
    uint32_t protocol;     /* zc_ring_protocol of the input frames */
    uint32_t out_protocol; /* of the results: the input's, or FLAG when they go to device
                              memory for the copy engine (zc_ring_results) */
    uint32_t slots;        /* a power of two */
    uint32_t consumers;    /* blocks that release input frames: the kernel's grid size */
    uint32_t launch;       /* the number stored in ctrl->started */
    uint32_t pad0;
    uint64_t in_bytes;   /* payload bytes of an input frame */
    uint64_t out_bytes;  /* payload bytes of a result */
    uint64_t in_stride;  /* bytes between input slots (LL: twice in_bytes) */
    uint64_t out_stride; /* bytes between result slots */
    unsigned char *in;   /* input slots */
    uint64_t *in_stamp;  /* FLAG: [slot * ZC_RING_WORD_STRIDE], one stamp per input slot */
    unsigned char *out;  /* result slots (device memory when results go by copy) */
    uint64_t *out_stamp; /* FLAG: [slot * ZC_RING_WORD_STRIDE], stored by the last block to
                            finish its part of the result in the slot (device memory when
                            results go by copy: the copy engine's stream waits on it) */
    uint64_t *released;  /* [block * ZC_RING_WORD_STRIDE]: frames below this sequence number
                            are free to reuse, as far as that block is concerned */
    uint64_t *arrivals;  /* device memory, [slot]: blocks that have finished their part of a
                            result in the slot, counted up for ever (FLAG) */
    uint64_t *seen;      /* device memory, [slot]: the input stamp as block 0 saw it, for the
                            other blocks to wait on (FLAG) */
    zc_ring_ctrl *ctrl;
    uint64_t watchdog_ns;   /* exit when the heartbeat has not moved for this long */
    uint64_t poll_check_ns; /* how often a waiting kernel reads stop and heartbeat */
    /* The frame time budget (zerocopy/ring_budget.h), NULL when not kept: device memory,
     * [seq][block][ZC_RING_STAMPS]{clock64, %globaltimer} for seq < stamp_frames. */
    uint64_t *stamps;
    uint64_t stamp_frames;
} zc_ring_dev;

/* The moments a kernel stamps in each frame for the time budget (zc_ring_dev_stamp). */
#define ZC_RING_STAMP_SEEN     0u /* the first word of the block's part of the frame is there */
#define ZC_RING_STAMP_READ     1u /* the block has read its part (the last tile's) */
#define ZC_RING_STAMP_COMPUTED 2u /* the block's results are computed (the last tile's) */
#define ZC_RING_STAMP_WRITTEN  3u /* the block's results are written and published */
#define ZC_RING_STAMPS         4u

/* The index of a stamp's {clock64, %globaltimer} pair in zc_ring_dev.stamps. */
ZC_RING_HD uint64_t zc_ring_stamp_index(uint64_t seq, uint32_t consumers, uint32_t block,
                                        uint32_t step)
{
    return ((seq * consumers + block) * ZC_RING_STAMPS + step) * 2u;
}

/* True when n is a power of two (and not 0). */
ZC_RING_HD int zc_ring_is_pow2(uint64_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

/* The slot that frame seq occupies; slots is a power of two. */
ZC_RING_HD uint32_t zc_ring_slot(uint64_t seq, uint32_t slots)
{
    return (uint32_t)(seq & (uint64_t)(slots - 1u));
}

/* FLAG protocol: the stamp that marks frame seq ready. Never 0, so zeroed memory is "empty". */
ZC_RING_HD uint64_t zc_ring_stamp(uint64_t seq)
{
    return seq + 1u;
}

/* FLAG protocol: is a slot holding frame seq, given the stamp read from it? */
ZC_RING_HD int zc_ring_stamp_ready(uint64_t stamp, uint64_t seq)
{
    return stamp == zc_ring_stamp(seq);
}

/*
 * LL protocol: the flag that marks a word as belonging to frame seq. It is 32 bits, so it wraps
 * every 2^32 frames; a slot is reused every `slots` frames, and slots < 2^32, so the flag left
 * in a slot by its previous frame never equals the one awaited.
 */
ZC_RING_HD uint32_t zc_ring_ll_flag(uint64_t seq)
{
    return (uint32_t)(seq + 1u);
}

/* The flag a slot must hold before frame seq is written into it: its previous occupant's. It is
 * what a fresh ring is initialised with, so that a zeroed word is never taken as data. */
ZC_RING_HD uint32_t zc_ring_ll_stale_flag(uint64_t seq, uint32_t slots)
{
    return (uint32_t)(seq + 1u - (uint64_t)slots);
}

/* One LL word: payload in the low 32 bits, flag in the high 32 (little-endian: data first). */
ZC_RING_HD uint64_t zc_ring_ll_pack(uint32_t data, uint32_t flag)
{
    return (uint64_t)data | ((uint64_t)flag << 32);
}

ZC_RING_HD uint32_t zc_ring_ll_data(uint64_t word)
{
    return (uint32_t)word;
}

ZC_RING_HD uint32_t zc_ring_ll_word_flag(uint64_t word)
{
    return (uint32_t)(word >> 32);
}

/* Does an LL word belong to frame seq? */
ZC_RING_HD int zc_ring_ll_ready(uint64_t word, uint64_t seq)
{
    return zc_ring_ll_word_flag(word) == zc_ring_ll_flag(seq);
}

/* Bytes an LL slot occupies for payload_bytes of payload (a multiple of 4). */
ZC_RING_HD uint64_t zc_ring_ll_bytes(uint64_t payload_bytes)
{
    return payload_bytes * 2u;
}

/*
 * Frames in flight between the producer, who has published every frame below head, and the
 * consumer, who has released every frame below released. Sequence numbers are 64-bit and never
 * wrap in practice (2^64 frames); the subtraction stays correct across any wrap anyway.
 */
ZC_RING_HD uint64_t zc_ring_in_flight(uint64_t head, uint64_t released)
{
    return head - released;
}

/* May the producer publish frame head into a ring of `slots` slots? */
ZC_RING_HD int zc_ring_can_publish(uint64_t head, uint64_t released, uint32_t slots)
{
    return zc_ring_in_flight(head, released) < (uint64_t)slots;
}

/* Are there frames to consume: has the producer published frame seq? */
ZC_RING_HD int zc_ring_has_frame(uint64_t head, uint64_t seq)
{
    return zc_ring_in_flight(head, seq) > 0 && zc_ring_in_flight(head, seq) <= (uint64_t)1 << 62;
}

/*
 * The release point of a ring consumed by several blocks: the oldest of their release words,
 * measured from head so that it is correct across a wrap. A word that claims to be ahead of
 * head (corrupt, or from a previous use) counts as nothing released.
 */
ZC_RING_HD uint64_t zc_ring_released_min(const uint64_t *released, uint32_t count, uint64_t head)
{
    uint64_t worst = 0; /* largest distance behind head */
    for (uint32_t i = 0; i < count; i++) {
        uint64_t behind = head - released[i];
        if (behind > ((uint64_t)1 << 62))
            return head - ((uint64_t)1 << 62);
        if (behind > worst)
            worst = behind;
    }
    return head - worst;
}

/*
 * FLAG results: a block that has just counted itself into a slot's arrivals (the count before
 * its own was `before`) is the last of the frame's `consumers` blocks, and stamps the result.
 * Every block arrives once per frame and no block gets `slots` frames ahead of the slowest (the
 * host cannot publish that far), so the count reaches a multiple of consumers exactly when a
 * frame is complete; 64 bits never wrap.
 */
ZC_RING_HD int zc_ring_last_arrival(uint64_t before, uint32_t consumers)
{
    return (before + 1u) % consumers == 0;
}

/* The byte range [first, first + count) of a payload of `total` units split among `parts`
 * consumers, as even as possible: part i gets the i-th share. */
ZC_RING_HD void zc_ring_split(uint64_t total, uint32_t parts, uint32_t i, uint64_t *first_p,
                              uint64_t *count_p)
{
    uint64_t base = total / parts, extra = total % parts;
    *first_p = (uint64_t)i * base + (i < extra ? (uint64_t)i : extra);
    *count_p = base + (i < extra ? 1u : 0u);
}

/* A 32-bit checksum (FNV-1a over 32-bit words) that frames can carry to detect tearing. */
ZC_RING_HD uint32_t zc_ring_checksum_step(uint32_t hash, uint32_t word)
{
    return (hash ^ word) * 16777619u;
}

#define ZC_RING_CHECKSUM_INIT 2166136261u

#endif
