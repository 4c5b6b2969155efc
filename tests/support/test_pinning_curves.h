/* SPDX-License-Identifier: Apache-2.0 */
/* Tests that price pinning: the pinning ways' curves of a committed bench document. */
#ifndef ZC_TEST_PINNING_CURVES_H
#define ZC_TEST_PINNING_CURVES_H

#include "test_json_file.h"
#include "zerocopy/advise.h"
#include "zerocopy/json.h"

/* The curves of the bench document at path; a document the library refuses fails the test. */
static inline zc_pinning_curves zc_test_pinning_curves(const char *path)
{
    cJSON *doc = zc_test_json_file(path);
    zc_pinning_curves c;
    if (zc_pinning_bench_from_json(doc, &c) != ZC_OK)
        fail_msg("curves refused: %s", zc_last_error());
    cJSON_Delete(doc);
    return c;
}

#endif
