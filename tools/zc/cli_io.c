/* Inputs and outputs of every zc command: the "-" convention, size-capped inputs, outputs made
 * whole in a temporary file and renamed into place, never over an input. */
#include "cli_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

char *zc_cli_read_input(const char *command, const char *path, size_t max, size_t *len_p,
                        int *code_p)
{
    char *text = NULL;
    zc_status status = zc_file_read(path, max, &text, len_p);
    *code_p = zc_cli_exit_code(status);
    if (status != ZC_OK) {
        /* A missing, unreadable or oversized input is the command line's fault (exit 2); a
         * read error or no memory is a run-time failure (exit 1). */
        fprintf(stderr, "zc %s: %s\n", command, zc_last_error());
        return NULL;
    }
    return text;
}

/* Line and column of offset in text, for a parse error. */
static void zc__where(const char *text, size_t offset, size_t *line_p, size_t *col_p)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < offset && text[i] != '\0'; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    *line_p = line;
    *col_p = col;
}

cJSON *zc_cli_read_json(const char *command, const char *path, int *code_p)
{
    size_t len = 0;
    char *text = zc_cli_read_input(command, path, ZC_CLI_INPUT_MAX, &len, code_p);
    if (text == NULL)
        return NULL;
    /* The input's name as the messages give it: a path may hold any bytes, escapes among them. */
    char shown[3 * 4096 + 1];
    const char *name = zc_text_printable(strcmp(path, "-") == 0 ? "stdin" : path, ZC_TEXT_ONE_LINE,
                                         shown, sizeof shown);
    /* The most values and the deepest nesting zc reads, checked before cJSON builds anything:
     * it takes some 64 bytes a value, gigabytes for 64 MiB of small numbers. Bad input: exit 2. */
    zc_status limits = zc_json_check_limits(text, len, name, NULL);
    if (limits != ZC_OK) {
        fprintf(stderr, "zc %s: %s\n", command, zc_last_error());
        *code_p = zc_cli_exit_code(limits);
        free(text);
        return NULL;
    }
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    /* One document and nothing after it but white space (a NUL byte is not white space). */
    while (doc != NULL && end < text + len &&
           (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    if (doc != NULL && end != text + len) {
        cJSON_Delete(doc);
        doc = NULL;
    }
    if (doc == NULL) {
        size_t line = 0, col = 0;
        const char *at = end != NULL && end > text ? end : cJSON_GetErrorPtr();
        zc__where(text, at != NULL && at >= text && at <= text + len ? (size_t)(at - text) : 0,
                  &line, &col);
        fprintf(stderr, "zc %s: %s is not JSON (line %zu, column %zu)\n", command, name, line, col);
        *code_p = ZC_EXIT_USAGE;
    }
    free(text);
    return doc;
}

/* Is path one of the inputs: the same path, or the same file by device and inode? */
static int zc__is_input(const char *path, const struct stat *target, int exists,
                        const char *const *inputs, size_t ninputs)
{
    for (size_t i = 0; i < ninputs; i++) {
        if (inputs[i] == NULL || strcmp(inputs[i], "-") == 0)
            continue;
        if (strcmp(inputs[i], path) == 0)
            return 1;
        struct stat in;
        if (exists && stat(inputs[i], &in) == 0 && in.st_dev == target->st_dev &&
            in.st_ino == target->st_ino)
            return 1;
    }
    return 0;
}

int zc_cli_output_open(zc_cli_output *out, const char *command, const char *path, int force,
                       const char *const *inputs, size_t ninputs)
{
    memset(out, 0, sizeof *out);
    out->command = command;
    out->path = path;
    if (strcmp(path, "-") == 0) {
        out->f = stdout;
        return ZC_EXIT_OK;
    }
    struct stat info;
    const int exists = stat(path, &info) == 0;
    if (zc__is_input(path, &info, exists, inputs, ninputs)) {
        fprintf(stderr, "zc %s: %s is also an input: refusing to write over it\n", command, path);
        return ZC_EXIT_USAGE;
    }
    if (exists && S_ISDIR(info.st_mode)) {
        fprintf(stderr, "zc %s: cannot write %s: it is a directory\n", command, path);
        return ZC_EXIT_USAGE;
    }
    if (exists && !S_ISREG(info.st_mode)) {
        /* A FIFO, a device or a terminal: written as it is. */
        out->f = fopen(path, "wb");
        if (out->f == NULL) {
            int why = errno;
            fprintf(stderr, "zc %s: cannot write %s: %s\n", command, path, strerror(why));
            return why == EACCES ? ZC_EXIT_USAGE : ZC_EXIT_FAILURE;
        }
        return ZC_EXIT_OK;
    }
    if (exists && !force) {
        fprintf(stderr, "zc %s: %s exists: give --force to replace it\n", command, path);
        return ZC_EXIT_USAGE;
    }
    size_t n = strlen(path) + 16;
    out->tmp = malloc(n);
    if (out->tmp == NULL) {
        fprintf(stderr, "zc %s: cannot write %s: out of memory\n", command, path);
        return ZC_EXIT_FAILURE;
    }
    /* Beside the target, so that the rename stays on one file system. */
    const char *slash = strrchr(path, '/');
    int dir_len = slash != NULL ? (int)(slash - path + 1) : 0;
    snprintf(out->tmp, n, "%.*s.zc-XXXXXX", dir_len, path);
    int fd = mkstemp(out->tmp);
    if (fd < 0 || (out->f = fdopen(fd, "wb")) == NULL) {
        int why = errno;
        fprintf(stderr, "zc %s: cannot write %s: %s\n", command, path, strerror(why));
        if (fd >= 0) {
            close(fd);
            unlink(out->tmp);
        }
        free(out->tmp);
        out->tmp = NULL;
        /* A folder that is not there or not ours is a bad path given: the command line's fault. */
        return why == ENOENT || why == ENOTDIR || why == EACCES || why == EROFS ? ZC_EXIT_USAGE
                                                                                : ZC_EXIT_FAILURE;
    }
    /* mkstemp makes the file 0600; an output is as readable as any file the user makes. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    return ZC_EXIT_OK;
}

int zc_cli_output_commit(zc_cli_output *out)
{
    if (out->f == NULL)
        return ZC_EXIT_FAILURE;
    const int to_stdout = out->f == stdout;
    int failed = to_stdout ? fflush(out->f) != 0 : fclose(out->f) != 0;
    int saved = errno;
    out->f = NULL;
    if (!failed && out->tmp != NULL && rename(out->tmp, out->path) != 0)
        failed = 1, saved = errno;
    if (out->tmp != NULL) {
        if (failed)
            unlink(out->tmp);
        free(out->tmp);
        out->tmp = NULL;
    }
    if (failed) {
        fprintf(stderr, "zc %s: cannot write %s: %s%s\n", out->command,
                to_stdout ? "stdout" : out->path, strerror(saved),
                to_stdout ? "" : " (the file was left as it was)");
        return ZC_EXIT_FAILURE;
    }
    return ZC_EXIT_OK;
}

void zc_cli_output_abort(zc_cli_output *out)
{
    if (out->f != NULL && out->f != stdout)
        fclose(out->f);
    out->f = NULL;
    if (out->tmp != NULL) {
        unlink(out->tmp);
        free(out->tmp);
        out->tmp = NULL;
    }
}
