/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: zc's output module (tools/zc/cli_output.c) driven by the input as a list of
 * outputs to open, write and commit or abort, in a folder of files, links (to files, dangling,
 * in a loop, through a folder) and names of every length. After each step: no temporary is
 * left, every link is still the link it was, a file changes only when an output committed to
 * it (then it holds exactly what was written), never without --force when it existed, and never
 * when it was an input. */
#include "fuzz_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "cli_output.h"
#include "cli_output_internal.h"

#define FILES 4
static const char *const zc__names[] = {
    "f0",     "f1",     "f2",        "f3",  "link-f0", "link-link", "dangling",
    "loop-a", "dir/f4", "viadir/f4", "dir", "new",     "dir/new",   "missing/new"};
#define NAME_COUNT (sizeof zc__names / sizeof zc__names[0])

static char g_dir[] = "/tmp/zc_fuzz_outputs_XXXXXX";

/* Remove every entry of folder (one level: the folder holds no folders but dir). */
static void zc__empty(const char *folder)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    char path[PATH_MAX];
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            (strcmp(folder, ".") == 0 && strcmp(e->d_name, "dir") == 0))
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        (void)unlink(path);
    }
    if (d != NULL)
        closedir(d);
}

static void zc__reset_dir(void)
{
    zc__empty("dir");
    zc__empty(".");
    (void)mkdir("dir", 0777);
    for (int i = 0; i < FILES; i++) {
        char name[8], text[16];
        snprintf(name, sizeof name, "f%d", i);
        snprintf(text, sizeof text, "old %d\n", i);
        FILE *f = fopen(name, "w");
        fputs(text, f);
        fclose(f);
    }
    FILE *f = fopen("dir/f4", "w");
    fputs("old 4\n", f);
    fclose(f);
    (void)symlink("f0", "link-f0");
    (void)symlink("link-f0", "link-link");
    (void)symlink("gone", "dangling");
    (void)symlink("loop-b", "loop-a");
    (void)symlink("loop-a", "loop-b");
    (void)symlink("dir", "viadir");
}

/* The file's bytes (up to cap), its length, or -1 when it cannot be read. */
static long zc__slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return (long)n;
}

static void zc__no_temporaries(void)
{
    DIR *d = opendir(".");
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, ".zc-", 4) == 0)
            __builtin_trap(); /* a temporary outlived its output */
    }
    closedir(d);
    d = opendir("dir");
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, ".zc-", 4) == 0)
            __builtin_trap();
    }
    if (d != NULL)
        closedir(d);
}

static void zc__links_intact(void)
{
    static const char *const links[][2] = {{"link-f0", "f0"},    {"link-link", "link-f0"},
                                           {"dangling", "gone"}, {"loop-a", "loop-b"},
                                           {"loop-b", "loop-a"}, {"viadir", "dir"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        char text[64];
        ssize_t n = readlink(links[i][0], text, sizeof text - 1);
        if (n < 0 || (text[n] = '\0', strcmp(text, links[i][1]) != 0))
            __builtin_trap(); /* a link was replaced */
    }
}

/* One step: bytes [name, flags, length, payload...]; gives the bytes used. */
static size_t zc__step(const uint8_t *data, size_t size)
{
    if (size < 3)
        return size;
    char long_name[320];
    const char *path = zc__names[data[0] % NAME_COUNT];
    if (data[0] >= 240) { /* a name of 240..560 bytes: over NAME_MAX from 256 */
        size_t n = 240 + (size_t)(data[0] - 240) * 5;
        n = n < sizeof long_name - 1 ? n : sizeof long_name - 1;
        memset(long_name, 'n', n);
        long_name[n] = '\0';
        path = long_name;
    }
    const int force = data[1] & 1, commit = data[1] & 2;
    const char *inputs[1] = {zc__names[(data[1] >> 2) % NAME_COUNT]};
    size_t len = data[2] % 64, used = 3 + len;
    if (used > size)
        len = size - 3, used = size;

    char real[PATH_MAX], before[128], after[128];
    const int existed = realpath(path, real) != NULL;
    long before_len = existed ? zc__slurp(real, before, sizeof before) : -1;
    struct stat in_st, out_st;
    const int input_is_target = existed && stat(inputs[0], &in_st) == 0 &&
                                stat(real, &out_st) == 0 && in_st.st_dev == out_st.st_dev &&
                                in_st.st_ino == out_st.st_ino;

    zc_cli_output out;
    int code = zc_cli_output_open(&out, "fuzz", path, force, inputs, 1);
    if (code == 0) {
        if (input_is_target || (existed && before_len >= 0 && !force))
            __builtin_trap(); /* opened over an input, or over a file without --force */
        fwrite(data + 3, 1, len, out.f);
        code = commit ? zc_cli_output_commit(&out) : (zc_cli_output_abort(&out), 1);
    }
    if (existed && before_len >= 0) {
        long after_len = zc__slurp(real, after, sizeof after);
        const int same = after_len == before_len && memcmp(after, before, (size_t)after_len) == 0;
        const int written = after_len == (long)len && memcmp(after, data + 3, len) == 0;
        if (code == 0 ? !written : !same)
            __builtin_trap(); /* a failed output changed its file, or a commit lost bytes */
    } else if (code == 0 && realpath(path, real) != NULL) {
        long after_len = zc__slurp(real, after, sizeof after);
        if (after_len != (long)len || memcmp(after, data + 3, len) != 0)
            __builtin_trap();
    }
    zc__no_temporaries();
    zc__links_intact();
    return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The steps run inside the folder, and libFuzzer's own relative paths (its corpus, the
     * crash files) outside it: back to where it was after each input. */
    static int ready, home = -1;
    if (!ready) {
        home = open(".", O_RDONLY | O_DIRECTORY);
        if (home < 0 || mkdtemp(g_dir) == NULL)
            return 0;
        zc_cli_output_set_open_timeout_ms(1);
        ready = 1;
    }
    if (chdir(g_dir) != 0)
        return 0;
    zc__reset_dir();
    zc__outputs_forget();
    /* The module's refusals go to the stderr stream, pointed at /dev/null meanwhile: libFuzzer
     * and the sanitizers write to descriptor 2 itself, so a crash is still reported. */
    static FILE *quiet;
    if (quiet == NULL)
        quiet = fopen("/dev/null", "w");
    FILE *saved = stderr;
    stderr = quiet != NULL ? quiet : saved;
    for (size_t at = 0; at < size;)
        at += zc__step(data + at, size - at);
    stderr = saved;
    if (fchdir(home) != 0)
        __builtin_trap();
    return 0;
}
