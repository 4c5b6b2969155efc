/* Helpers of the report tests: scratch folders and running programs. */
#ifndef ZC_REPORT_TEST_H
#define ZC_REPORT_TEST_H

#include <stddef.h>

/* A new scratch folder under TMPDIR (or /tmp); its path into dir. */
void report_test_tempdir(char *dir, size_t size);

/* 1 when program is found on PATH. */
int report_test_have(const char *program);

/* Run argv (argv[0] searched on PATH) with stdout into out_path (may be NULL: discarded) and
 * stderr discarded; its exit code, or -1 when it could not run or was killed. */
int report_test_run(const char *const *argv, const char *out_path);

/* Remove the scratch folder and what is in it (one level). */
void report_test_cleanup(const char *dir);

#endif
