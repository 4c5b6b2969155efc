/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the report tests: scratch folders, running programs and zc, fixtures, stand-ins
 * for gnuplot. */
#include "report_test.h"

#include "test_support.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
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

int report_test_zc(const char *const *args, const report_test_how *how, char **out_p, char **err_p)
{
    static const report_test_how plain = {0};
    if (how == NULL)
        how = &plain;
    char dir[512], out_path[600], err_path[600];
    report_test_tempdir(dir, sizeof dir);
    snprintf(out_path, sizeof out_path, "%s/stdout", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", dir);
    size_t argc = 0;
    while (args[argc] != NULL)
        argc++;
    char **argv = calloc(argc + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = (char *)ZC_REPORT_ZC;
    for (size_t i = 0; i < argc; i++)
        argv[i + 1] = (char *)args[i];
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* The child: nothing here may return into the test. */
        for (size_t i = 0; how->env != NULL && how->env[i] != NULL; i++)
            putenv((char *)how->env[i]);
        int in = open(how->stdin_path != NULL ? how->stdin_path : "/dev/null", O_RDONLY);
        int out = open(how->stdout_path != NULL ? how->stdout_path : out_path,
                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(125);
        if (how->cwd != NULL && chdir(how->cwd) != 0)
            _exit(125);
        if (how->file_size_limit > 0) {
            struct rlimit limit = {(rlim_t)how->file_size_limit, (rlim_t)how->file_size_limit};
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
                _exit(125);
        }
        execv(argv[0], argv);
        _exit(126);
    }
    free(argv);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 125 || WEXITSTATUS(status) == 126))
        fail_msg("could not start %s (%d)", ZC_REPORT_ZC, WEXITSTATUS(status));
    if (out_p != NULL)
        *out_p = how->stdout_path != NULL ? strdup("") : zc_test_read_file(out_path, NULL);
    if (err_p != NULL)
        *err_p = zc_test_read_file(err_path, NULL);
    report_test_cleanup(dir);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void report_test_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fail_msg("cannot write %s", path);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

void report_test_copy_replacing(const char *from, const char *to, const char *find,
                                const char *replace)
{
    char *text = zc_test_read_file(from, NULL);
    size_t n = (size_t)report_test_count(text, find);
    size_t find_len = strlen(find), replace_len = strlen(replace);
    char *out = malloc(strlen(text) + n * replace_len + 1);
    assert_non_null(out);
    char *o = out;
    for (const char *c = text; *c;) {
        if (find_len > 0 && strncmp(c, find, find_len) == 0) {
            memcpy(o, replace, replace_len);
            o += replace_len;
            c += find_len;
        } else {
            *o++ = *c++;
        }
    }
    *o = '\0';
    report_test_write(to, out);
    free(out);
    free(text);
}

const char *report_test_figure_after(const char *html, const char *heading, const char **end_p)
{
    const char *at = strstr(html, heading);
    if (at == NULL)
        fail_msg("the page has no heading %s", heading);
    const char *figure = strstr(at, "<figure");
    if (figure == NULL)
        fail_msg("no figure after %s", heading);
    *end_p = strstr(figure, "</figure>");
    assert_non_null(*end_p);
    return figure;
}

int report_test_count(const char *text, const char *what)
{
    int n = 0;
    size_t len = strlen(what);
    for (const char *p = strstr(text, what); p != NULL && len > 0; p = strstr(p + len, what))
        n++;
    return n;
}

void report_test_fake_gnuplot(const char *dir, const char *fail_on, const char *fail_message,
                              char *env_entry, size_t size)
{
    char fake[4096], text[8192];
    snprintf(fake, sizeof fake, "%s/fake-gnuplot", dir);
    if (fail_on != NULL)
        snprintf(text, sizeof text,
                 "#!/bin/sh\ncat \"$1\" >> '%s/scripts.gp'\necho '#### end of script' >> "
                 "'%s/scripts.gp'\nif grep -qF -- '%s' \"$1\"; then\n"
                 "  printf '\\nplot $x\\n     ^\\n\"%%s\" line 3: %s\\n\\n' \"$1\" >&2\n"
                 "  exit 1\nfi\necho '<svg></svg>'\n",
                 dir, dir, fail_on, fail_message);
    else
        snprintf(text, sizeof text,
                 "#!/bin/sh\ncat \"$1\" >> '%s/scripts.gp'\necho '#### end of script' >> "
                 "'%s/scripts.gp'\necho '<svg></svg>'\n",
                 dir, dir);
    report_test_write(fake, text);
    assert_int_equal(chmod(fake, 0755), 0);
    snprintf(env_entry, size, "ZC_GNUPLOT=%s", fake);
}

void report_test_zc_fake_plots(const char *dir, const char *const *args)
{
    char env_plot[4200];
    report_test_fake_gnuplot(dir, NULL, NULL, env_plot, sizeof env_plot);
    const char *env[] = {env_plot, "ZC_DOT=/nonexistent/dot", NULL};
    report_test_how how = {.env = env};
    char *err = NULL;
    int code = report_test_zc(args, &how, NULL, &err);
    if (code != 0)
        fail_msg("zc report exit %d: %s", code, err);
    free(err);
}

char *report_test_page_of(const char *const *inputs, char **err_p)
{
    char dir[512], out[4096];
    report_test_tempdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    const char *args[16] = {"report", "-o", out};
    size_t n = 3;
    for (size_t i = 0; inputs[i] != NULL && n < 15; i++)
        args[n++] = inputs[i];
    args[n] = NULL;
    const char *env[] = {"ZC_GNUPLOT=/nonexistent/gnuplot", "ZC_DOT=/nonexistent/dot", NULL};
    report_test_how how = {.env = env};
    char *err = NULL;
    int code = report_test_zc(args, &how, NULL, &err);
    if (code != 0)
        fail_msg("zc report exit %d: %s", code, err);
    if (strstr(err, "malformed") != NULL)
        fail_msg("zc report says: %s", err);
    char *html = zc_test_read_file(out, NULL);
    report_test_cleanup(dir);
    if (err_p != NULL)
        *err_p = err;
    else
        free(err);
    return html;
}

void report_test_expect(const char *html, const char *what)
{
    if (strstr(html, what) == NULL)
        fail_msg("the page lacks %s", what);
}

char *report_test_make_page(const char *dir, const char *const *env, const char *input,
                            const char *extra)
{
    char out[4096], dot[4096];
    snprintf(out, sizeof out, "%s/report.html", dir);
    snprintf(dot, sizeof dot, "%s/picture.dot", dir);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"report", "-o", out, "--picture-dot", dot, input,
                                    ZC_REPORT_FIXTURES "/stream.json", extra, NULL},
                   env, &r);
    if (r.exit_code != 0)
        fail_msg("zc report exit %d: %s", r.exit_code, r.err);
    assert_non_null(strstr(r.out, out));
    zc_test_output_free(&r);
    char *dot_text = zc_test_read_file(dot, NULL);
    /* The picture: every host memory kind, the link, copy engines, SMs, device memory, and the
     * two kinds of path drawn in different styles. */
    static const char *const nodes[] = {"pageable [", "pinned [",  "wc [",   "registered [",
                                        "mapped [",   "managed [", "pcie [", "ce [",
                                        "sm [",       "dram ["};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        if (strstr(dot_text, nodes[i]) == NULL)
            fail_msg("picture lacks node %s", nodes[i]);
    }
    assert_non_null(strstr(dot_text, "style=dashed"));
    assert_non_null(strstr(dot_text, "55.4 GB/s")); /* pinned H2D, measured */
    assert_non_null(strstr(dot_text, "51.4 GB/s")); /* mapped read, measured */
    assert_non_null(strstr(dot_text, "PCIe Gen5 x16"));
    free(dot_text);
    return zc_test_read_file(out, NULL);
}
