/* The quick profile of `zc advise` without --profile: `zc bench --quick` run as a child of this
 * same binary, with the built-in calibration as the fallback. */
#include "advise_quick.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "advise_json.h"

extern char **environ;

/* Run `<this zc> bench --quick --device N --json path`, its output sent to stderr. */
static int zc__run_bench(int device, const char *path)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    char dev[16];
    snprintf(dev, sizeof dev, "%d", device);
    const char *argv[] = {self, "bench", "--quick", "--device", dev, "--json", path, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    /* The bench's table would mix with the advice on stdout; people still see it on stderr. */
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, self, &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        return 0;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 0;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

zc_status zc_advise_quick_profile(int device, zc_profile *profile_p, zc_profile *measured_p,
                                  char *notes, size_t notes_size, char *how, size_t how_size)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/zc-advise-bench-XXXXXX.json",
             dir != NULL && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 5);
    if (fd >= 0) {
        close(fd);
        fprintf(stderr,
                "zc advise: no --profile given: running `zc bench --quick` on GPU %d "
                "first\n",
                device);
        int ran = zc__run_bench(device, path);
        zc_profile p;
        if (ran && zc_profile_load(path, &p, measured_p, notes, notes_size) == ZC_OK) {
            unlink(path);
            snprintf(how, how_size, "zc bench --quick, run just now on GPU %d", device);
            *profile_p = p;
            return ZC_OK;
        }
        unlink(path);
        fprintf(stderr, "zc advise: zc bench --quick gave no usable profile; measuring the "
                        "few figures the model needs instead (about a second)\n");
    }
    zc_status status = zc_advise_calibrate(device, profile_p);
    if (status != ZC_OK)
        return status;
    if (measured_p != NULL)
        *measured_p = *profile_p;
    status = zc_profile_fill_gaps(profile_p, notes, notes_size);
    if (status == ZC_OK)
        snprintf(how, how_size, "zc advise's own calibration, run just now on GPU %d", device);
    return status;
}
