/* SPDX-License-Identifier: Apache-2.0 */
/* The advise tests' fixtures read from files through the library's readers (zerocopy/json.h),
 * as zc advise reads them, without the command-line tool. */
#ifndef ZC_TEST_ADVISE_FILES_H
#define ZC_TEST_ADVISE_FILES_H

#include <stddef.h>

#include "zerocopy/json.h"

/* The JSON document at path; NULL when it cannot be read or parsed. */
cJSON *zc_test_read_json(const char *path);

/* A profile or bench file as a complete profile (zc_profile_from_document); its status. */
zc_status zc_test_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                               char *notes, size_t notes_size);

/* Every good run of a zc stream --json file into the profile (zc_profile_add_stream_json). */
zc_status zc_test_add_stream_file(zc_profile *profile, const char *path);

#endif
