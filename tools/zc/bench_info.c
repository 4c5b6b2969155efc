/* The catalogue entry of a key, for the outputs that print a result beside its case. */
#include <string.h>

#include "bench_output.h"

const zc_bench_case_info *zc_cli_bench_info_for(const char *key)
{
    for (size_t i = 0; i < zc_bench_case_count(); i++) {
        const zc_bench_case_info *info = zc_bench_case_at(i);
        if (strcmp(info->key, key) == 0)
            return info;
    }
    return NULL;
}
