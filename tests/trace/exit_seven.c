/* SPDX-License-Identifier: Apache-2.0 */
/* A plain program for zc trace's tests: not CUDA; one line on stdout, then exit code 7. */
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argv;
    printf("hello from the traced program: %d arguments\n", argc - 1);
    return 7;
}
