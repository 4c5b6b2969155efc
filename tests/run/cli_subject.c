/* SPDX-License-Identifier: Apache-2.0 */
/* A program for zc run's command tests (test_run_cli.c), built plain, statically linked and
 * with AddressSanitizer. It does what its arguments say, in order, and ignores any other (a
 * script it interprets is one):
 *   maps        print "library: loaded" or "library: not loaded" (libzerocopy_run.so in this
 *               process's mappings) and "preload: $LD_PRELOAD"
 *   touch:PATH  create the file PATH
 *   log         write a whole log (header and end, no counts) as $ZC_RUN_DIR/1.run, as the
 *               library writes it for a process that made no call a cure looks at
 *   log-cut     the same without its end line: a process that ended through _exit
 *   exit:N      exit with N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int loaded(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps != NULL && !found && fgets(line, sizeof line, maps) != NULL)
        found = strstr(line, "libzerocopy_run") != NULL;
    if (maps != NULL)
        fclose(maps);
    return found;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "maps") == 0) {
            const char *preload = getenv("LD_PRELOAD");
            printf("library: %s\npreload: %s\n", loaded() ? "loaded" : "not loaded",
                   preload != NULL ? preload : "");
        } else if (strncmp(argv[i], "touch:", 6) == 0) {
            FILE *f = fopen(argv[i] + 6, "w");
            if (f == NULL)
                return 1;
            fclose(f);
        } else if (strcmp(argv[i], "log") == 0 || strcmp(argv[i], "log-cut") == 0) {
            char path[4096];
            const char *dir = getenv("ZC_RUN_DIR");
            snprintf(path, sizeof path, "%s/1.run", dir != NULL ? dir : ".");
            FILE *f = fopen(path, "w");
            if (f == NULL)
                return 1;
            fputs("zcrun 1 pid=1 fixes=7 threads=1 chunk=1 buffers=2 min=1 min_d2h=1\n", f);
            if (strcmp(argv[i], "log") == 0)
                fputs("end\n", f);
            fclose(f);
        } else if (strncmp(argv[i], "exit:", 5) == 0) {
            return atoi(argv[i] + 5);
        }
    }
    return 0;
}
