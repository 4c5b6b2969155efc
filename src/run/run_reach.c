/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whose definition of a function the program's calls reach (run_reach.h). Usually the answer is
 * dlsym(RTLD_DEFAULT)'s: the first object in load order that defines the name. Not when the
 * program is built without PIE and takes the function's address (Debian's /usr/bin/python3 does,
 * for malloc and free): its symbol table then holds the name undefined, with the address of its
 * own PLT stub, so that every pointer to the function compares equal, and dlsym(RTLD_DEFAULT)
 * answers that stub, inside the program. Its calls, like everyone's, go on to the first object
 * after it that defines the name. Taking the stub for a definition of the program's own turned
 * the allocation hooks off in every such program.
 */
#include "run_reach.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "run_driver.h"

/* The object holding fn when a symbol defined there starts at fn; NULL when none does (an
 * undefined symbol's stub, or no symbol at all). The symbol's name may be an alias of the one
 * asked for (glibc's free is __libc_free). */
static const void *zc__defined_in(void *fn)
{
    Dl_info found;
    const ElfW(Sym) *symbol = NULL;
    if (fn == NULL || dladdr1(fn, &found, (void **)&symbol, RTLD_DL_SYMENT) == 0 ||
        symbol == NULL || symbol->st_shndx == SHN_UNDEF || found.dli_saddr != fn)
        return NULL;
    return found.dli_fbase;
}

/* The first object after the program, in load order (the order its calls are bound in), that
 * defines name itself; NULL when none does or the order cannot be read. */
static const void *zc__first_definer_after_program(const char *name)
{
    void *program = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
    struct link_map *map = NULL;
    if (program == NULL)
        return NULL;
    if (dlinfo(program, RTLD_DI_LINKMAP, &map) != 0)
        map = NULL;
    const void *definer = NULL;
    for (map = map != NULL ? map->l_next : NULL; map != NULL && definer == NULL;
         map = map->l_next) {
        void *object = map->l_name[0] != '\0' ? dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (object == NULL)
            continue;
        /* The object's scope answers from its dependencies too: a definition counts only when
         * it is the object's own. */
        Dl_info where;
        void *fn = zc__run_real_dlsym(object, name);
        const void *in = zc__defined_in(fn);
        if (in != NULL && dladdr(fn, &where) != 0 && strcmp(where.dli_fname, map->l_name) == 0)
            definer = in;
        dlclose(object);
    }
    dlclose(program);
    return definer;
}

int zc__run_reaches(const char *name, const void *inside)
{
    Dl_info mine;
    void *fn = name != NULL ? zc__run_real_dlsym(RTLD_DEFAULT, name) : NULL;
    if (fn == NULL || dladdr(inside, &mine) == 0)
        return 0;
    const void *definer = zc__defined_in(fn);
    if (definer == NULL)
        definer = zc__first_definer_after_program(name);
    return definer != NULL && definer == mine.dli_fbase;
}
