/* SPDX-License-Identifier: Apache-2.0 */
/* The profile's figures by name and origin, its cost curves and its stream runs. */
#include "zerocopy/advise.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "advise/model_internal.h"
#include "core/error.h"

#define ZC__MIB (1024.0 * 1024.0)

/* One row per scalar figure, from the one list in advise.h. */
static const struct {
    const char *key;
    size_t offset;
} zc__fields[ZC_PF_COUNT] = {
#define ZC__ROW(name, key, member) {key, offsetof(zc_profile, member)},
    ZC_PROFILE_FIELDS(ZC__ROW)
#undef ZC__ROW
};

static const char *const zc__origin_keys[] = {"none", "measured", "derived", "assumed"};
/* The memory kinds with an allocation curve, by the key the profile document has always used. */
static const char *const zc__alloc_keys[] = {
    [ZC_BUFFER_PINNED] = "pinned",
    [ZC_BUFFER_REGISTERED] = "register",
    [ZC_BUFFER_MANAGED] = "managed",
    [ZC_BUFFER_DEVICE] = "device",
};
_Static_assert(sizeof zc__alloc_keys / sizeof zc__alloc_keys[0] <= ZC_BUFFER_KIND_COUNT,
               "the allocation keys are indexed by zc_buffer_kind");

ZC_EXTERN const char *zc_profile_field_key(zc_profile_field field)
{
    if ((int)field < 0 || field >= ZC_PF_COUNT)
        return NULL;
    return zc__fields[field].key;
}

ZC_EXTERN zc_status zc_profile_field_from_key(const char *key, zc_profile_field *field_p)
{
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(field_p);
    for (int i = 0; i < ZC_PF_COUNT; i++) {
        if (strcmp(zc__fields[i].key, key) == 0) {
            *field_p = (zc_profile_field)i;
            return ZC_OK;
        }
    }
    return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_profile_field_from_key: no profile figure '%s'", key);
}

ZC_EXTERN double *zc_profile_field_value(zc_profile *profile, zc_profile_field field)
{
    if (profile == NULL || (int)field < 0 || field >= ZC_PF_COUNT)
        return NULL;
    return (double *)((char *)profile + zc__fields[field].offset);
}

ZC_EXTERN zc_status zc_profile_set(zc_profile *profile, zc_profile_field field, double value,
                                   zc_origin origin)
{
    ZC_REQUIRE_ARG(profile);
    double *v = zc_profile_field_value(profile, field);
    if (v == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_profile_set: no figure %d", (int)field);
    if (!isfinite(value) || value < 0.0 || (int)origin < 0 || origin > ZC_ORIGIN_ASSUMED)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc_profile_set: %s = %g (%d) is not a figure",
                       zc__fields[field].key, value, (int)origin);
    *v = value;
    profile->origin[field] = (unsigned char)(value > 0.0 ? origin : ZC_ORIGIN_NONE);
    return ZC_OK;
}

ZC_EXTERN const char *zc_origin_key(zc_origin origin)
{
    if ((int)origin < 0 || origin > ZC_ORIGIN_ASSUMED)
        return NULL;
    return zc__origin_keys[origin];
}

ZC_EXTERN zc_status zc_origin_from_key(const char *key, zc_origin *origin_p)
{
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(origin_p);
    for (int i = 0; i <= ZC_ORIGIN_ASSUMED; i++) {
        if (strcmp(zc__origin_keys[i], key) == 0) {
            *origin_p = (zc_origin)i;
            return ZC_OK;
        }
    }
    return ZC_FAIL(ZC_ERR_NOT_FOUND, "zc_origin_from_key: no origin '%s'", key);
}

ZC_EXTERN const char *zc_alloc_kind_key(zc_buffer_kind kind)
{
    if ((int)kind < 0 || (size_t)kind >= sizeof zc__alloc_keys / sizeof zc__alloc_keys[0])
        return NULL;
    return zc__alloc_keys[kind];
}

ZC_EXTERN zc_status zc_cost_curve_add(zc_cost_curve *curve, size_t bytes, double us)
{
    ZC_REQUIRE_ARG(curve);
    if (bytes == 0 || !isfinite(us) || us < 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_cost_curve_add: need bytes > 0 and us >= 0, got "
                       "%zu, %g",
                       bytes, us);
    size_t at = 0;
    while (at < curve->count && curve->bytes[at] < bytes)
        at++;
    if (at < curve->count && curve->bytes[at] == bytes) {
        curve->us[at] = us;
        return ZC_OK;
    }
    if (curve->count >= ZC_CURVE_MAX_POINTS)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_cost_curve_add: curve already holds %d points",
                       ZC_CURVE_MAX_POINTS);
    memmove(&curve->bytes[at + 1], &curve->bytes[at], (curve->count - at) * sizeof curve->bytes[0]);
    memmove(&curve->us[at + 1], &curve->us[at], (curve->count - at) * sizeof curve->us[0]);
    curve->bytes[at] = bytes;
    curve->us[at] = us;
    curve->count++;
    return ZC_OK;
}

/* Along a measured cost curve: linear between points; beyond the largest, the slope of the
 * last two (allocation grows with the pages pinned); below the smallest, the smallest's time
 * (a small allocation costs about what the smallest measured one does: the driver maps, or
 * carves from, a chunk of the same size either way). */
double zc__cost_curve_at(const zc_cost_curve *c, size_t bytes)
{
    size_t n = c->count;
    double b = (double)bytes;
    if (bytes <= c->bytes[0])
        return c->us[0];
    if (bytes >= c->bytes[n - 1]) {
        if (n < 2)
            return c->us[0];
        double slope =
            (c->us[n - 1] - c->us[n - 2]) / ((double)c->bytes[n - 1] - (double)c->bytes[n - 2]);
        return c->us[n - 1] + fmax(slope, 0.0) * (b - (double)c->bytes[n - 1]);
    }
    size_t i = 1;
    while (c->bytes[i] < bytes)
        i++;
    double b0 = (double)c->bytes[i - 1], b1 = (double)c->bytes[i];
    return c->us[i - 1] + (c->us[i] - c->us[i - 1]) * (b - b0) / (b1 - b0);
}

ZC_EXTERN zc_status zc_profile_alloc_us(const zc_profile *profile, zc_buffer_kind kind,
                                        size_t bytes, double *us_p)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(us_p);
    if (zc_alloc_kind_key(kind) == NULL)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_profile_alloc_us: kind %d (%s) has no allocation cost in a profile",
                       (int)kind, zc_buffer_kind_name(kind));
    const zc_profile *p = profile;
    if (p->alloc[kind].count > 0) {
        *us_p = zc__cost_curve_at(&p->alloc[kind], bytes);
        return ZC_OK;
    }
    double mib = (double)bytes / ZC__MIB;
    switch (kind) {
    case ZC_BUFFER_PINNED:
        *us_p = p->alloc_pinned_fixed_us + mib * p->alloc_pinned_us_per_mib;
        break;
    case ZC_BUFFER_REGISTERED:
        *us_p = p->register_fixed_us + mib * p->register_us_per_mib;
        break;
    case ZC_BUFFER_MANAGED:
        *us_p = mib * p->alloc_managed_us_per_mib;
        break;
    default: /* ZC_BUFFER_DEVICE, the last kind with a key */
        *us_p = mib * p->alloc_device_us_per_mib;
        break;
    }
    return ZC_OK;
}

ZC_EXTERN zc_status zc_profile_add_stream(zc_profile *profile, const zc_stream_point *point)
{
    ZC_REQUIRE_ARG(profile);
    ZC_REQUIRE_ARG(point);
    const zc_stream_point *s = point;
    if (s->mode < 0 || s->frame_bytes == 0 || s->in_flight == 0 || !isfinite(s->p50_us) ||
        !(s->p50_us > 0.0) || !isfinite(s->gbps) || !(s->gbps > 0.0) || !isfinite(s->p99_us) ||
        s->p99_us < 0.0)
        return ZC_FAIL(ZC_ERR_INVALID_ARG,
                       "zc_profile_add_stream: a run needs a mode, a frame size, frames in flight, "
                       "a latency and a rate");
    for (size_t i = 0; i < profile->stream_count; i++) {
        zc_stream_point *o = &profile->stream[i];
        if (o->mode == s->mode && o->protocol == s->protocol && o->frame_bytes == s->frame_bytes &&
            o->in_flight == s->in_flight) {
            *o = *s;
            return ZC_OK;
        }
    }
    if (profile->stream_count >= ZC_PROFILE_STREAM_MAX)
        return ZC_FAIL(ZC_ERR_OVERFLOW, "zc_profile_add_stream: the profile holds %d runs already",
                       ZC_PROFILE_STREAM_MAX);
    profile->stream[profile->stream_count++] = *s;
    return ZC_OK;
}
