/* SPDX-License-Identifier: Apache-2.0 */
// Children: the program starts two copies of itself with fork and exec before it touches CUDA;
// each child makes pageable copies (the pitfall), the parent a clean pinned one. zc trace must
// trace all three processes and report them one by one.
#include "planted.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_BYTES  (8u << 20)
#define CHILD_COPIES 8

static int child(void)
{
    unsigned char *host = (unsigned char *)malloc(CHILD_BYTES), *dev = NULL;
    if (host == NULL)
        return 1;
    memset(host, 5, CHILD_BYTES);
    PLANTED_CHECK(cudaMalloc((void **)&dev, CHILD_BYTES));
    for (int i = 0; i < CHILD_COPIES; i++)
        PLANTED_CHECK(cudaMemcpy(dev, host, CHILD_BYTES, cudaMemcpyHostToDevice));
    unsigned char back = 0;
    PLANTED_CHECK(cudaMemcpy(&back, dev + 100, 1, cudaMemcpyDeviceToHost));
    PLANTED_VERIFY(back == 5, "child read %u, expected 5", back);
    PLANTED_CHECK(cudaFree(dev));
    free(host);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "child") == 0)
        return child();
    /* Fork before CUDA is initialised (a forked child cannot use the parent's CUDA), and exec
     * so the child starts clean, as multiprocessing's spawn does. */
    pid_t pids[2];
    for (int c = 0; c < 2; c++) {
        fflush(NULL);
        pids[c] = fork();
        if (pids[c] < 0) {
            perror("fork");
            return 1;
        }
        if (pids[c] == 0) {
            execl("/proc/self/exe", argv[0], "child", (char *)NULL);
            perror("exec");
            _exit(127);
        }
    }
    for (int c = 0; c < 2; c++) {
        int status = 0;
        if (waitpid(pids[c], &status, 0) != pids[c] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child %d failed\n", c);
            return 1;
        }
    }
    float *host = NULL, *dev = NULL;
    PLANTED_CHECK(cudaHostAlloc((void **)&host, 1u << 20, cudaHostAllocDefault));
    PLANTED_CHECK(cudaMalloc((void **)&dev, 1u << 20));
    PLANTED_CHECK(cudaMemcpy(dev, host, 1u << 20, cudaMemcpyHostToDevice));
    PLANTED_CHECK(cudaFree(dev));
    PLANTED_CHECK(cudaFreeHost(host));
    printf("planted children: 2 children by fork and exec, each %d pageable copies of %u MiB, "
           "verified\n",
           CHILD_COPIES, CHILD_BYTES >> 20);
    return 0;
}
