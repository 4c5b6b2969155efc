/* Helpers of the report tests: scratch folders, running programs, reading files. */
#include "report_test.h"

#include "test_support.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void report_test_tempdir(char *dir, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, size, "%s/zc-report-test-XXXXXX", base != NULL && *base ? base : "/tmp");
    assert_non_null(mkdtemp(dir));
}

int report_test_have(const char *program)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return 0;
    char *copy = strdup(path);
    assert_non_null(copy);
    int found = 0;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d != NULL && !found;
         d = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", d, program);
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

int report_test_run(const char *const *argv, const char *out_path)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO,
                                     out_path != NULL ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

void report_test_cleanup(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            /* Chromium's profile folder: a second level is enough for what it leaves. */
            report_test_cleanup(path);
            rmdir(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}
