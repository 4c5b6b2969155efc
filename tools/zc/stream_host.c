/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream's host thread: pinned to a core on the GPU's NUMA node, and what on the host could
 * disturb its timing (load, frequency). */
#include "stream_cli.h"

#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The last message zc_cli_stream_errorf printed, for the run's record and JSON. */
static char zc__stream_last_message[512];

void zc_cli_stream_errorf(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(zc__stream_last_message, sizeof zc__stream_last_message, fmt, args);
    va_end(args);
    fprintf(stderr, "zc stream: %s\n", zc__stream_last_message);
}

const char *zc_cli_stream_last_message(void)
{
    return zc__stream_last_message;
}

/* Parse a sysfs cpulist ("0-7,16-23") into set. */
static void zc__cpulist(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    while (*p != '\0' && *p != '\n') {
        char *end = NULL;
        long a = strtol(p, &end, 10), b = a;
        if (end == p)
            break;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            p = end;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            if (c >= 0)
                CPU_SET((int)c, set);
        if (*p == ',')
            p++;
    }
}

static int zc__read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    return ok;
}

void zc_cli_stream_host_pin(const zc_cli_stream_opts *o, const zc_device_info *dev,
                            zc_cli_stream_host *h)
{
    memset(h, 0, sizeof *h);
    h->cpu = -1;
    h->numa_node = dev != NULL ? dev->numa_node : -1;
    h->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (o->no_pin) {
        snprintf(h->why, sizeof h->why, "not pinned (--no-pin)");
        return;
    }
    cpu_set_t allowed, node, pick;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(h->why, sizeof h->why, "not pinned: sched_getaffinity failed");
        return;
    }
    int cpu = -1;
    if (o->cpu >= 0) {
        cpu = o->cpu;
        snprintf(h->why, sizeof h->why, "--cpu %d", cpu);
    } else {
        char path[128], list[1024];
        CPU_ZERO(&node);
        if (h->numa_node >= 0) {
            snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", h->numa_node);
            if (zc__read_line(path, list, sizeof list))
                zc__cpulist(list, &node);
        }
        int use_node = CPU_COUNT(&node) > 0;
        /* The last allowed core of the node: core 0 tends to take the interrupts. */
        for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
            if (CPU_ISSET(c, &allowed) && (!use_node || CPU_ISSET(c, &node)))
                cpu = c;
        if (use_node)
            snprintf(h->why, sizeof h->why, "last allowed core of the GPU's NUMA node %d",
                     h->numa_node);
        else if (dev == NULL)
            snprintf(h->why, sizeof h->why, "no GPU in the run; last allowed core");
        else
            snprintf(h->why, sizeof h->why,
                     "the GPU reports no NUMA node (-1: any core is as near); last allowed core");
    }
    CPU_ZERO(&pick);
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        snprintf(h->why, sizeof h->why, "not pinned: no core to pin to");
        return;
    }
    CPU_SET(cpu, &pick);
    if (sched_setaffinity(0, sizeof pick, &pick) != 0) {
        snprintf(h->why, sizeof h->why, "not pinned: sched_setaffinity(%d) refused", cpu);
        return;
    }
    h->cpu = cpu;
}

void zc_cli_stream_host_sample(zc_cli_stream_host *h)
{
    char buf[256], path[128];
    h->cpu_mhz = 0;
    h->governor[0] = '\0';
    int cpu = h->cpu >= 0 ? h->cpu : 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
    if (zc__read_line(path, buf, sizeof buf))
        h->cpu_mhz = atof(buf) / 1000.0;
    if (h->cpu_mhz == 0) {
        /* No cpufreq (a virtual machine): /proc/cpuinfo's figure for the core. */
        FILE *f = fopen("/proc/cpuinfo", "r");
        int current = -1;
        while (f != NULL && fgets(buf, sizeof buf, f) != NULL) {
            if (strncmp(buf, "processor", 9) == 0)
                current = atoi(strchr(buf, ':') ? strchr(buf, ':') + 1 : "0");
            else if (current == cpu && strncmp(buf, "cpu MHz", 7) == 0 && strchr(buf, ':'))
                h->cpu_mhz = atof(strchr(buf, ':') + 1);
        }
        if (f != NULL)
            fclose(f);
    }
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
    if (zc__read_line(path, buf, sizeof buf)) {
        buf[strcspn(buf, "\n")] = '\0';
        buf[sizeof h->governor - 1] = '\0';
        memcpy(h->governor, buf, strlen(buf) + 1);
    }
    if (zc__read_line("/proc/loadavg", buf, sizeof buf))
        h->loadavg1 = atof(buf);
    FILE *f = fopen("/proc/stat", "r");
    while (f != NULL && fgets(buf, sizeof buf, f) != NULL) {
        if (strncmp(buf, "procs_running", 13) == 0)
            h->procs_running = atoi(buf + 13);
    }
    if (f != NULL)
        fclose(f);
}
