/* SPDX-License-Identifier: Apache-2.0 */
/* zc stream: real-time FIR filtering on the GPU through mapped memory (a persistent kernel and
 * a ring), measured against the ways people usually move frames, in one run. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "cli_json.h"
#include "stream_cli.h"
#include "stream_budget.h"

static const char zc__stream_usage[] =
    "zc stream [SOURCE] [--mode MODE[,MODE...]|all] [--frames N | --duration S]\n"
    "                 [--frame-samples N] [--in-flight N] [--format FORMAT] [--lowpass HZ --taps "
    "N\n"
    "                 | --taps-file FILE] [--paced RATE] [-o FILE|-] [-j FILE|-] [--force] "
    "[options]";

/* A help entry: "  NAME" padded to the description's column, the description's later lines
 * indented to it. */
static void zc__help_entry(const char *name, const char *text)
{
    printf("  %-17s ", name);
    for (const char *p = text; *p != '\0'; p++) {
        putchar(*p);
        if (*p == '\n')
            printf("%20s", "");
    }
    putchar('\n');
}

static void zc__stream_help(void)
{
    printf("usage: %s\n\n"
           "Filter a stream of samples with a FIR, frame by frame, through the library's\n"
           "streaming engine, and measure each frame from its entry into the mode's path to\n"
           "its result seen by the CPU.\n\n"
           "Modes:\n",
           zc__stream_usage);
    /* The library's names and words for its modes, so that the help, and the completion made
     * from it, list exactly the modes --mode takes. */
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++)
        zc__help_entry(zc_stream_mode_name((zc_stream_mode)m),
                       zc_stream_mode_help((zc_stream_mode)m));
    printf("\nFormats (raw samples, in the machine's byte order):\n");
    static const char *const kinds[] = {"float32", "int16, full scale 32768",
                                        "unsigned 8-bit around 127.5"};
    for (int complex = 0; complex < 2; complex++) {
        for (int t = 0; t < 3; t++) {
            char what[96];
            snprintf(what, sizeof what, "%s%s", kinds[t], complex ? ", interleaved I/Q pairs" : "");
            if (complex && t == ZC_CLI_VALUE_U8)
                snprintf(what, sizeof what, "%s, interleaved I/Q pairs (as rtl_sdr writes)",
                         kinds[t]);
            zc__help_entry(zc_cli_format_name(
                               (zc_cli_format){.type = (zc_cli_value_type)t, .complex = complex}),
                           what);
        }
    }
    printf("\n"
           "SOURCE (or --source) is synth (default), a raw sample file, a FIFO, or - for stdin.\n"
           "The output has exactly as many samples as the input, in order: the last partial\n"
           "frame is filtered too. The filter is causal; a designed low-pass of N taps delays\n"
           "the signal by (N - 1) / 2 samples. Every result is checked against a CPU FIR in\n"
           "double precision (relative error <= 1e-5; --verify all checks every frame).\n\n"
           "Options:\n"
           "  --mode LIST          modes to run (Modes above), comma-separated, or all\n"
           "                       (default zerocopy)\n"
           "  --protocol ll|flag|both  zerocopy's and hybrid's ring protocol (default ll;\n"
           "                       both with --mode all)\n"
           "  -d, --device N       GPU number (default 0)\n"
           "  --devices LIST       all, or GPUs \"0,1\": frames round-robin over them, one\n"
           "                       filter each, results in order (one mode; schema\n"
           "                       %s)\n"
           "  --lanes N            cpu mode: N host filters, frames round-robin (as --devices)\n"
           "  --frames N           frames per mode after warm-up (default: synth 10000, a file\n"
           "                       or pipe all of it)\n"
           "  --duration S         run for S seconds per mode instead\n"
           "  --warmup N           frames before measuring, still output (default 200; a file\n"
           "                       of no more frames warms up on its first half)\n"
           "  --frame-samples N    samples per frame per channel (default 1024)\n"
           "  --in-flight N        frames outstanding at most, per GPU (default 1)\n"
           "  --gpu-blocks N       zerocopy, hybrid: persistent blocks (default one per 256\n"
           "                       values, samples x channels, at most half the SMs)\n"
           "  --policy wait|drop   when the GPU falls behind (default wait; paced runs drop)\n"
           "  --source FILE|synth|-  as SOURCE\n"
           "  --format FORMAT      the input's (Formats above; default f32)\n"
           "  --complex            samples are I/Q pairs (filtered as two channels)\n"
           "  --output-format FORMAT  filtered samples as f32 (default), s16 or u8 (c... for\n"
           "                       I/Q); integer formats round and clip, and the clips are\n"
           "                       counted\n"
           "  --rate HZ            sample rate (default 1e6, or the --paced rate); a file or\n"
           "                       pipe given --lowpass needs it\n"
           "  --paced RATE         offer RATE samples per second in real time; a frame that\n"
           "                       finds no room is dropped and counted (--policy wait: never)\n"
           "  --tones LIST         synthetic tones in Hz (default rate/100, rate/20, rate/3)\n"
           "  --noise A            synthetic noise amplitude (default 0.1)\n"
           "  --lowpass HZ         windowed-sinc low-pass cutoff (default rate/8)\n"
           "  --taps N             taps of the designed filter (default 64)\n"
           "  --taps-file FILE     taps from a text file instead\n"
           "  --save-taps FILE     write the taps used, one per line (- for stdout)\n"
           "  -o, --output FILE    filtered samples to FILE, or - for stdout, each frame as\n"
           "                       soon as it is filtered (the first mode's results)\n"
           "  --nonfinite stop|zero  a NaN or infinite input sample stops the run (default,\n"
           "                       exit 2, naming sample and frame) or is filtered as 0 and\n"
           "                       counted\n"
           "  --verify all|sample|none  check every frame, a sample (default) or none\n"
           "  --budget             zerocopy: split each measured frame (the first %u) into its\n"
           "                       steps, from stamps on both sides, host and GPU clocks put\n"
           "                       on one line: a table per zerocopy run, and \"budget\" in\n"
           "                       the JSON (docs/stream.md)\n"
           "  --reuse              republish frames already in the transport buffers instead of\n"
           "                       writing each one: measures the link, not the CPU's memcpy\n"
           "  --cpu N              pin the host thread to core N (default: a core of the GPU's\n"
           "                       NUMA node)\n"
           "  --no-pin             do not pin\n"
           "  --timeout-ms N       longest wait (default 2000, then exit 6) for the GPU, for a\n"
           "                       FIFO output's reader, and for the next bytes of a pipe or\n"
           "                       FIFO input: a writer pausing longer stalls the input\n"
           "  -j, --json FILE      results as JSON, schema \"%s\" (docs/json.md), to FILE or -\n"
           "  --force              replace output files (--output, --json, --save-taps) that\n"
           "                       exist\n"
           "  -h, --help           this help\n",
           ZC_CLI_STREAM_MULTI_SCHEMA, ZC_CLI_STREAM_BUDGET_FRAMES, ZC_CLI_STREAM_SCHEMA);
}

#define ZC__USAGE(...) zc_cli_usage_error("stream", zc__stream_usage, __VA_ARGS__)

/* --tones: up to 8 frequencies, each a number as every option reads one. */
static int zc__parse_tones(const char *text, zc_cli_stream_opts *o)
{
    enum { MAX_TONES = sizeof o->tones / sizeof o->tones[0] };
    const double max_hz = 1e12;
    int n = 0;
    for (const char *p = text;; n++) {
        const size_t len = strcspn(p, ",");
        char item[64];
        if (n == MAX_TONES || len == 0 || len >= sizeof item)
            break;
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (!zc_cli_parse_double(item, 0.0, max_hz, &o->tones[n]))
            break;
        if (p[len] == '\0') {
            o->tone_count = n + 1;
            return 0;
        }
        p += len + 1;
    }
    return ZC__USAGE("--tones needs up to %d frequencies in Hz from 0 to %g, comma-separated, got "
                     "'%s'",
                     (int)MAX_TONES, max_hz, text);
}

/* The CPUs this process may run on as a list ("0-3,8"), for the --cpu message. */
static void zc__cpu_list(const cpu_set_t *set, char *out, size_t size)
{
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        size_t used = strlen(out);
        if (last > c)
            snprintf(out + used, size - used, "%s%d-%d", used ? "," : "", c, last);
        else
            snprintf(out + used, size - used, "%s%d", used ? "," : "", c);
        c = last;
    }
}

/* --cpu: a core that is online and in this process's affinity mask, said with those that are,
 * rather than found wanting only when the run pins its thread. */
static int zc__parse_cpu(const char *text, int *cpu_p)
{
    cpu_set_t allowed;
    char list[256] = "unknown";
    int cpu = -1;
    const int known = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
    if (known)
        zc__cpu_list(&allowed, list, sizeof list);
    if (!zc_cli_parse_int(text, 0, INT_MAX, &cpu))
        return ZC__USAGE("--cpu needs the number of an online CPU that zc may use (%s), got '%s'",
                         list, text);
    if (known && (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)))
        return ZC__USAGE("--cpu: %s is not an online CPU that zc may use (%s)", text, list);
    *cpu_p = cpu;
    return 0;
}

static int zc__parse_mode_list(const char *text, zc_cli_stream_opts *o, int *all_p)
{
    const size_t len = strlen(text);
    if (len == 0 || text[len - 1] == ',' || text[0] == ',' || strstr(text, ",,") != NULL)
        return ZC__USAGE("--mode needs modes separated by single commas, got '%.60s%s'", text,
                         len > 60 ? "..." : "");
    /* Each name read in place: a list has no length limit (a name repeated is the same mode). */
    for (const char *m = text; *m != '\0';) {
        const size_t n = strcspn(m, ",");
        char name[32];
        zc_stream_mode mode;
        if (n < sizeof name)
            snprintf(name, sizeof name, "%.*s", (int)n, m);
        if (n < sizeof name && strcmp(name, "all") == 0) {
            *all_p = 1;
            for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++)
                o->modes[i] = 1;
        } else if (n < sizeof name && zc_stream_mode_parse(name, &mode) == ZC_OK) {
            o->modes[mode] = 1;
        } else {
            char known[256] = "";
            for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++) {
                size_t used = strlen(known);
                snprintf(known + used, sizeof known - used, "%s, ",
                         zc_stream_mode_name((zc_stream_mode)i));
            }
            return ZC__USAGE("unknown mode '%.*s' (modes: %sor all)", (int)(n < 60 ? n : 60), m,
                             known);
        }
        m += n + (m[n] == ',');
    }
    return 0;
}

/* What the options imply once all are read; 0 or the exit code. */
static int zc__stream_settle(zc_cli_stream_opts *o, int any_mode, int all, int protocol_set,
                             int device_set)
{
    if (!any_mode)
        o->modes[ZC_STREAM_ZEROCOPY] = 1;
    o->modes_all = all;
    if (!protocol_set)
        o->protocols = all ? 3 : 1;
    if (o->format.complex)
        o->channels = 2;
    if (o->channels == 2)
        o->format.complex = 1;
    if (!o->output_format_given)
        o->output_format.type = ZC_CLI_VALUE_F32;
    if (o->output_format.complex != (o->channels == 2)) {
        if (o->output_format_given)
            return ZC__USAGE("--output-format %s does not match the %s input",
                             zc_cli_format_name(o->output_format),
                             o->channels == 2 ? "complex" : "real");
        o->output_format.complex = o->channels == 2;
    }
    if (!o->frames_given && strcmp(o->source, "synth") == 0 && o->duration_s == 0)
        o->frames = 10000;
    /* A cutoff in Hz means something only at the input's own rate, which a raw file cannot say:
     * the default rate is the synthetic source's, and a filter designed at it is silently wrong
     * for a 48 kHz recording. --paced RATE offers the samples at their rate, so it says it too. */
    if (o->rate == 0 && o->paced_rate == 0 && o->cutoff_hz > 0 && strcmp(o->source, "synth") != 0)
        return ZC__USAGE("--lowpass %g is in Hz: give the sample rate of %s with --rate HZ (the "
                         "default, 1e+06, is the synthetic source's)",
                         o->cutoff_hz, strcmp(o->source, "-") == 0 ? "stdin" : o->source);
    if (o->rate == 0)
        o->rate = o->paced_rate > 0 ? o->paced_rate : 1e6;
    if (o->tone_count < 0) {
        o->tone_count = 3;
        o->tones[0] = o->rate / 100;
        o->tones[1] = o->rate / 20;
        o->tones[2] = o->rate / 3;
    }
    for (int i = 0; i < o->tone_count; i++) {
        if (o->tones[i] >= o->rate / 2)
            return ZC__USAGE("tone %g Hz is not below half the sample rate (%g Hz)", o->tones[i],
                             o->rate / 2);
    }
    if (o->taps_file != NULL && o->cutoff_hz > 0)
        return ZC__USAGE("--lowpass and --taps-file exclude each other");
    if (o->cutoff_hz == 0)
        o->cutoff_hz = o->rate / 8;
    if (o->cutoff_hz >= o->rate / 2)
        return ZC__USAGE("--lowpass %g Hz is not below half the sample rate (%g Hz)", o->cutoff_hz,
                         o->rate / 2);
    if ((o->frame_samples * o->channels) % 4 != 0)
        return ZC__USAGE("a frame must hold a multiple of 4 values (16 bytes); %zu samples x %zu "
                         "channels do not",
                         o->frame_samples, o->channels);
    int modes = 0;
    for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++)
        modes += o->modes[i];
    int on_ring_runs = 0;
    for (int i = 0; i < ZC_STREAM_MODE_COUNT; i++)
        on_ring_runs += o->modes[i] && zc_stream_mode_on_ring((zc_stream_mode)i);
    const int one_mode = modes == 1 && !(on_ring_runs && o->protocols == 3);
    if (o->lanes > 1 && (!one_mode || !o->modes[ZC_STREAM_CPU]))
        return ZC__USAGE("--lanes is for --mode cpu alone; GPUs take --devices");
    if (o->devices_text != NULL) {
        int devices[ZC_DEVICE_LIST_MAX];
        size_t n = 0;
        /* The form here (no GPU needed); the range once the machine's GPUs are known. */
        if (strcmp(o->devices_text, "all") != 0 &&
            zc_device_list_parse(o->devices_text, INT_MAX, devices, ZC_DEVICE_LIST_MAX, &n) !=
                ZC_OK)
            return ZC__USAGE("--devices: %s", zc_last_error());
        if (device_set)
            return ZC__USAGE("give --device or --devices, not both");
        if (!one_mode)
            return ZC__USAGE("--devices runs one mode (and one zerocopy protocol) at a time");
        if (o->modes[ZC_STREAM_CPU])
            return ZC__USAGE("--devices lists GPUs; the cpu mode takes --lanes");
    }
    /* The ring's protocol and its persistent blocks belong to the modes on a ring: asked of
     * other modes alone they would be ignored without a word. */
    if (protocol_set && !on_ring_runs)
        return ZC__USAGE("--protocol has no effect without a mode on a ring: add zerocopy or "
                         "hybrid to --mode, or drop --protocol");
    if (o->gpu_blocks != 0 && !on_ring_runs)
        return ZC__USAGE("--gpu-blocks has no effect without a mode on a ring: add zerocopy or "
                         "hybrid to --mode, or drop --gpu-blocks");
    if (o->budget && !on_ring_runs)
        return ZC__USAGE("--budget splits the frames of a persistent kernel's mode into their "
                         "steps: add zerocopy or hybrid to --mode (--mode zerocopy, or all)");
    if (o->budget && o->devices_text != NULL)
        return ZC__USAGE("--budget is kept for one GPU (--device), not --devices");
    if (o->output != NULL && o->json != NULL && strcmp(o->output, "-") == 0 &&
        strcmp(o->json, "-") == 0)
        return ZC__USAGE("--output - and --json - cannot share stdout");
    if (o->save_taps != NULL && strcmp(o->save_taps, "-") == 0 &&
        ((o->output != NULL && strcmp(o->output, "-") == 0) ||
         (o->json != NULL && strcmp(o->json, "-") == 0)))
        return ZC__USAGE("--save-taps - cannot share stdout with --output - or --json -");
    return 0;
}

/* The options' readers that do more than store one value. */
static int zc__opt_mode(void *opts, const char *value)
{
    zc_cli_stream_opts *o = opts;
    return zc__parse_mode_list(value, o, &o->modes_all);
}

static int zc__opt_frames(void *opts, const char *value)
{
    zc_cli_stream_opts *o = opts;
    int code = zc_cli_u64_option("stream", zc__stream_usage, "--frames", "a number of frames",
                                 value, 1, 1000000000000ull, &o->frames);
    o->frames_given = code == 0;
    return code;
}

static int zc__opt_duration(void *opts, const char *value)
{
    zc_cli_stream_opts *o = opts;
    return zc_cli_double_option("stream", zc__stream_usage, "--duration", "seconds", value, 0.001,
                                86400.0, &o->duration_s);
}

static int zc__opt_format(void *opts, const char *value)
{
    zc_cli_stream_opts *o = opts;
    if (!zc_cli_format_parse(value, &o->format))
        return ZC__USAGE("--format takes f32, s16, u8, cf32, cs16 or cu8, not '%s'", value);
    return 0;
}

static int zc__opt_output_format(void *opts, const char *value)
{
    zc_cli_stream_opts *o = opts;
    if (!zc_cli_format_parse(value, &o->output_format))
        return ZC__USAGE("--output-format takes f32, s16, u8, cf32, cs16 or cu8, not '%s'", value);
    o->output_format_given = 1;
    return 0;
}

static int zc__opt_tones(void *opts, const char *value)
{
    return zc__parse_tones(value, opts);
}

static int zc__opt_cpu(void *opts, const char *value)
{
    return zc__parse_cpu(value, &((zc_cli_stream_opts *)opts)->cpu);
}

/* The options given that settle looks at (zc_cli_options_parse's marks). */
enum { ZC__MARK_MODE = 1, ZC__MARK_PROTOCOL, ZC__MARK_DEVICE, ZC__MARK_SOURCE, ZC__MARK_POLICY };

static const zc_cli_choice zc__protocols[] = {{"ll", 1}, {"flag", 2}, {"both", 3}, {NULL, 0}};
static const zc_cli_choice zc__policies[] = {
    {"wait", ZC_RING_FULL_WAIT}, {"drop", ZC_RING_FULL_DROP}, {NULL, 0}};
static const zc_cli_choice zc__nonfinites[] = {
    {"stop", ZC_STREAM_NONFINITE_REJECT}, {"zero", ZC_STREAM_NONFINITE_ZERO}, {NULL, 0}};
static const zc_cli_choice zc__verifies[] = {{"all", ZC_STREAM_VERIFY_ALL},
                                             {"sample", ZC_STREAM_VERIFY_SAMPLE},
                                             {"none", ZC_STREAM_VERIFY_NONE},
                                             {NULL, 0}};

/* A field of the stream's options record, for the table's rows (cli_options.h). */
#define ZC__F(field) ZC_CLI_FIELD(zc_cli_stream_opts, field)
static const zc_cli_opt zc__stream_options[] = {
    ZC_CLI_CALL("mode", zc__opt_mode, .mark = ZC__MARK_MODE),
    ZC_CLI_CHOICE("protocol", ZC__F(protocols), zc__protocols, .mark = ZC__MARK_PROTOCOL),
    ZC_CLI_INT("device", 'd', ZC__F(device), "a GPU number", 0, ZC_CLI_DEVICE_MAX,
               .mark = ZC__MARK_DEVICE),
    ZC_CLI_CALL("frames", zc__opt_frames, .mark = 0, .once = 1, .excludes = "duration"),
    ZC_CLI_CALL("duration", zc__opt_duration, .mark = 0, .once = 1),
    ZC_CLI_WHOLE("warmup", ZC__F(warmup), "a number of frames", 0, 100000000ull, .scale = 0),
    ZC_CLI_WHOLE("frame-samples", ZC__F(frame_samples), "a number of samples", 4, (uint64_t)1 << 26,
                 .scale = 0),
    ZC_CLI_WHOLE("in-flight", ZC__F(in_flight), "a number of frames", 1, 1024, .scale = 0),
    ZC_CLI_WHOLE("gpu-blocks", ZC__F(gpu_blocks), "a number of blocks", 1, ZC_RING_MAX_CONSUMERS,
                 .scale = 0),
    ZC_CLI_CHOICE("policy", ZC__F(policy), zc__policies, .mark = ZC__MARK_POLICY),
    ZC_CLI_TEXT("source", 0, ZC__F(source), .mark = ZC__MARK_SOURCE),
    ZC_CLI_CALL("format", zc__opt_format, .mark = 0, .once = 1),
    ZC_CLI_CALL("output-format", zc__opt_output_format, .mark = 0, .once = 1),
    ZC_CLI_SET("complex", 0, ZC__F(channels), 2),
    ZC_CLI_REAL("rate", ZC__F(rate), "samples per second", 1.0, 1e12, .mark = 0),
    ZC_CLI_REAL("paced", ZC__F(paced_rate), "samples per second", 1.0, 1e12, .mark = 0),
    ZC_CLI_CALL("tones", zc__opt_tones, .mark = 0, .once = 1),
    ZC_CLI_REAL("noise", ZC__F(noise), "an amplitude", 0.0, 1e6, .mark = 0),
    ZC_CLI_REAL("lowpass", ZC__F(cutoff_hz), "a cutoff in Hz", 1e-9, 1e12, .mark = 0),
    ZC_CLI_WHOLE("taps", ZC__F(ntaps), "a number of taps", 1, ZC_FIR_MAX_TAPS, .scale = 0,
                 .excludes = "taps-file"),
    ZC_CLI_TEXT("taps-file", 0, ZC__F(taps_file), .mark = 0),
    ZC_CLI_TEXT("save-taps", 0, ZC__F(save_taps), .mark = 0),
    ZC_CLI_TEXT("output", 'o', ZC__F(output), .mark = 0),
    ZC_CLI_CHOICE("nonfinite", ZC__F(nonfinite), zc__nonfinites, .mark = 0),
    ZC_CLI_CHOICE("verify", ZC__F(verify), zc__verifies, .mark = 0),
    ZC_CLI_SET("reuse", 0, ZC__F(reuse), 1),
    ZC_CLI_CALL("cpu", zc__opt_cpu, .mark = 0, .once = 1, .excludes = "no-pin"),
    ZC_CLI_SET("no-pin", 0, ZC__F(no_pin), 1),
    ZC_CLI_WHOLE("timeout-ms", ZC__F(timeout_ns), "milliseconds", 1, 3600000, .scale = 1000000u),
    ZC_CLI_TEXT("json", 'j', ZC__F(json), .mark = 0),
    ZC_CLI_SET("force", 0, ZC__F(force), 1),
    ZC_CLI_TEXT("devices", 0, ZC__F(devices_text), .mark = 0),
    ZC_CLI_WHOLE("lanes", ZC__F(lanes), "a number of host filters", 1, ZC_STREAM_MAX_LANES,
                 .scale = 0),
    ZC_CLI_SET("budget", 0, ZC__F(budget), 1),
};
#undef ZC__F

int zc_cli_stream_parse(int argc, char **argv, zc_cli_stream_opts *o)
{
    static const zc_cli_command command = {"stream", zc__stream_usage, zc__stream_help};
    memset(o, 0, sizeof *o);
    o->warmup = 200;
    o->frame_samples = 1024;
    o->channels = 1;
    o->in_flight = 1;
    o->source = "synth";
    o->noise = 0.1;
    o->ntaps = 64;
    o->verify = ZC_STREAM_VERIFY_SAMPLE;
    o->cpu = -1;
    o->timeout_ns = 2000000000ull;
    o->tone_count = -1;
    o->lanes = 1;
    int marks[ZC_CLI_MARKS];
    int code = zc_cli_options_parse(&command, zc__stream_options,
                                    sizeof zc__stream_options / sizeof zc__stream_options[0], argc,
                                    argv, o, marks);
    if (code != 0)
        return code;
    o->policy_given = marks[ZC__MARK_POLICY];
    int source_set = marks[ZC__MARK_SOURCE];
    if (optind < argc && !source_set) {
        o->source = argv[optind++]; /* the source as the one positional argument */
        source_set = 1;
        if (o->source[0] == '\0')
            return ZC__USAGE("SOURCE needs a value, not an empty one");
    }
    if (optind < argc)
        return ZC__USAGE("unexpected argument '%s'", argv[optind]);
    return zc__stream_settle(o, marks[ZC__MARK_MODE], o->modes_all, marks[ZC__MARK_PROTOCOL],
                             marks[ZC__MARK_DEVICE]);
}

static void zc__print_table(FILE *f, const zc_cli_stream_opts *o, const zc_cli_stream_result *runs,
                            int count)
{
    fprintf(f, "\n%-17s %7s %8s %8s %8s %8s %9s %10s %9s %8s %9s %s\n", "mode", "blocks", "p50 us",
            "p90 us", "p99 us", "p99.9 us", "max us", "frames/s", "GB/s", "dropped", "rel err",
            "check");
    for (int i = 0; i < count; i++) {
        const zc_cli_stream_result *r = &runs[i];
        const zc_stream_stats *st = &r->stats;
        if (st->frames_measured == 0) {
            fprintf(
                f, "%-17s %s: %s\n", r->name, r->status == ZC_OK ? "no measured frame" : "FAILED",
                r->status == ZC_OK ? "the input ended within the warm-up (--warmup)" : r->error);
            continue;
        }
        const zc_stats *s = &st->latency_us;
        fprintf(f, "%-17s %7u %8.2f %8.2f %8.2f %8.2f %9.1f %10.0f %9.3f %8llu %9.2e %s\n", r->name,
                st->lane[0].gpu_blocks, s->median, s->p90, s->p99, s->p999, s->max,
                st->frames_per_s, st->gb_per_s, (unsigned long long)st->measured_dropped,
                st->max_rel_error,
                o->verify == ZC_STREAM_VERIFY_NONE ? "off"
                : r->status == ZC_ERR_VERIFY       ? "FAIL"
                : st->verified == 0                ? "not checked (0 frames)"
                                                   : "ok");
    }
}

/* One line per lane and a total (--devices, --lanes). */
static void zc__print_lanes(FILE *f, const zc_cli_stream_result *r)
{
    const zc_stream_stats *s = &r->stats;
    fprintf(f, "%-10s %7s %8s %8s %8s %8s %10s %9s\n", "lane", "blocks", "p50 us", "p99 us",
            "p99.9 us", "max us", "frames/s", "GB/s");
    for (size_t i = 0; i < s->lanes; i++) {
        const zc_stream_lane_stats *l = &s->lane[i];
        char name[32];
        if (l->device < 0)
            snprintf(name, sizeof name, "host %zu", i);
        else
            snprintf(name, sizeof name, "GPU %d", l->device);
        fprintf(f, "%-10s %7u %8.2f %8.2f %8.2f %8.1f %10.0f %9.3f\n", name, l->gpu_blocks,
                l->latency_us.median, l->latency_us.p99, l->latency_us.p999, l->latency_us.max,
                l->frames_per_s, l->gb_per_s);
    }
    fprintf(f, "%-10s %7s %8.2f %8.2f %8.2f %8.1f %10.0f %9.3f\n", "total", "",
            s->latency_us.median, s->latency_us.p99, s->latency_us.p999, s->latency_us.max,
            s->frames_per_s, s->gb_per_s);
}

/* What came in and what went out, so that a loss is never silent. */
static void zc__print_samples(FILE *f, const zc_cli_stream_opts *o, const zc_cli_stream_result *r)
{
    const zc_stream_stats *s = &r->stats;
    fprintf(f, "%s: %llu samples in, %llu out", r->name, (unsigned long long)s->samples_in,
            (unsigned long long)s->samples_out);
    if (s->samples_dropped)
        fprintf(f, ", %llu dropped in %llu frames (--policy drop)",
                (unsigned long long)s->samples_dropped, (unsigned long long)s->frames_dropped);
    if (s->nonfinite)
        fprintf(f, ", %llu non-finite values filtered as 0 (the first at sample %llu, frame %llu)",
                (unsigned long long)s->nonfinite, (unsigned long long)s->first_nonfinite,
                (unsigned long long)(s->first_nonfinite / o->frame_samples));
    if (r->clipped)
        fprintf(f, ", %llu values clipped by the output format", (unsigned long long)r->clipped);
    if (s->verified == 0)
        fprintf(f, "; not checked against the reference (0 frames)\n");
    else
        fprintf(f, "; %llu frames checked against the reference, largest relative error %.2e\n",
                (unsigned long long)s->verified, s->max_rel_error);
}

/* The GPU modes failed for want of a GPU (what, st): say why, then that the same filter runs on
 * the host, so that a machine without a GPU is not a dead end. Gives the exit code (3). */
static int zc__no_gpu(const zc_cli_stream_opts *o, const char *what, zc_status st)
{
    const int code = zc_cli_fail("stream", what, st);
    if (st != ZC_ERR_NO_DEVICE)
        return code;
    if (o->devices_text != NULL)
        fprintf(stderr, "zc stream: no CUDA GPU: run the same filter on the host with --mode cpu "
                        "(--lanes N for several host filters, as --devices spreads frames)\n");
    else if (o->modes_all)
        fprintf(stderr, "zc stream: no CUDA GPU: --mode all compares the GPU modes with the "
                        "host; run the same filter on the host alone with --mode cpu\n");
    else
        fprintf(stderr,
                "zc stream: no CUDA GPU: run the same filter on the host with --mode cpu\n");
    return code;
}

/* The GPUs --devices names ("all": every one), into o. */
static int zc__resolve_devices(zc_cli_stream_opts *o)
{
    if (o->devices_text == NULL)
        return 0;
    int count = 0;
    zc_status st = zc_device_count(&count);
    if (st != ZC_OK)
        return zc__no_gpu(o, "no GPU to stream to", st);
    if (zc_device_list_parse(o->devices_text, count, o->devices, ZC_STREAM_MAX_LANES,
                             &o->device_count) != ZC_OK) {
        fprintf(stderr, "zc stream: --devices: %s\n", zc_last_error());
        return ZC_EXIT_USAGE;
    }
    return 0;
}

/*
 * A file shorter than the warm-up would be filtered and then report no latency at all: when the
 * input's length is known (a regular file, or stdin redirected from one) and it holds no more
 * frames than the warm-up, its first half warms up and the rest is measured, said in note
 * (empty otherwise). A pipe's length is not known until it ends.
 */
static void zc__fit_warmup(zc_cli_stream_opts *o, char *note, size_t size)
{
    note[0] = '\0';
    if (strcmp(o->source, "synth") == 0 || o->reuse)
        return;
    struct stat info;
    const int known =
        strcmp(o->source, "-") == 0 ? fstat(STDIN_FILENO, &info) == 0 : stat(o->source, &info) == 0;
    if (!known || !S_ISREG(info.st_mode) || info.st_size <= 0)
        return;
    const uint64_t sample_bytes = zc_cli_format_value_bytes(o->format.type) * o->channels;
    const uint64_t samples = (uint64_t)info.st_size / sample_bytes;
    const uint64_t frames = (samples + o->frame_samples - 1) / o->frame_samples;
    if (frames == 0 || frames > o->warmup)
        return;
    const uint64_t asked = o->warmup;
    o->warmup = frames / 2;
    snprintf(note, size,
             "%s holds %llu frame%s, not more than the warm-up of %llu: the first %llu warm%s up, "
             "the other %llu %s measured (--warmup)",
             strcmp(o->source, "-") == 0 ? "stdin" : o->source, (unsigned long long)frames,
             frames == 1 ? "" : "s", (unsigned long long)asked, (unsigned long long)o->warmup,
             o->warmup == 1 ? "s" : "", (unsigned long long)(frames - o->warmup),
             frames - o->warmup == 1 ? "is" : "are");
}

static int zc__stream_runs(zc_cli_stream_opts *op, int argc, char **argv, zc_cli_output *json_out,
                           zc_cli_output *taps_out);

int zc_cli_cmd_stream(int argc, char **argv)
{
    static zc_cli_stream_opts o; /* large; one per process */
    int code = zc_cli_stream_parse(argc, argv, &o);
    if (code != 0)
        return code < 0 ? ZC_EXIT_OK : code;

    /* Said before either is read: the taps would take the samples, or the samples the taps. */
    if (o.taps_file != NULL && strcmp(o.taps_file, "-") == 0 && strcmp(o.source, "-") == 0)
        return ZC__USAGE("--taps-file - and the input - both name stdin");
    zc_status st;
    if (o.taps_file != NULL)
        st = zc_cli_stream_taps_read(o.taps_file, o.taps, &o.ntaps);
    else
        st = zc_fir_design_lowpass(o.cutoff_hz / o.rate, o.ntaps, o.taps);
    if (st != ZC_OK)
        return zc_cli_fail("stream", "designing the filter", st);
    const char *const inputs[] = {o.source, o.taps_file};
    /* The frame and filter the engine will get, checked before anything is opened or touched
     * (frames shorter than the filter's history, for one). */
    zc_stream_config check;
    zc_cli_stream_config(&o, o.modes[ZC_STREAM_CPU] ? ZC_STREAM_CPU : ZC_STREAM_ZEROCOPY,
                         ZC_RING_PROTO_LL, 1, &check);
    const int lanes[2] = {0, 1}; /* --devices is read later: any two GPUs check alike */
    if (o.devices_text != NULL) {
        check.devices = lanes;
        check.device_count = 2;
    }
    if ((st = zc_stream_config_check(&check)) != ZC_OK)
        return zc_cli_usage_error("stream", zc__stream_usage, "%s", zc_last_error());
    if ((code = zc__resolve_devices(&o)) != 0)
        return code;

    /* A FIFO given as an output waits for its reader as long as an input waits for data. */
    zc_cli_output_set_open_timeout_ms((int)(o.timeout_ns / 1000000u));
    /* The JSON output is opened before any GPU is touched: a bad path is said at once. */
    zc_cli_output json_out = {0};
    if (o.json != NULL &&
        (code = zc_cli_output_open(&json_out, "stream", o.json, o.force, inputs, 2)) != 0)
        return code;
    /* The taps are the design the options ask for, whole before any run: written now, and like
     * every output committed only when the command succeeds (a refused or failed run leaves an
     * existing file as it was). Open while the samples' output opens, so that the two cannot
     * name one file. */
    zc_cli_output taps_out = {0};
    if (o.save_taps != NULL &&
        ((code = zc_cli_output_open(&taps_out, "stream", o.save_taps, o.force, inputs, 2)) != 0 ||
         (st = zc_cli_stream_taps_put(&taps_out, o.taps, o.ntaps)) != ZC_OK)) {
        zc_cli_output_abort(&taps_out);
        zc_cli_output_abort(&json_out);
        return code != 0 ? code : zc_cli_exit_code(st);
    }
    code = zc__stream_runs(&o, argc, argv, o.json != NULL ? &json_out : NULL,
                           o.save_taps != NULL ? &taps_out : NULL);
    zc_cli_output_abort(&taps_out); /* no-ops once committed */
    zc_cli_output_abort(&json_out);
    return code;
}

/* What the run is about to do, on text: the GPU or the host, the core, the frames, the filter,
 * the input, the warm-up's note and the host's load. */
static void zc__stream_header(FILE *text, const zc_cli_stream_opts *o, const zc_device_info *devp,
                              const zc_cli_stream_host *host, const char *warmup_note)
{
    if (devp != NULL)
        fprintf(text, "zc stream: GPU %d %s (NUMA node %d)%s; ", devp->ordinal, devp->name,
                devp->numa_node, o->device_count > 1 ? " and more (--devices)" : "");
    else
        fprintf(text, "zc stream: on the host (cpu mode, %zu lane%s); ", o->lanes,
                o->lanes == 1 ? "" : "s");
    /* The rate and the filter's cutoff in words: a filter designed at the wrong rate shows. */
    char filter[320];
    if (o->taps_file != NULL)
        snprintf(filter, sizeof filter, "taps from %s", o->taps_file);
    else
        snprintf(filter, sizeof filter, "low-pass %g Hz", o->cutoff_hz);
    fprintf(text,
            "host thread on core %d (%s); %zu samples x %zu channel%s per frame (%zu bytes), "
            "rate %g Hz, %s, %zu taps (delay %.1f samples), %u in flight%s; input %s (%s)\n",
            host->cpu, host->why, o->frame_samples, o->channels, o->channels == 1 ? "" : "s",
            o->frame_samples * o->channels * 4, o->rate, filter, o->ntaps,
            (double)(o->ntaps - 1) / 2.0, o->in_flight, o->paced_rate > 0 ? ", paced" : "",
            o->source, zc_cli_format_name(o->format));
    if (warmup_note[0] != '\0')
        fprintf(text, "zc stream: %s\n", warmup_note);
    fprintf(text, "host: load %.2f (1 min), %d running, %d CPUs online, core %d at %.0f MHz%s%s\n",
            host->loadavg1, host->procs_running, host->cpus_online, host->cpu, host->cpu_mhz,
            host->governor[0] ? ", governor " : "", host->governor);
    fflush(text);
}

/* Every mode and protocol asked for, in order, into runs (the first one's samples to sink);
 * their count. *exit_code_p gets the first failure's code. */
static int zc__stream_each_run(const zc_cli_stream_opts *o, zc_cli_stream_source *src,
                               zc_cli_stream_sink *sink, FILE *text, zc_cli_stream_result *runs,
                               int *exit_code_p)
{
    int count = 0;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        if (!o->modes[m])
            continue;
        for (int p = 0; p < 2; p++) {
            zc_ring_protocol proto = p == 0 ? ZC_RING_PROTO_LL : ZC_RING_PROTO_FLAG;
            if (zc_stream_mode_on_ring((zc_stream_mode)m) ? !(o->protocols & (1 << p)) : p == 1)
                continue;
            zc_cli_stream_result *r = &runs[count++];
            char name[32];
            zc_cli_stream_run_name((zc_stream_mode)m, proto, name, sizeof name);
            fprintf(text, "running %s ...\n", name);
            fflush(text);
            zc_cli_stream_run(o, (zc_stream_mode)m, proto, src, count == 1 ? sink : NULL, r);
            zc__print_samples(text, o, r);
            if (r->status == ZC_ERR_UNSUPPORTED && o->modes_all) {
                /* --mode all runs what this GPU can; the JSON keeps the reason. */
                fprintf(text, "skipped %s: %s\n", r->name, r->error);
            } else if (r->status != ZC_OK) {
                fprintf(stderr, "zc stream: %s: %s\n", r->name, r->error);
                if (*exit_code_p == ZC_EXIT_OK)
                    *exit_code_p = zc_cli_exit_code(r->status);
            }
        }
    }
    return count;
}

/* The runs' JSON into json_out, unless a run failed and the file would be replaced: a failed
 * run replaces no file. Gives exit_code, or the commit's failure. */
static int zc__stream_json_out(const zc_cli_stream_opts *o, int argc, char **argv,
                               const zc_device_info *devp, const zc_cli_stream_host *host,
                               const zc_cli_stream_result *runs, int count, int lanes,
                               zc_cli_output *json_out, int exit_code)
{
    if (json_out == NULL)
        return exit_code;
    if (exit_code != ZC_EXIT_OK && zc_cli_output_is_staged(json_out)) {
        (void)zc_cli_output_finish(json_out, 0);
        return exit_code;
    }
    cJSON *doc;
    if (lanes) {
        static char names[ZC_STREAM_MAX_LANES][256];
        for (size_t i = 0; i < runs[0].stats.lanes; i++) {
            zc_device_info info;
            int d = runs[0].stats.lane[i].device;
            snprintf(names[i], sizeof names[i], "%s",
                     d >= 0 && zc_device_info_get(d, &info) == ZC_OK ? info.name : "host");
        }
        doc = zc_cli_stream_multi_json(o, &runs[0], names, host);
    } else {
        doc = zc_cli_stream_json(o, argc, argv, devp, host, runs, count);
    }
    int rc = zc_cli_json_commit("stream", doc, json_out);
    return rc != ZC_EXIT_OK && exit_code == ZC_EXIT_OK ? rc : exit_code;
}

/* Every run the options ask for, their table and their JSON (into json_out, committed here). */
static int zc__stream_runs(zc_cli_stream_opts *op, int argc, char **argv, zc_cli_output *json_out,
                           zc_cli_output *taps_out)
{
    zc_cli_stream_opts o = *op;
    char warmup_note[256];
    zc__fit_warmup(&o, warmup_note, sizeof warmup_note);
    /* o is read only from here on. */
    zc_status st;
    int gpu_runs = 0, runs_wanted = 0;
    for (int m = 0; m < ZC_STREAM_MODE_COUNT; m++) {
        int n = o.modes[m] ? (zc_stream_mode_on_ring((zc_stream_mode)m) && o.protocols == 3 ? 2 : 1)
                           : 0;
        runs_wanted += n;
        gpu_runs += zc_stream_mode_flags((zc_stream_mode)m) & ZC_STREAM_MODE_ON_GPU ? n : 0;
    }
    zc_cli_stream_source *src = NULL;
    zc_cli_stream_sink *sink = NULL;
    /* The samples' output before the input is read or a GPU touched: a bad path is said at once. */
    if (o.output != NULL && (st = zc_cli_stream_sink_open(&o, &sink)) != ZC_OK)
        return zc_cli_exit_code(st);
    if ((st = zc_cli_stream_source_open(&o, &src)) != ZC_OK) {
        zc_cli_stream_sink_close(sink, 0);
        return zc_cli_exit_code(st);
    }
    zc_device_info dev;
    const zc_device_info *devp = NULL;
    if (gpu_runs > 0) {
        st = zc_device_info_get(o.device_count ? o.devices[0] : o.device, &dev);
        if (st != ZC_OK) {
            zc_cli_stream_sink_close(sink, 0);
            zc_cli_stream_source_close(src);
            return zc__no_gpu(&o, "reading the GPU", st);
        }
        devp = &dev;
    }
    /* Several modes see the same samples: a file or pipe is read into memory once. */
    if (runs_wanted > 1 && (st = zc_cli_stream_source_preload(src)) != ZC_OK) {
        zc_cli_stream_sink_close(sink, 0);
        zc_cli_stream_source_close(src);
        return zc_cli_exit_code(st);
    }
    /* Human text goes to stderr when stdout carries samples, taps or JSON. */
    const int stdout_taken = (o.output && strcmp(o.output, "-") == 0) ||
                             (o.json && strcmp(o.json, "-") == 0) ||
                             (o.save_taps && strcmp(o.save_taps, "-") == 0);
    FILE *text = stdout_taken ? stderr : stdout;
    zc_cli_stream_host host;
    zc_cli_stream_host_pin(&o, devp, &host);
    zc_cli_stream_host_sample(&host);
    zc__stream_header(text, &o, devp, &host, warmup_note);

    static zc_cli_stream_result runs[ZC_CLI_STREAM_MAX_RUNS];
    int exit_code = ZC_EXIT_OK;
    int count = zc__stream_each_run(&o, src, sink, text, runs, &exit_code);
    zc_cli_stream_host_sample(&host);
    const int lanes = runs[0].stats.lanes > 1 || o.device_count > 0;
    if (lanes)
        zc__print_lanes(text, &runs[0]);
    else
        zc__print_table(text, &o, runs, count);
    for (int i = 0; !lanes && i < count; i++)
        if (runs[i].budget_asked)
            zc_cli_stream_budget_print(text, &runs[i]);
    fprintf(text, "host after: load %.2f, %d running, core %d at %.0f MHz\n", host.loadavg1,
            host.procs_running, host.cpu, host.cpu_mhz);

    /* The samples first: a full disk found at their last write fails the run, JSON included. */
    st = zc_cli_stream_sink_close(sink, exit_code == ZC_EXIT_OK);
    if (st != ZC_OK && exit_code == ZC_EXIT_OK)
        exit_code = zc_cli_exit_code(st);
    if (taps_out != NULL) {
        const int rc = zc_cli_output_finish(taps_out, exit_code == ZC_EXIT_OK);
        if (rc != ZC_EXIT_OK && exit_code == ZC_EXIT_OK)
            exit_code = rc;
    }
    exit_code =
        zc__stream_json_out(&o, argc, argv, devp, &host, runs, count, lanes, json_out, exit_code);
    zc_cli_stream_source_close(src);
    return exit_code;
}
