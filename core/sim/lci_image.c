/*
 * lci_image.c - private copies of a node program's image (see
 * lci_image.h).  The ELF file is read with the system's <elf.h> layouts;
 * only 64-bit images of this machine's architecture are taken.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lci_image.h"

#if defined(__x86_64__)
#define LCI_IMAGE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define LCI_IMAGE_MACHINE EM_AARCH64
#else
#define LCI_IMAGE_MACHINE EM_NONE /* no fiber engine: every check fails */
#endif

/* Symbols a program imports that mean it makes threads of its own, outside
 * LCI's (lci_thread_create, which Panda-MT uses, makes fibers of the
 * node): such a program runs on the processes engine. */
static const char *const thread_makers[] = {"pthread_create",
                                            "thrd_create"};

typedef struct {
    unsigned char *bytes;
    size_t size;
    const Elf64_Ehdr *eh;
} image_t;

static int image_open(const char *path, image_t *im, char *why, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    im->size = (size_t)sb.st_size;
    im->bytes = im->size >= sizeof(Elf64_Ehdr)
                    ? mmap(NULL, im->size, PROT_READ, MAP_PRIVATE, fd, 0)
                    : MAP_FAILED;
    close(fd);
    if (im->bytes == MAP_FAILED) {
        snprintf(why, len, "%s is not an ELF executable", path);
        return -1;
    }
    im->eh = (const Elf64_Ehdr *)im->bytes;
    return 0;
}

static void image_close(image_t *im)
{
    munmap(im->bytes, im->size);
}

/* A table of count entries of size each at off lies inside the file. */
static int in_file(const image_t *im, uint64_t off, uint64_t count,
                   uint64_t size)
{
    return off <= im->size && count <= (im->size - off) / (size ? size : 1);
}

static const Elf64_Phdr *phdrs(const image_t *im)
{
    const Elf64_Ehdr *eh = im->eh;
    if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
        !in_file(im, eh->e_phoff, eh->e_phnum, sizeof(Elf64_Phdr))) {
        return NULL;
    }
    return (const Elf64_Phdr *)(im->bytes + eh->e_phoff);
}

static const Elf64_Shdr *shdrs(const image_t *im)
{
    const Elf64_Ehdr *eh = im->eh;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(im, eh->e_shoff, eh->e_shnum, sizeof(Elf64_Shdr))) {
        return NULL;
    }
    return (const Elf64_Shdr *)(im->bytes + eh->e_shoff);
}

/* Calls visit for every symbol of the table of type type (SHT_SYMTAB or
 * SHT_DYNSYM); stops when it returns nonzero and returns that. */
static int each_symbol(const image_t *im, uint32_t type,
                       int (*visit)(const Elf64_Sym *sym, const char *name,
                                    void *arg),
                       void *arg)
{
    const Elf64_Shdr *sh = shdrs(im);
    if (sh == NULL) {
        return 0;
    }
    for (unsigned i = 0; i < im->eh->e_shnum; i++) {
        if (sh[i].sh_type != type || sh[i].sh_link >= im->eh->e_shnum ||
            sh[i].sh_entsize != sizeof(Elf64_Sym) ||
            !in_file(im, sh[i].sh_offset, sh[i].sh_size, 1)) {
            continue;
        }
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (!in_file(im, str->sh_offset, str->sh_size, 1)) {
            continue;
        }
        const char *names = (const char *)im->bytes + str->sh_offset;
        const Elf64_Sym *syms =
            (const Elf64_Sym *)(im->bytes + sh[i].sh_offset);
        uint64_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (uint64_t k = 0; k < n; k++) {
            if (syms[k].st_name >= str->sh_size ||
                memchr(names + syms[k].st_name, '\0',
                       str->sh_size - syms[k].st_name) == NULL) {
                continue;
            }
            int r = visit(&syms[k], names + syms[k].st_name, arg);
            if (r != 0) {
                return r;
            }
        }
    }
    return 0;
}

static int find_main(const Elf64_Sym *sym, const char *name, void *arg)
{
    if (strcmp(name, "main") == 0 && sym->st_shndx != SHN_UNDEF &&
        ELF64_ST_TYPE(sym->st_info) == STT_FUNC) {
        *(uint64_t *)arg = sym->st_value;
        return 1;
    }
    return 0;
}

static int find_thread_maker(const Elf64_Sym *sym, const char *name,
                             void *arg)
{
    if (sym->st_shndx != SHN_UNDEF) {
        return 0;
    }
    for (size_t i = 0; i < sizeof thread_makers / sizeof *thread_makers;
         i++) {
        if (strcmp(name, thread_makers[i]) == 0) {
            *(const char **)arg = thread_makers[i];
            return 1;
        }
    }
    return 0;
}

/* The checks of lci_image_check on an open image; *main_p gets main's
 * address relative to the load base. */
static int image_check(const image_t *im, const char *path,
                       uint64_t *main_p, char *why, size_t len)
{
    const Elf64_Ehdr *eh = im->eh;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64) {
        snprintf(why, len, "%s is not a 64-bit ELF executable", path);
        return -1;
    }
    if (eh->e_machine != LCI_IMAGE_MACHINE) {
        snprintf(why, len, "%s is not built for this machine", path);
        return -1;
    }
    if (eh->e_type != ET_DYN) {
        snprintf(why, len,
                 "%s is not a position-independent executable (built with "
                 "-no-pie?)",
                 path);
        return -1;
    }
    const Elf64_Phdr *ph = phdrs(im);
    int interp = 0;
    for (unsigned i = 0; ph != NULL && i < eh->e_phnum; i++) {
        interp |= ph[i].p_type == PT_INTERP;
        if (ph[i].p_type == PT_TLS) {
            snprintf(why, len, "%s has thread-local variables", path);
            return -1;
        }
    }
    if (ph == NULL || !interp) {
        snprintf(why, len, "%s is a shared library, not a program", path);
        return -1;
    }
    const char *maker = NULL;
    if (each_symbol(im, SHT_DYNSYM, find_thread_maker, &maker)) {
        snprintf(why, len, "%s creates threads (%s)", path, maker);
        return -1;
    }
    if (!each_symbol(im, SHT_SYMTAB, find_main, main_p)) {
        snprintf(why, len,
                 "%s has no symbol table (stripped?): its main cannot be "
                 "found",
                 path);
        return -1;
    }
    return 0;
}

int lci_image_find(const char *name, char *path, size_t cap)
{
    if (strchr(name, '/') != NULL) {
        return snprintf(path, cap, "%s", name) < (int)cap &&
                       access(path, X_OK) == 0
                   ? 0
                   : -1;
    }
    const char *dirs = getenv("PATH");
    if (dirs == NULL) {
        dirs = "/usr/local/bin:/usr/bin:/bin";
    }
    while (*dirs != '\0') {
        size_t n = strcspn(dirs, ":");
        int w = snprintf(path, cap, "%.*s%s%s", (int)n, dirs, n ? "/" : "",
                         name);
        if (w > 0 && (size_t)w < cap && access(path, X_OK) == 0) {
            return 0;
        }
        dirs += n + (dirs[n] == ':');
    }
    return -1;
}

int lci_image_check(const char *path, char *why, size_t whylen)
{
    image_t im;
    if (image_open(path, &im, why, whylen) != 0) {
        return -1;
    }
    uint64_t main_off = 0;
    int r = image_check(&im, path, &main_off, why, whylen);
    image_close(&im);
    return r;
}

/* Clears DF_1_PIE in the copy's dynamic section: glibc will not dlopen an
 * object that calls itself an executable. */
static void clear_pie_flag(unsigned char *copy, const image_t *im)
{
    const Elf64_Phdr *ph = phdrs(im);
    for (unsigned i = 0; i < im->eh->e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC ||
            !in_file(im, ph[i].p_offset, ph[i].p_filesz / sizeof(Elf64_Dyn),
                     sizeof(Elf64_Dyn))) {
            continue;
        }
        Elf64_Dyn *dyn = (Elf64_Dyn *)(copy + ph[i].p_offset);
        uint64_t n = ph[i].p_filesz / sizeof(Elf64_Dyn);
        for (uint64_t k = 0; k < n && dyn[k].d_tag != DT_NULL; k++) {
            if (dyn[k].d_tag == DT_FLAGS_1) {
                dyn[k].d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
            }
        }
    }
}

/* Load bases of the copies, for lci_image_owns. */
static uintptr_t *copy_bases;
static size_t ncopies, copies_cap;

int lci_image_load(const char *path, const char *dir,
                   lci_image_main_func_t *main_p, char *err, size_t errlen)
{
    image_t im;
    uint64_t main_off = 0;
    if (image_open(path, &im, err, errlen) != 0) {
        return -1;
    }
    if (image_check(&im, path, &main_off, err, errlen) != 0) {
        image_close(&im);
        return -1;
    }
    if (ncopies == copies_cap) {
        size_t cap = copies_cap ? 2 * copies_cap : 64;
        uintptr_t *b = realloc(copy_bases, cap * sizeof *b);
        if (b == NULL) {
            image_close(&im);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        copy_bases = b, copies_cap = cap;
    }
    /* A file of its own per copy: the loader shares objects by file
     * identity, so every node needs a distinct one. */
    char copy_path[4096];
    snprintf(copy_path, sizeof copy_path, "%s/image-%zu", dir, ncopies);
    int fd = open(copy_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    unsigned char *copy = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)im.size) == 0) {
        copy = mmap(NULL, im.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (copy == MAP_FAILED) {
        snprintf(err, errlen, "cannot make a copy of %s in %s: %s", path, dir,
                 strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(copy_path);
        }
        image_close(&im);
        return -1;
    }
    memcpy(copy, im.bytes, im.size);
    clear_pie_flag(copy, &im);
    munmap(copy, im.size);
    close(fd);
    image_close(&im);
    /* RTLD_LOCAL: the copies do not see one another's symbols. */
    void *handle = dlopen(copy_path, RTLD_NOW | RTLD_LOCAL);
    unlink(copy_path); /* mapped now; nothing to clean up later */
    if (handle == NULL) {
        snprintf(err, errlen, "cannot load a copy of %s: %s", path,
                 dlerror());
        return -1;
    }
    struct link_map *lm = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
        snprintf(err, errlen, "cannot locate the copy of %s: %s", path,
                 dlerror());
        return -1;
    }
    *main_p = (lci_image_main_func_t)(lm->l_addr + main_off);
    copy_bases[ncopies++] = (uintptr_t)lm->l_addr;
    return 0;
}

int lci_image_owns(const void *addr)
{
    Dl_info info;
    if (addr == NULL || dladdr(addr, &info) == 0) {
        return 0;
    }
    for (size_t i = 0; i < ncopies; i++) {
        if ((uintptr_t)info.dli_fbase == copy_bases[i]) {
            return 1;
        }
    }
    return 0;
}
