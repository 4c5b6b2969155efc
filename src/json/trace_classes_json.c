/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace's copies in size classes, for its document's "copy_classes" (docs/json.md): per
 * direction, source and destination kind and power-of-two size class, how many copies, their
 * bytes, smallest and largest, their time and when the first began and the last ended, so that
 * zc advise --trace can form the program's workloads without every copy in the document. */
#include <stdlib.h>
#include <string.h>

#include "advise/trace_internal.h"
#include "core/checked_math.h"
#include "json/json_internal.h"
#include "zerocopy/json.h"

typedef struct zc__copy_class {
    zc_trace_dir dir;
    zc_trace_mem src, dst;
    uint64_t size_class; /* 2^k: the copies are 2^k to 2^(k+1) - 1 bytes (0 for 0 bytes) */
    uint64_t count, async_count, bytes, bytes_min, bytes_max, time_ns, first_ns, last_ns;
} zc__copy_class;

static int zc__class_order(const void *x, const void *y)
{
    const zc__copy_class *a = x, *b = y;
    if (a->dir != b->dir)
        return a->dir < b->dir ? -1 : 1;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return a->size_class < b->size_class ? -1 : a->size_class > b->size_class;
}

/* The class of copy c in classes[0 .. *count - 1], added when new (the array grown); NULL when
 * out of memory. */
static zc__copy_class *zc__class_find(zc__copy_class **classes, size_t *count, size_t *cap,
                                      const zc_trace_copy *c)
{
    uint64_t k = zc__trace_size_class(c->bytes);
    for (size_t i = *count; i-- > 0;) {
        zc__copy_class *x = &(*classes)[i];
        if (x->dir == c->dir && x->src == c->src && x->dst == c->dst && x->size_class == k)
            return x;
    }
    if (*count == *cap) {
        size_t n = *cap ? 2 * *cap : 16;
        zc__copy_class *grown = realloc(*classes, n * sizeof *grown);
        if (grown == NULL)
            return NULL;
        *classes = grown;
        *cap = n;
    }
    zc__copy_class *x = &(*classes)[(*count)++];
    memset(x, 0, sizeof *x);
    x->dir = c->dir;
    x->src = c->src;
    x->dst = c->dst;
    x->size_class = k;
    x->bytes_min = c->bytes;
    x->first_ns = c->start;
    return x;
}

static cJSON *zc__class_json(const zc__copy_class *x, uint64_t origin_ns)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "direction", zc_trace_dir_name(x->dir));
    cJSON_AddStringToObject(o, "src_kind", zc_trace_mem_name(x->src));
    cJSON_AddStringToObject(o, "dst_kind", zc_trace_mem_name(x->dst));
    cJSON_AddNumberToObject(o, "size_class", (double)x->size_class);
    cJSON_AddNumberToObject(o, "count", (double)x->count);
    cJSON_AddNumberToObject(o, "async_count", (double)x->async_count);
    cJSON_AddNumberToObject(o, "bytes", (double)x->bytes);
    cJSON_AddNumberToObject(o, "bytes_min", (double)x->bytes_min);
    cJSON_AddNumberToObject(o, "bytes_max", (double)x->bytes_max);
    cJSON_AddNumberToObject(o, "time_s", (double)x->time_ns * 1e-9);
    cJSON_AddNumberToObject(o, "first_start_s", (double)(x->first_ns - origin_ns) * 1e-9);
    cJSON_AddNumberToObject(o, "last_end_s", (double)(x->last_ns - origin_ns) * 1e-9);
    return o;
}

int zc__trace_copy_classes_json(cJSON *doc, const zc_trace_log *log)
{
    zc__copy_class *classes = NULL;
    size_t count = 0, cap = 0;
    uint64_t origin = UINT64_MAX; /* the first copy's start: the classes' times count from it */
    for (size_t i = 0; i < log->copy_count; i++) {
        const zc_trace_copy *c = &log->copies[i];
        zc__copy_class *x = zc__class_find(&classes, &count, &cap, c);
        if (x == NULL) {
            free(classes);
            return 0;
        }
        uint64_t end = c->end > c->start ? c->end : c->start;
        x->count++;
        x->async_count += c->async != 0;
        /* 2 x 2^63 bytes would wrap to 0: the total stops at the most 64 bits hold. */
        x->bytes = zc__u64_add_sat(x->bytes, c->bytes);
        x->bytes_min = c->bytes < x->bytes_min ? c->bytes : x->bytes_min;
        x->bytes_max = c->bytes > x->bytes_max ? c->bytes : x->bytes_max;
        x->time_ns += end - c->start;
        x->first_ns = c->start < x->first_ns ? c->start : x->first_ns;
        x->last_ns = end > x->last_ns ? end : x->last_ns;
        origin = c->start < origin ? c->start : origin;
    }
    if (count > 1)
        qsort(classes, count, sizeof classes[0], zc__class_order);
    cJSON *list = cJSON_AddArrayToObject(doc, "copy_classes");
    int ok = list != NULL;
    for (size_t i = 0; ok && i < count; i++) {
        cJSON *o = zc__class_json(&classes[i], origin);
        ok = o != NULL && cJSON_AddItemToArray(list, o);
        if (!ok)
            cJSON_Delete(o);
    }
    free(classes);
    return ok;
}
