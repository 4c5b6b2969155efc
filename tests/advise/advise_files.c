/* SPDX-License-Identifier: Apache-2.0 */
/* The advise tests' fixtures, read whole and handed to the library. */
#include "advise_files.h"

#include <stdlib.h>

#include "test_support.h"

cJSON *zc_test_read_json(const char *path)
{
    size_t len = 0;
    char *text = zc_test_read_file(path, &len);
    if (text == NULL)
        return NULL;
    cJSON *doc = cJSON_ParseWithLength(text, len);
    free(text);
    return doc;
}

zc_status zc_test_profile_load(const char *path, zc_profile *profile_p, zc_profile *measured_p,
                               char *notes, size_t notes_size)
{
    cJSON *doc = zc_test_read_json(path);
    if (doc == NULL)
        return ZC_ERR_IO;
    zc_status status =
        zc_profile_from_document(doc, path, profile_p, measured_p, notes, notes_size);
    cJSON_Delete(doc);
    return status;
}

zc_status zc_test_add_stream_file(zc_profile *profile, const char *path)
{
    cJSON *doc = zc_test_read_json(path);
    if (doc == NULL)
        return ZC_ERR_IO;
    zc_status status = zc_profile_add_stream_json(profile, doc, path, NULL);
    cJSON_Delete(doc);
    return status;
}
