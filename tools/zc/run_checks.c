/* SPDX-License-Identifier: Apache-2.0 */
/* zc run's checks before the program runs (run_checks.h): the library's and the program's ELF
 * read from their files, where the loader finds an AddressSanitizer runtime. */
#include "run_checks.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The ELF machine and byte order of the programs the library can be loaded into: ours. */
#if defined(__x86_64__)
#define ZC__ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define ZC__ELF_MACHINE EM_AARCH64
#else
#define ZC__ELF_MACHINE EM_NONE /* not checked */
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ZC__ELF_DATA ELFDATA2LSB
#else
#define ZC__ELF_DATA ELFDATA2MSB
#endif

/* How long the program's loader may take to say where it finds a library. */
#define ZC__LOADER_TRACE_MS 10000

int zc_cli_run_preload_safe(const char *path)
{
    return strpbrk(path, " :$\t\n") == NULL;
}

/* An ELF file mapped for reading. The file is anybody's: every offset in it is checked against
 * its size, and structures are copied out (an offset need not be aligned). */
typedef struct zc__elf {
    const unsigned char *data;
    size_t size;
    Elf64_Ehdr header; /* valid when the kind is ZC__ELF_OURS */
} zc__elf;

typedef enum zc__elf_kind {
    ZC__ELF_OURS,  /* 64-bit, of this machine's byte order and architecture */
    ZC__ELF_OTHER, /* an ELF file of another class, byte order or architecture */
    ZC__ELF_NONE   /* not an ELF file (a script, text), or not readable */
} zc__elf_kind;

int zc_cli_sibling_path(const char *path, const char *name, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    int n = slash != NULL ? snprintf(out, size, "%.*s/%s", (int)(slash - path), path, name)
                          : snprintf(out, size, "%s", name);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int zc__elf_get(const zc__elf *elf, uint64_t offset, void *out, size_t size)
{
    if (offset > elf->size || size > elf->size - offset)
        return -1;
    memcpy(out, elf->data + offset, size);
    return 0;
}

static zc__elf_kind zc__elf_map(int fd, zc__elf *elf)
{
    memset(elf, 0, sizeof *elf);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < EI_NIDENT)
        return ZC__ELF_NONE;
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return ZC__ELF_NONE;
    elf->data = map;
    elf->size = (size_t)st.st_size;
    if (memcmp(elf->data, ELFMAG, SELFMAG) != 0)
        return ZC__ELF_NONE;
    if (elf->data[EI_CLASS] != ELFCLASS64 || elf->data[EI_DATA] != ZC__ELF_DATA ||
        zc__elf_get(elf, 0, &elf->header, sizeof elf->header) != 0)
        return ZC__ELF_OTHER;
    if (ZC__ELF_MACHINE != EM_NONE && elf->header.e_machine != ZC__ELF_MACHINE)
        return ZC__ELF_OTHER;
    return ZC__ELF_OURS;
}

static void zc__elf_unmap(zc__elf *elf)
{
    if (elf->data != NULL)
        munmap((void *)elf->data, elf->size);
    elf->data = NULL;
}

static int zc__elf_section(const zc__elf *elf, uint64_t index, Elf64_Shdr *out)
{
    const Elf64_Ehdr *h = &elf->header;
    if (h->e_shentsize != sizeof(Elf64_Shdr) || index >= h->e_shnum || h->e_shoff > elf->size)
        return -1;
    return zc__elf_get(elf, h->e_shoff + index * sizeof(Elf64_Shdr), out, sizeof *out);
}

/* The first section of type, and the string table it links to (its names). */
static int zc__elf_table(const zc__elf *elf, uint32_t type, Elf64_Shdr *table_p,
                         Elf64_Shdr *strings_p)
{
    for (uint64_t i = 0; i < elf->header.e_shnum; i++) {
        if (zc__elf_section(elf, i, table_p) != 0)
            return -1;
        if (table_p->sh_type == type)
            return zc__elf_section(elf, table_p->sh_link, strings_p) == 0 &&
                           strings_p->sh_type == SHT_STRTAB
                       ? 0
                       : -1;
    }
    return -1;
}

/* The string at offset in the string table strings, or NULL when it is not inside it. */
static const char *zc__elf_string(const zc__elf *elf, const Elf64_Shdr *strings, uint64_t offset)
{
    if (strings->sh_offset > elf->size || strings->sh_size > elf->size - strings->sh_offset ||
        offset >= strings->sh_size)
        return NULL;
    const char *s = (const char *)elf->data + strings->sh_offset + offset;
    return memchr(s, '\0', strings->sh_size - offset) != NULL ? s : NULL;
}

/* Whether the dynamic symbol table defines name for other objects to bind to (1), does not
 * (0), or there is no such table (-1). */
static int zc__elf_exports(const zc__elf *elf, const char *name)
{
    Elf64_Shdr symbols, strings;
    if (zc__elf_table(elf, SHT_DYNSYM, &symbols, &strings) != 0 ||
        symbols.sh_entsize != sizeof(Elf64_Sym))
        return -1;
    for (uint64_t i = 0; i < symbols.sh_size / sizeof(Elf64_Sym); i++) {
        Elf64_Sym sym;
        if (zc__elf_get(elf, symbols.sh_offset + i * sizeof sym, &sym, sizeof sym) != 0)
            return -1;
        unsigned bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
        unsigned visibility = ELF64_ST_VISIBILITY(sym.st_other);
        if (sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
            (type != STT_FUNC && type != STT_GNU_IFUNC) ||
            (visibility != STV_DEFAULT && visibility != STV_PROTECTED))
            continue;
        const char *text = zc__elf_string(elf, &strings, sym.st_name);
        if (text != NULL && strcmp(text, name) == 0)
            return 1;
    }
    return 0;
}

/* The first library the file needs (DT_NEEDED) whose name match accepts, or NULL. */
static const char *zc__elf_needed(const zc__elf *elf, int (*match)(const char *))
{
    Elf64_Shdr dynamic, strings;
    if (zc__elf_table(elf, SHT_DYNAMIC, &dynamic, &strings) != 0)
        return NULL;
    for (uint64_t i = 0; i < dynamic.sh_size / sizeof(Elf64_Dyn); i++) {
        Elf64_Dyn entry;
        if (zc__elf_get(elf, dynamic.sh_offset + i * sizeof entry, &entry, sizeof entry) != 0 ||
            entry.d_tag == DT_NULL)
            return NULL;
        const char *name =
            entry.d_tag == DT_NEEDED ? zc__elf_string(elf, &strings, entry.d_un.d_val) : NULL;
        if (name != NULL && match(name))
            return name;
    }
    return NULL;
}

/* The program interpreter (PT_INTERP: the dynamic loader) into out; -1 when there is none, as
 * in a statically linked program. */
static int zc__elf_interpreter(const zc__elf *elf, char *out, size_t size)
{
    const Elf64_Ehdr *h = &elf->header;
    if (h->e_phentsize != sizeof(Elf64_Phdr) || h->e_phoff > elf->size)
        return -1;
    for (uint64_t i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        if (zc__elf_get(elf, h->e_phoff + i * sizeof ph, &ph, sizeof ph) != 0)
            return -1;
        if (ph.p_type != PT_INTERP)
            continue;
        if (ph.p_filesz == 0 || ph.p_filesz > size || ph.p_offset > elf->size ||
            ph.p_filesz > elf->size - ph.p_offset)
            return -1;
        memcpy(out, elf->data + ph.p_offset, ph.p_filesz);
        out[ph.p_filesz - 1] = '\0';
        return 0;
    }
    return -1;
}

/* What the library must define: an entry point it replaces, and the dlsym it answers with. */
static const char *const zc__library_exports[] = {"cuMemcpyHtoD_v2", "dlsym"};

static int zc__judge_library(const zc__elf *elf, zc__elf_kind kind, char *why, size_t why_size)
{
    if (kind == ZC__ELF_NONE) {
        snprintf(why, why_size, "it is not an ELF file");
        return -1;
    }
    if (kind == ZC__ELF_OTHER) {
        snprintf(why, why_size, "it is not a 64-bit ELF file for this machine");
        return -1;
    }
    if (elf->header.e_type != ET_DYN) {
        snprintf(why, why_size, "it is not a shared object");
        return -1;
    }
    for (size_t i = 0; i < sizeof zc__library_exports / sizeof zc__library_exports[0]; i++) {
        int exported = zc__elf_exports(elf, zc__library_exports[i]);
        if (exported < 0) {
            snprintf(why, why_size, "it has no dynamic symbol table");
            return -1;
        }
        if (exported == 0) {
            snprintf(why, why_size, "it does not export %s", zc__library_exports[i]);
            return -1;
        }
    }
    return 0;
}

int zc_cli_run_check_library(const char *path, char *why, size_t why_size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, why_size, "it cannot be opened: %s", strerror(errno));
        return -1;
    }
    zc__elf elf;
    zc__elf_kind kind = zc__elf_map(fd, &elf);
    close(fd);
    int result = zc__judge_library(&elf, kind, why, why_size);
    zc__elf_unmap(&elf);
    return result;
}

/* argv[0] as execvp finds it: a name with a slash as it is, else the first regular executable
 * file of that name in $PATH's folders (an empty one is the current folder). */
static int zc__find_program(const char *name, char *path_p, size_t size)
{
    if (strchr(name, '/') != NULL)
        return snprintf(path_p, size, "%s", name) < (int)size ? 0 : -1;
    const char *folders = getenv("PATH");
    if (folders == NULL)
        folders = "/bin:/usr/bin"; /* glibc's execvp without PATH (confstr _CS_PATH) */
    for (const char *p = folders;;) {
        size_t n = strcspn(p, ":");
        int written = n == 0 ? snprintf(path_p, size, "./%s", name)
                             : snprintf(path_p, size, "%.*s/%s", (int)n, p, name);
        struct stat st;
        if (written > 0 && (size_t)written < size && stat(path_p, &st) == 0 &&
            S_ISREG(st.st_mode) && access(path_p, X_OK) == 0)
            return 0;
        if (p[n] == '\0')
            return -1;
        p += n + 1;
    }
}

/* Whether exec changes the process's ids from the caller's (a set-user-ID file owned by
 * someone else, a set-group-ID one of another group, on a file system that honours the bits):
 * the kernel then marks it secure and the loader ignores LD_PRELOAD's paths. Capabilities given
 * to the file do the same and are not looked at. */
static int zc__ids_change(const char *path, const struct stat *st)
{
    int user = (st->st_mode & S_ISUID) && st->st_uid != getuid();
    int group = (st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid();
    struct statvfs fs;
    if (!user && !group)
        return 0;
    return !(statvfs(path, &fs) == 0 && (fs.f_flag & ST_NOSUID));
}

/* The AddressSanitizer runtime as a shared library (gcc's default, clang's -shared-libasan). */
static int zc__is_asan_runtime(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base != NULL ? base + 1 : name;
    return strncmp(base, "libasan.so", 10) == 0 || strncmp(base, "libclang_rt.asan", 16) == 0;
}

/* The first AddressSanitizer runtime the user's own LD_PRELOAD names. */
static int zc__asan_from_preload(char *out, size_t size)
{
    const char *list = getenv("LD_PRELOAD");
    for (const char *p = list != NULL ? list : ""; *p != '\0';) {
        size_t n = strcspn(p, " :");
        if (n > 0 && n < size) {
            memcpy(out, p, n);
            out[n] = '\0';
            if (zc__is_asan_runtime(out))
                return 0;
        }
        p += n;
        p += strspn(p, " :");
    }
    out[0] = '\0';
    return -1;
}

/* Up to size bytes from fd, for at most timeout_ms. */
static size_t zc__read_bounded(int fd, char *buf, size_t size, int timeout_ms)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t got = 0;
    while (got < size) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long spent = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = spent < timeout_ms ? poll(&p, 1, (int)(timeout_ms - spent)) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            break;
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* In the loader's list ("\tNAME => PATH (0xADDRESS)" a line), the path it found needed at. */
static int zc__trace_lookup(const char *text, const char *needed, char *out, size_t size)
{
    size_t n = strlen(needed);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        const char *p = line + strspn(line, " \t");
        if ((size_t)(p - line) + n + 4 < length && strncmp(p, needed, n) == 0 &&
            strncmp(p + n, " => ", 4) == 0 && p[n + 4] == '/') {
            const char *path = p + n + 4, *stop = line + length;
            for (const char *q = path; q + 4 <= stop; q++)
                if (strncmp(q, " (0x", 4) == 0)
                    stop = q;
            if ((size_t)(stop - path) < size) {
                memcpy(out, path, (size_t)(stop - path));
                out[stop - path] = '\0';
                return access(out, R_OK) == 0 ? 0 : -1;
            }
        }
        line += length + (end != NULL);
    }
    return -1;
}

/*
 * Where the program's own loader (interpreter) finds needed, as it would for the program: the
 * loader in trace mode (LD_TRACE_LOADED_OBJECTS, as ldd runs it) maps the program's libraries,
 * prints "NAME => PATH" for each and exits without running any of their code. The search path
 * (the program's run path, LD_LIBRARY_PATH, the cache) is the loader's own, so nothing of it
 * is guessed here.
 */
static int zc__asan_from_loader(const char *interpreter, const char *program, const char *needed,
                                char *out, size_t size)
{
    int out_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(null, STDIN_FILENO);
        dup2(null, STDERR_FILENO);
        unsetenv("LD_PRELOAD");
        setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
        execl(interpreter, interpreter, program, (char *)NULL);
        _exit(127);
    }
    close(out_pipe[1]);
    char text[16384];
    size_t got =
        pid > 0 ? zc__read_bounded(out_pipe[0], text, sizeof text - 1, ZC__LOADER_TRACE_MS) : 0;
    close(out_pipe[0]);
    text[got] = '\0';
    if (pid > 0) {
        kill(pid, SIGKILL); /* ended already, or past its time */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    return pid > 0 ? zc__trace_lookup(text, needed, out, size) : -1;
}

/* The verdict on an ELF program found at path (argv[0] is name). */
static int zc__judge_program(const zc__elf *elf, const char *name, const char *path, char *asan_p,
                             size_t asan_size, char *why, size_t why_size)
{
    char interpreter[PATH_MAX];
    if (zc__elf_interpreter(elf, interpreter, sizeof interpreter) != 0) {
        snprintf(why, why_size,
                 "'%s' is statically linked: the dynamic loader cannot preload a library into a "
                 "static program",
                 name);
        return -1;
    }
    const char *needed = zc__elf_needed(elf, zc__is_asan_runtime);
    if (needed == NULL || zc__asan_from_preload(asan_p, asan_size) == 0 ||
        zc__asan_from_loader(interpreter, path, needed, asan_p, asan_size) == 0)
        return 0;
    asan_p[0] = '\0';
    snprintf(why, why_size,
             "'%s' is built with AddressSanitizer, whose runtime (%s) must come first in "
             "LD_PRELOAD, and zc run could not find it: set LD_PRELOAD to the runtime's path "
             "and zc run will put it first",
             name, needed);
    return -1;
}

/* The verdict on the file at path, found for the name program, whose ids change at exec or not. */
static int zc__judge_file(int fd, const char *program, const char *path, int ids_change,
                          char *asan_p, size_t asan_size, char *why, size_t why_size)
{
    /* The kernel ignores the set-ID bits of a script (it runs its interpreter as the caller). */
    char head[2];
    int script = fd >= 0 && pread(fd, head, sizeof head, 0) == 2 && memcmp(head, "#!", 2) == 0;
    if (ids_change && !script) {
        snprintf(why, why_size,
                 "'%s' is set-user-ID or set-group-ID: the loader ignores LD_PRELOAD for a "
                 "program whose ids change when it starts",
                 program);
        return -1;
    }
    if (fd < 0 || script)
        return 0;
    zc__elf elf;
    zc__elf_kind kind = zc__elf_map(fd, &elf);
    int result = 0;
    if (kind == ZC__ELF_OTHER) {
        snprintf(why, why_size,
                 "'%s' is not a 64-bit program for this machine: the library cannot be loaded "
                 "into it",
                 program);
        result = -1;
    } else if (kind == ZC__ELF_OURS) {
        result = zc__judge_program(&elf, program, path, asan_p, asan_size, why, why_size);
    }
    zc__elf_unmap(&elf);
    return result;
}

int zc_cli_run_check_program(const char *program, char *asan_runtime_p, size_t asan_size, char *why,
                             size_t why_size)
{
    asan_runtime_p[0] = '\0';
    char path[PATH_MAX];
    struct stat st;
    if (zc__find_program(program, path, sizeof path) != 0 || stat(path, &st) != 0)
        return 0; /* starting it says why */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    int result = zc__judge_file(fd, program, path, zc__ids_change(path, &st), asan_runtime_p,
                                asan_size, why, why_size);
    if (fd >= 0)
        close(fd);
    return result;
}
