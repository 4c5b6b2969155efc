/* SPDX-License-Identifier: Apache-2.0 */
/* For zc trace's tests: load the injection library named in argv[1] and call its entry point,
 * as the CUDA driver would, then exit normally so that its exit handler writes the log's end. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: inject_host LIBRARY\n");
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW);
    if (library == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    int (*initialize)(void) = (int (*)(void))dlsym(library, "InitializeInjection");
    if (initialize == NULL) {
        fprintf(stderr, "dlsym(InitializeInjection): %s\n", dlerror());
        return 1;
    }
    int result = initialize();
    printf("InitializeInjection returned %d\n", result);
    return result == 1 ? 0 : 1;
}
