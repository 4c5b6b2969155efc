/* SPDX-License-Identifier: Apache-2.0 */
/* Exit codes, error lines and number parsing shared by every zc command. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int zc_cli_exit_code(zc_status status)
{
    switch (status) {
    case ZC_OK:
        return ZC_EXIT_OK;
    case ZC_ERR_INVALID_ARG:
    case ZC_ERR_OVERFLOW:
    case ZC_ERR_PARSE:
        return ZC_EXIT_USAGE;
    case ZC_ERR_NO_DEVICE:
        return ZC_EXIT_NO_DEVICE;
    case ZC_ERR_UNSUPPORTED:
        return ZC_EXIT_UNSUPPORTED;
    case ZC_ERR_VERIFY:
        return ZC_EXIT_VERIFY;
    case ZC_ERR_TIMEOUT:
        return ZC_EXIT_TIMEOUT;
    default:
        return ZC_EXIT_FAILURE;
    }
}

int zc_cli_verbose(void)
{
    const char *value = getenv(ZC_CLI_VERBOSE_ENV);
    return value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
}

/* Whether text[0..length) names a source file of ours: a path ending in a C or CUDA suffix. */
static int zc__source_name(const char *text, size_t length)
{
    static const char *const suffixes[] = {".c", ".h", ".cu", ".cuh", ".cc", ".cpp"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t n = strlen(suffixes[i]);
        if (length > n && memcmp(text + length - n, suffixes[i], n) == 0)
            return 1;
    }
    return 0;
}

/* The length of the location " (FILE:LINE)" at text, as zc__fail appends it
 * (src/core/error.c): a file without spaces or brackets, a colon, digits. 0 when there is
 * none. */
static size_t zc__location_length(const char *text)
{
    if (text[0] != ' ' || text[1] != '(')
        return 0;
    size_t file = strcspn(text + 2, " ():");
    if (file == 0 || text[2 + file] != ':' || !zc__source_name(text + 2, file))
        return 0;
    size_t digits = strspn(text + 3 + file, "0123456789");
    if (digits == 0 || text[3 + file + digits] != ')')
        return 0;
    return 4 + file + digits;
}

/* The length of "zc_name: " at text, the name of the library function that failed, as the
 * library's details begin; 0 when there is none. */
static size_t zc__function_length(const char *text)
{
    size_t name = strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (name > 3 && strncmp(text, "zc_", 3) == 0 && strncmp(text + name, ": ", 2) == 0)
        return name + 2;
    return 0;
}

const char *zc_cli_error_detail(const char *detail, char *out, size_t size)
{
    if (size == 0)
        return out;
    if (zc_cli_verbose()) {
        snprintf(out, size, "%s", detail);
        return out;
    }
    /* Every location and every name, not only the last: a detail may quote another's
     * ("profile: zc_profile_from_bench: ... (src/advise/from_bench.c:557)
     * (src/json/profile_bench_json.c:121)"). */
    size_t used = 0;
    for (const char *p = detail; *p != '\0' && used + 1 < size;) {
        size_t skip = zc__location_length(p);
        if (skip == 0 && (p == detail || (p - detail >= 2 && p[-2] == ':' && p[-1] == ' ')))
            skip = zc__function_length(p);
        if (skip > 0) {
            p += skip;
            continue;
        }
        out[used++] = *p++;
    }
    out[used] = '\0';
    return out;
}

const char *zc_cli_last_error(void)
{
    /* Larger than the library's detail (768 bytes), which it only shortens. */
    static _Thread_local char shown[1024];
    return zc_cli_error_detail((zc_last_error)(), shown, sizeof shown);
}

int zc_cli_fail(const char *command, const char *what, zc_status status)
{
    const char *detail = zc_last_error();
    fprintf(stderr, "zc %s: %s: %s%s%s\n", command, what, zc_status_str(status),
            detail[0] ? ": " : "", detail);
    return zc_cli_exit_code(status);
}

int zc_cli_usage_error(const char *command, const char *usage, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "zc %s: ", command);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fprintf(stderr, "\nusage: %s\nTry 'zc %s --help'.\n", usage, command);
    return ZC_EXIT_USAGE;
}

/* Only decimal digits, at least one. */
static int zc__all_digits(const char *text)
{
    if (text == NULL || *text == '\0')
        return 0;
    for (const char *p = text; *p != '\0'; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

int zc_cli_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value_p)
{
    if (!zc__all_digits(text))
        return 0;
    errno = 0;
    unsigned long long value = strtoull(text, NULL, 10);
    if (errno != 0 || value < min || value > max)
        return 0;
    *value_p = value;
    return 1;
}

int zc_cli_parse_int(const char *text, int min, int max, int *value_p)
{
    uint64_t v = 0;
    if (min < 0 || !zc_cli_parse_u64(text, (uint64_t)min, (uint64_t)max, &v))
        return 0;
    *value_p = (int)v;
    return 1;
}

int zc_cli_parse_double(const char *text, double min, double max, double *value_p)
{
    if (text == NULL || !((*text >= '0' && *text <= '9') || *text == '.'))
        return 0; /* no sign, space, "inf" or "nan" */
    for (const char *p = text; *p != '\0'; p++)
        if (*p == 'x' || *p == 'X')
            return 0; /* no hex */
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0' || errno != 0 || !(v >= min && v <= max))
        return 0;
    *value_p = v;
    return 1;
}

int zc_cli_int_option(const char *command, const char *usage, const char *option, const char *what,
                      const char *text, int min, int max, int *value_p)
{
    if (zc_cli_parse_int(text, min, max, value_p))
        return ZC_EXIT_OK;
    return zc_cli_usage_error(command, usage, "%s needs %s from %d to %d, got '%s'", option, what,
                              min, max, text);
}

int zc_cli_u64_option(const char *command, const char *usage, const char *option, const char *what,
                      const char *text, uint64_t min, uint64_t max, uint64_t *value_p)
{
    if (zc_cli_parse_u64(text, min, max, value_p))
        return ZC_EXIT_OK;
    return zc_cli_usage_error(command, usage, "%s needs %s from %llu to %llu, got '%s'", option,
                              what, (unsigned long long)min, (unsigned long long)max, text);
}

int zc_cli_double_option(const char *command, const char *usage, const char *option,
                         const char *what, const char *text, double min, double max,
                         double *value_p)
{
    if (zc_cli_parse_double(text, min, max, value_p))
        return ZC_EXIT_OK;
    return zc_cli_usage_error(command, usage, "%s needs %s from %g to %g, got '%s'", option, what,
                              min, max, text);
}

int zc_cli_positive_option(const char *command, const char *usage, const char *option,
                           const char *what, const char *text, double max, double *value_p)
{
    double v = 0.0;
    if (zc_cli_parse_double(text, 0.0, max, &v) && v > 0.0) {
        *value_p = v;
        return ZC_EXIT_OK;
    }
    return zc_cli_usage_error(command, usage, "%s needs %s, more than 0 and at most %g, got '%s'",
                              option, what, max, text);
}

/* value / 10^fdigits as a decimal ("1331.2"): the exact figure, trailing zeros left out. */
static void zc__decimal_text(unsigned __int128 value, int fdigits, char *out, size_t size)
{
    uint64_t scale = 1;
    for (int i = 0; i < fdigits; i++)
        scale *= 10;
    char frac[24];
    snprintf(frac, sizeof frac, "%0*llu", fdigits, (unsigned long long)(value % scale));
    for (size_t n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
        frac[n - 1] = '\0';
    snprintf(out, size, "%llu%s%s", (unsigned long long)(value / scale), frac[0] ? "." : "", frac);
}

int zc_cli_size_hint(const char *text, uint64_t max, char *out, size_t size)
{
    /* The number as zc_size_parse reads it: digits, a point, at most 9 digits after it. */
    const char *p = text;
    uint64_t whole = 0, frac = 0, fscale = 1;
    int fdigits = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return 0;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p != '.' || p == text)
        return 0; /* no fraction: a whole count of its unit */
    for (p++; *p >= '0' && *p <= '9'; p++, fdigits++) {
        if (fdigits == 9)
            return 0;
        frac = frac * 10 + (uint64_t)(*p - '0');
        fscale *= 10;
    }
    /* The unit is what makes "1" + the rest a size: "", "K", " KiB". */
    char one[32];
    uint64_t unit = 0;
    if (snprintf(one, sizeof one, "1%s", p) >= (int)sizeof one ||
        zc_size_parse(one, UINT64_MAX, &unit) != ZC_OK) {
        zc_clear_error();
        return 0;
    }
    if (whole > max / unit)
        return 0; /* too large whatever the fraction: the grammar's message says it */
    const unsigned __int128 exact = ((unsigned __int128)whole * fscale + frac) * unit;
    if (exact % fscale == 0 || exact / fscale >= UINT64_MAX)
        return 0; /* whole bytes (out of range, not fractional), or past any range */
    const uint64_t below = (uint64_t)(exact / fscale), above = below + 1;
    if (*p == '\0') {
        /* A bare number: most likely a unit was left out; the first that makes it whole. */
        static const char units[] = "KMGT";
        for (const char *u = units; *u != '\0'; u++) {
            char with[64];
            uint64_t bytes = 0;
            snprintf(with, sizeof with, "%s%c", text, *u);
            if (zc_size_parse(with, max, &bytes) == ZC_OK) {
                snprintf(out, size,
                         "%s is not a whole number of bytes; did you mean %s (%llu bytes)?", text,
                         with, (unsigned long long)bytes);
                return 1;
            }
            zc_clear_error();
        }
    }
    char nearest[64];
    if (below >= 1 && above <= max)
        snprintf(nearest, sizeof nearest, "%llu or %llu", (unsigned long long)below,
                 (unsigned long long)above);
    else
        snprintf(nearest, sizeof nearest, "%llu", (unsigned long long)(below >= 1 ? below : above));
    if (*p == '\0') {
        snprintf(out, size, "%s is not a whole number of bytes; did you mean %s?", text, nearest);
    } else {
        char figure[64];
        zc__decimal_text(exact, fdigits, figure, sizeof figure);
        snprintf(out, size, "%s is %s bytes, not a whole number; did you mean %s?", text, figure,
                 nearest);
    }
    return 1;
}

int zc_cli_parse_size(const char *command, const char *usage, const char *option, const char *text,
                      uint64_t max, uint64_t *bytes_p)
{
    if (zc_size_parse(text, max, bytes_p) == ZC_OK)
        return ZC_EXIT_OK;
    /* The parser's reason, kept before the hint's own trial parses overwrite it. */
    char why[512], reason[512];
    snprintf(reason, sizeof reason, "%s", zc_last_error());
    if (!zc_cli_size_hint(text, max, why, sizeof why))
        snprintf(why, sizeof why, "%s", reason);
    zc_clear_error();
    return zc_cli_usage_error(command, usage, "%s: %s", option, why);
}

int zc_cli_next_option(const char *command, const char *usage, int argc, char **argv,
                       const char *shortopts, const struct option *longopts)
{
    int index = -1;
    int opt = getopt_long(argc, argv, shortopts, longopts, &index);
    if (opt == -1 || opt == '?' || opt == ':' || optarg == NULL || optarg[0] != '\0')
        return opt;
    /* getopt_long sets index only for a long option; a short one is named by its letter. */
    if (index >= 0)
        zc_cli_usage_error(command, usage, "--%s needs a value, not an empty one",
                           longopts[index].name);
    else
        zc_cli_usage_error(command, usage, "-%c needs a value, not an empty one", opt);
    return ZC_CLI_OPTION_EMPTY;
}

int zc_cli_option_error(const char *command, const char *usage, int opt, int argc, char **argv)
{
    if (opt == ZC_CLI_OPTION_EMPTY)
        return ZC_EXIT_USAGE; /* zc_cli_next_option said why */
    const char *word = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "?";
    /* A short option: optopt is its letter (a long one's is its code, or 0 when unknown). */
    const int letter = optopt > 0 && optopt < 128 && !(word[0] == '-' && word[1] == '-');
    if (opt == ':')
        return letter ? zc_cli_usage_error(command, usage, "-%c needs a value", optopt)
                      : zc_cli_usage_error(command, usage, "%s needs a value", word);
    return letter ? zc_cli_usage_error(command, usage, "unknown option '-%c'", optopt)
                  : zc_cli_usage_error(command, usage, "unknown option '%s'", word);
}

void zc_cli_print_exit_codes(FILE *out)
{
    fputs("Exit codes:\n"
          "  0  success\n"
          "  1  a call failed at run time (CUDA error, out of memory, I/O)\n"
          "  2  bad command line or input\n"
          "  3  no CUDA GPU or driver\n"
          "  4  the GPU lacks a capability the command needs\n"
          "  5  data verification failed\n"
          "  6  a wait ran out of time (the GPU, an input, a FIFO output's reader)\n",
          out);
}
