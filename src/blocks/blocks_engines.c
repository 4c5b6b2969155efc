/* SPDX-License-Identifier: Apache-2.0 */
/* The engines' table, made from zerocopy/blocks.h's list: names, help, what each needs to reach
 * the memory, how it counts its calls; the placeholder costs and the cost model. */
#include "blocks/blocks_engines.h"

#include <math.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/error.h"

/* What each engine needs and how its calls are counted, by the list's name: an engine of the
 * list without its two lines here fails to build (cpu_blocks_plant_engine_row). */
#define ZC__BLOCKS_NEEDS_COPY  0u
#define ZC__BLOCKS_NEEDS_BATCH (ZC__BLOCKS_NEEDS_BATCH_RUNTIME | ZC__BLOCKS_NEEDS_STREAM)
#define ZC__BLOCKS_NEEDS_KERNEL                                                                    \
    (ZC__BLOCKS_NEEDS_MAPPED | ZC__BLOCKS_USES_SMS | ZC__BLOCKS_ONE_PASS)
#define ZC__BLOCKS_CHUNK_COPY   ZC__BLOCKS_CHUNK_BLOCK
#define ZC__BLOCKS_CHUNK_BATCH  ZC__BLOCKS_CHUNK_BATCH_MAX
#define ZC__BLOCKS_CHUNK_KERNEL ZC__BLOCKS_CHUNK_LAUNCH

#define ZC__BLOCKS_ROW(NAME, name, help)                                                           \
    {ZC_BLOCKS_##NAME, name, help, ZC__BLOCKS_NEEDS_##NAME, ZC__BLOCKS_CHUNK_##NAME},

static const zc__blocks_engine_row zc__engine_rows[] = {{ZC_BLOCKS_AUTO, "auto",
                                                         "the engine with the least predicted time",
                                                         0u, ZC__BLOCKS_CHUNK_BLOCK},
                                                        ZC_BLOCKS_ENGINE_MAP(ZC__BLOCKS_ROW)};
_Static_assert(sizeof zc__engine_rows / sizeof zc__engine_rows[0] == (size_t)ZC_BLOCKS_ENGINE_COUNT,
               "every engine of blocks.h has its row here, in the enum's order");

const zc__blocks_engine_row *zc__blocks_engine_row_of(zc_blocks_engine engine)
{
    if ((int)engine < 0 || (int)engine >= ZC_BLOCKS_ENGINE_COUNT)
        return NULL;
    return &zc__engine_rows[engine];
}

ZC_EXTERN const char *zc_blocks_engine_name(zc_blocks_engine engine)
{
    const zc__blocks_engine_row *row = zc__blocks_engine_row_of(engine);
    return row != NULL ? row->name : "unknown";
}

ZC_EXTERN const char *zc_blocks_engine_help(zc_blocks_engine engine)
{
    const zc__blocks_engine_row *row = zc__blocks_engine_row_of(engine);
    return row != NULL ? row->help : "";
}

ZC_EXTERN zc_status zc_blocks_engine_from_name(const char *name, zc_blocks_engine *engine_p)
{
    ZC_REQUIRE_ARG(name);
    ZC_REQUIRE_ARG(engine_p);
    for (int e = 0; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        const char *a = name, *b = zc__engine_rows[e].name;
        while (*a != '\0' && zc__ascii_lower((unsigned char)*a) == *b) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0') {
            *engine_p = (zc_blocks_engine)e;
            return ZC_OK;
        }
    }
    return ZC_FAIL(ZC_ERR_NOT_FOUND, "%s: no engine '%s' (auto, copy, batch or kernel)", __func__,
                   name);
}

/*
 * Placeholders, not measurements: PCIe Gen5 x16 carries about 50 GB/s each way; a
 * cudaMemcpyAsync costs a few microseconds of submission and engine setup per block; a batch
 * pays its call once and little per block (public reports: 1.9-2.4x the per-block loop for
 * small blocks); a kernel launch costs a few microseconds, and each SM of a kernel reading or
 * writing mapped memory carries a few GB/s. A measured profile replaces them
 * (zc_blocks_set_profile; docs/blocks.md).
 */
void zc__blocks_profile_placeholder(zc_blocks_profile *profile)
{
    memset(profile, 0, sizeof *profile);
    const zc_blocks_cost auto_row = {0.0, 0.0, 1.0}; /* unused: keeps the profile valid */
    const zc_blocks_cost copy = {0.0, 2.5, 50.0};
    const zc_blocks_cost batch = {6.0, 0.35, 50.0};
    const zc_blocks_cost kernel = {5.0, 0.02, 45.0};
    profile->to_device[ZC_BLOCKS_AUTO] = profile->to_host[ZC_BLOCKS_AUTO] = auto_row;
    profile->to_device[ZC_BLOCKS_COPY] = profile->to_host[ZC_BLOCKS_COPY] = copy;
    profile->to_device[ZC_BLOCKS_BATCH] = profile->to_host[ZC_BLOCKS_BATCH] = batch;
    profile->to_device[ZC_BLOCKS_KERNEL] = profile->to_host[ZC_BLOCKS_KERNEL] = kernel;
    profile->kernel_sm_gbps = 4.0;
    profile->batch_max = 4096;
    profile->measured = 0;
}

ZC_EXTERN zc_status zc_blocks_profile_default(zc_blocks_profile *profile_p)
{
    ZC_REQUIRE_ARG(profile_p);
    zc__blocks_profile_placeholder(profile_p);
    return ZC_OK;
}

static int zc__cost_ok(const zc_blocks_cost *c)
{
    return isfinite(c->call_us) && c->call_us >= 0.0 && isfinite(c->block_us) &&
           c->block_us >= 0.0 && isfinite(c->gbps) && c->gbps > 0.0;
}

zc_status zc__blocks_profile_check(const char *who, const zc_blocks_profile *profile)
{
    for (int e = 1; e < ZC_BLOCKS_ENGINE_COUNT; e++) {
        if (!zc__cost_ok(&profile->to_device[e]) || !zc__cost_ok(&profile->to_host[e]))
            return ZC_FAIL(ZC_ERR_INVALID_ARG,
                           "%s: the profile's costs of engine %s must be finite and not "
                           "negative, its bandwidth above 0",
                           who, zc__engine_rows[e].name);
    }
    if (!isfinite(profile->kernel_sm_gbps) || profile->kernel_sm_gbps <= 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: the profile's kernel_sm_gbps must be above 0", who);
    if (profile->batch_max == 0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "%s: the profile's batch_max is 0", who);
    if (!isfinite(profile->both_gbps) || profile->both_gbps < 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "%s: the profile's both_gbps must be finite and not negative (0: not "
                       "measured)",
                       who);
    return ZC_OK;
}

/* How many calls an engine makes for n blocks. */
static size_t zc__calls(const zc__blocks_engine_row *row, const zc_blocks_profile *profile,
                        size_t n)
{
    size_t chunk = 1;
    if (row->chunk == ZC__BLOCKS_CHUNK_BATCH_MAX)
        chunk = profile->batch_max;
    else if (row->chunk == ZC__BLOCKS_CHUNK_LAUNCH)
        chunk = ZC__BLOCKS_KERNEL_CHUNK;
    return n / chunk + (n % chunk != 0);
}

size_t zc__blocks_calls(const zc_blocks_profile *profile, zc_blocks_engine engine,
                        size_t n_to_device, size_t n_to_host)
{
    const zc__blocks_engine_row *row = zc__blocks_engine_row_of(engine);
    if (row == NULL)
        return 0;
    if (row->needs & ZC__BLOCKS_ONE_PASS)
        return zc__calls(row, profile, n_to_device + n_to_host);
    return zc__calls(row, profile, n_to_device) + zc__calls(row, profile, n_to_host);
}

/* One direction's host side: the calls and blocks its thread queues. */
static double zc__host_us(const zc_blocks_cost *c, size_t calls, size_t n)
{
    return (double)calls * c->call_us + (double)n * c->block_us;
}

/* One direction's time on its own calls: its host side, then its bytes. */
static double zc__one_dir_us(const zc_blocks_cost *c, double gbps, size_t calls, size_t n,
                             size_t bytes)
{
    return zc__host_us(c, calls, n) + (double)bytes / (gbps * 1e3);
}

double zc__blocks_predict_us(const zc_blocks_profile *profile, zc_blocks_engine engine,
                             size_t n_to_device, size_t bytes_to_device, size_t n_to_host,
                             size_t bytes_to_host, unsigned sms)
{
    const zc__blocks_engine_row *row = zc__blocks_engine_row_of(engine);
    if (row == NULL || engine == ZC_BLOCKS_AUTO)
        return -1.0;
    const zc_blocks_cost *d = &profile->to_device[engine], *h = &profile->to_host[engine];
    double gbps_d = d->gbps, gbps_h = h->gbps;
    if (row->needs & ZC__BLOCKS_USES_SMS) {
        double cap = (double)sms * profile->kernel_sm_gbps;
        gbps_d = fmin(gbps_d, cap);
        gbps_h = fmin(gbps_h, cap);
    }
    size_t calls_d = zc__calls(row, profile, n_to_device),
           calls_h = zc__calls(row, profile, n_to_host);
    double td = zc__one_dir_us(d, gbps_d, calls_d, n_to_device, bytes_to_device);
    double th = zc__one_dir_us(h, gbps_h, calls_h, n_to_host, bytes_to_host);
    /* Both lists in the same launches on the same SMs: each direction costs what it costs
     * alone, its own share of the launches included (a fitted profile may put a direction's
     * cost per block into its cost per launch, the two growing together), and they add up. */
    if (row->needs & ZC__BLOCKS_ONE_PASS)
        return td + th;
    /* The copy engines: one direction on the caller's stream, the other on the mover's side
     * stream, each on its own engine, so the slower direction bounds the time; but one host
     * thread queues both, one call or block after the other, so their host sides add up and
     * bound it too (measured on the H100: 4 KiB blocks both ways by the per-block copy moved
     * 1.55 GB/s in all, no more than one way alone). The two directions also share the link,
     * whose ceiling both ways is below the sum of the two one way (the H100's 72.4 GB/s against
     * 54 + 54): both directions' bytes at that ceiling, plus the slower direction's own costs
     * per call and block (which the one-way form adds to its bytes too), bound it as well. */
    double host_d = zc__host_us(d, calls_d, n_to_device),
           host_h = zc__host_us(h, calls_h, n_to_host);
    double link = 0.0;
    if (profile->both_gbps > 0.0 && n_to_device > 0 && n_to_host > 0)
        link = (double)(bytes_to_device + bytes_to_host) / (profile->both_gbps * 1e3) +
               fmax(host_d, host_h);
    return fmax(fmax(host_d + host_h, link), fmax(td, th));
}
