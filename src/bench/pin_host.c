/* SPDX-License-Identifier: Apache-2.0 */
/* The host's side of the pinning family: how much memory it may take (a share of what is
 * available, read from meminfo), which sizes that leaves, and on which NUMA node it is placed. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/mempolicy.h>

#include "bench/pinning.h"
#include "core/error.h"
#include "zerocopy/file.h"
#include "zerocopy/size.h"

zc_status zc__pin_meminfo_field(const char *text, const char *key, size_t *bytes_p)
{
    ZC_REQUIRE_ARG(text);
    ZC_REQUIRE_ARG(key);
    ZC_REQUIRE_ARG(bytes_p);
    size_t klen = strlen(key);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        /* The key is a whole word followed by ':' ("Node 0 MemFree:", not "HugeMemFree:"). */
        for (const char *at = line; at + klen < line + len; at++) {
            if (at[klen] != ':' || strncmp(at, key, klen) != 0 || (at > line && at[-1] != ' '))
                continue;
            char *stop = NULL;
            errno = 0;
            unsigned long long kb = strtoull(at + klen + 1, &stop, 10);
            if (errno != 0 || stop == at + klen + 1 || kb > SIZE_MAX / 1024)
                return ZC_FAIL(ZC_ERR_PARSE, "meminfo: %s: not a number of kB", key);
            while (*stop == ' ')
                stop++;
            if (strncmp(stop, "kB", 2) != 0)
                return ZC_FAIL(ZC_ERR_PARSE, "meminfo: %s: not in kB", key);
            *bytes_p = (size_t)kb * 1024;
            return ZC_OK;
        }
        line += len + (end != NULL);
    }
    return ZC_FAIL(ZC_ERR_NOT_FOUND, "meminfo: no %s line", key);
}

size_t zc__pin_size_cap(size_t available)
{
    /* Divided first: no product to overflow. */
    return available / 100 * ZC__PIN_SHARE_PERCENT + available % 100 * ZC__PIN_SHARE_PERCENT / 100;
}

/* The field key of the meminfo file at path. */
static zc_status zc__pin_meminfo_read(const char *path, const char *key, size_t *bytes_p)
{
    char *text = NULL;
    /* meminfo is a few kB; a MiB is room for any kernel's. */
    ZC_CHECK(zc_file_read(path, (size_t)1 << 20, &text, NULL));
    zc_status st = zc__pin_meminfo_field(text, key, bytes_p);
    free(text);
    return st;
}

zc_status zc__pin_memory_cap(int node, size_t *cap_p, char *what, size_t what_size)
{
    ZC_REQUIRE_ARG(cap_p);
    ZC_REQUIRE_ARG(what);
    size_t available = 0;
    ZC_CHECK(zc__pin_meminfo_read("/proc/meminfo", "MemAvailable", &available));
    char field[48] = "MemAvailable";
    if (node >= 0 && zc__pin_numa_nodes() > 1) {
        char path[96];
        size_t node_free = 0;
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
        ZC_CHECK(zc__pin_meminfo_read(path, "MemFree", &node_free));
        if (node_free < available) {
            available = node_free;
            snprintf(field, sizeof field, "node %d's MemFree", node);
        }
    }
    *cap_p = zc__pin_size_cap(available);
    char sz[32];
    snprintf(what, what_size, "%d%% of %s (%s)", ZC__PIN_SHARE_PERCENT, field,
             zc_size_format(*cap_p, sz, sizeof sz));
    return ZC_OK;
}

/* Append "; "-separated text to buf (cut short where it does not fit). */
static void zc__pin_append(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < size)
        snprintf(buf + used, size - used, "%s%s", used ? "; " : "", text);
}

size_t zc__pin_plan(const size_t *sizes, size_t n, size_t cap, const char *cap_what, size_t *kept,
                    char *left_out, size_t left_size)
{
    size_t count = 0;
    if (left_out != NULL && left_size > 0)
        left_out[0] = '\0';
    for (size_t i = 0; sizes != NULL && kept != NULL && i < n; i++) {
        if (sizes[i] >= ZC__PIN_SIZE_MIN && sizes[i] <= cap) {
            kept[count++] = sizes[i];
            continue;
        }
        if (left_out == NULL || left_size == 0)
            continue;
        char line[160], sz[32];
        zc_size_format(sizes[i], sz, sizeof sz);
        if (sizes[i] < ZC__PIN_SIZE_MIN)
            snprintf(line, sizeof line, "%s left out: less than a 4 KiB page", sz);
        else
            snprintf(line, sizeof line, "%s left out: more than %s", sz,
                     cap_what ? cap_what : "the memory the family may take");
        zc__pin_append(left_out, left_size, line);
    }
    return count;
}

int zc__pin_node_count(const char *list)
{
    int count = 0;
    const char *p = list;
    while (p != NULL && *p != '\0' && *p != '\n') {
        char *stop = NULL;
        long lo = strtol(p, &stop, 10), hi = lo;
        if (stop == p || lo < 0)
            return 0;
        if (*stop == '-') {
            p = stop + 1;
            hi = strtol(p, &stop, 10);
            if (stop == p || hi < lo)
                return 0;
        }
        if (hi - lo + 1 > INT_MAX - count)
            return 0;
        count += (int)(hi - lo + 1);
        if (*stop != ',' && *stop != '\0' && *stop != '\n')
            return 0;
        p = *stop == ',' ? stop + 1 : stop;
    }
    return count;
}

int zc__pin_numa_nodes(void)
{
    char buf[256] = "";
    FILE *f = fopen("/sys/devices/system/node/online", "r");
    if (f == NULL)
        return 1; /* no NUMA in this kernel: one node */
    if (fgets(buf, sizeof buf, f) == NULL)
        buf[0] = '\0';
    fclose(f);
    int n = zc__pin_node_count(buf);
    return n > 0 ? n : 1;
}

zc_status zc__pin_numa_prefer(int node, zc__pin_policy *saved_p)
{
    ZC_REQUIRE_ARG(saved_p);
    const unsigned long bits = sizeof saved_p->mask * CHAR_BIT;
    memset(saved_p, 0, sizeof *saved_p);
    if (node < 0 || (unsigned long)node >= bits)
        return ZC_FAIL(ZC_ERR_INVALID_ARG, "zc__pin_numa_prefer: node %d", node);
    if (syscall(SYS_get_mempolicy, &saved_p->mode, saved_p->mask, bits, NULL, 0UL) != 0) {
        int err = errno;
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "get_mempolicy failed: %s", strerror(err));
    }
    unsigned long mask[sizeof saved_p->mask / sizeof saved_p->mask[0]] = {0};
    const unsigned long word = sizeof mask[0] * CHAR_BIT;
    mask[(unsigned long)node / word] = 1UL << ((unsigned long)node % word);
    /* Preferred, not bound: a node that runs short spills to another rather than waking the
     * OOM killer; the cap keeps every size well inside the node's free memory. */
    if (syscall(SYS_set_mempolicy, MPOL_PREFERRED, mask, bits + 1) != 0) {
        int err = errno;
        return ZC_FAIL(ZC_ERR_UNSUPPORTED, "set_mempolicy(MPOL_PREFERRED, node %d) failed: %s",
                       node, strerror(err));
    }
    saved_p->saved = 1;
    return ZC_OK;
}

void zc__pin_numa_restore(const zc__pin_policy *saved)
{
    if (saved == NULL || !saved->saved)
        return;
    const unsigned long bits = sizeof saved->mask * CHAR_BIT;
    /* Best effort: the policy was the thread's own a moment ago, so giving it back succeeds. */
    if (saved->mode == MPOL_DEFAULT)
        (void)syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0UL);
    else
        (void)syscall(SYS_set_mempolicy, saved->mode, saved->mask, bits + 1);
}

const char *zc__pin_thp_mode(char *buf, size_t n)
{
    char line[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f != NULL) {
        if (fgets(line, sizeof line, f) == NULL)
            line[0] = '\0';
        fclose(f);
    }
    /* "always [madvise] never": the mode in force is the bracketed word. */
    const char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
    if (open == NULL || close == NULL || n == 0)
        snprintf(buf, n, "unknown");
    else
        snprintf(buf, n, "%.*s", (int)(close - open - 1), open + 1);
    return n ? buf : "unknown";
}
