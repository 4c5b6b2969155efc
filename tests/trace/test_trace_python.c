/* SPDX-License-Identifier: Apache-2.0 */
/* zc trace -- python3 train.py: a small PyTorch training loop and the child it starts with
 * multiprocessing's spawn are both traced, reported process by process, and the clean pipeline
 * gets no finding. Skipped (77) without a GPU or without a python3 that imports torch with CUDA
 * (ZC_TORCH_PYTHON or ZC_PYTHON names one; else python3 from PATH). */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* 1 when python imports torch and sees a CUDA device. */
static int torch_works(const char *python)
{
    if (python == NULL || python[0] == '\0' || strchr(python, '\'') != NULL)
        return 0;
    if (strchr(python, '/') != NULL && access(python, X_OK) != 0)
        return 0;
    char command[1200];
    snprintf(command, sizeof command,
             "'%s' -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 3)' "
             ">/dev/null 2>&1",
             python);
    return system(command) == 0;
}

/* The interpreter the caller names (ZC_TORCH_PYTHON, then ZC_PYTHON), else python3 from PATH,
 * when it can run the script, in python_p; 0 when none can. */
static int find_python(char *python_p, size_t size)
{
    const char *named[] = {getenv("ZC_TORCH_PYTHON"), getenv("ZC_PYTHON"), "python3"};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (torch_works(named[i])) {
            snprintf(python_p, size, "%s", named[i]);
            return 1;
        }
    }
    return 0;
}

static char python[512];

static void test_torch_training_and_its_child(void **state)
{
    (void)state;
    char json_path[] = "/tmp/zc-trace-torch-XXXXXX";
    int fd = mkstemp(json_path);
    assert_true(fd >= 0);
    close(fd);
    zc_test_output r;
    zc_test_run_zc((const char *[]){"trace", "--force", "--json", json_path, "--", python,
                                    ZC_TEST_TORCH_SCRIPT, NULL},
                   NULL, &r);
    fprintf(stderr, "==== zc trace -- %s %s\n-- stdout:\n%s-- summary:\n%s", python,
            ZC_TEST_TORCH_SCRIPT, r.out, r.err);
    if (r.exit_code != 0)
        fail_msg("zc trace exited %d, expected the script's 0", r.exit_code);
    assert_non_null(strstr(r.out, "trace torch train:"));
    zc_test_output_free(&r);
    char *text = zc_test_read_file(json_path, NULL);
    unlink(json_path);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    if (!cJSON_IsTrue(cJSON_GetObjectItem(doc, "traced")))
        fail_msg("not traced: %s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(doc, "why_not_traced")));
    /* The script and its spawned child, each with kernels of its own. */
    const cJSON *list = cJSON_GetObjectItem(doc, "process_list"), *p;
    int with_kernels = 0;
    cJSON_ArrayForEach(p, list)
    {
        with_kernels += cJSON_GetObjectItem(p, "kernels")->valueint > 0;
    }
    if (with_kernels < 2)
        fail_msg("%d processes with kernels, expected the script and its child", with_kernels);
    /* Pinned batches copied asynchronously: the H2D pinned path is there. */
    int pinned_h2d = 0;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "paths"))
    {
        pinned_h2d |=
            strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "direction")), "h2d") == 0 &&
            strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "src_kind")), "pinned") == 0;
    }
    assert_true(pinned_h2d);
    int findings = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "findings"));
    if (findings != 0)
        fail_msg("%d findings on the clean PyTorch loop (see the summary above)", findings);
    cJSON_Delete(doc);
}

int main(void)
{
    zc_test_require_gpu("gpu_trace_python");
    if (zc_test_under_sanitizer()) {
        fprintf(stderr, "SKIP gpu_trace_python: under compute-sanitizer, which holds CUPTI\n");
        return ZC_TEST_SKIP;
    }
    if (!find_python(python, sizeof python)) {
        fprintf(stderr, "SKIP gpu_trace_python: no python3 here imports torch with CUDA (set "
                        "ZC_TORCH_PYTHON to one that does)\n");
        return ZC_TEST_SKIP;
    }
    fprintf(stderr, "gpu_trace_python: using %s\n", python);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torch_training_and_its_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
