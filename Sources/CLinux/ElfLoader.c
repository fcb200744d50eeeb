#include <elf.h>
#include <string.h>
#include <unistd.h>
#include "clinux_elf.h"

// Program headers and dynamic entries read at most: the loader has about ten of the first
// and thirty of the second; a file with more is not a loader anyone ships.
#define MAX_HEADERS 64
#define MAX_DYNAMIC 256

static int read_exactly(int fd, void *buffer, size_t length, off_t offset) {
    ssize_t got = pread(fd, buffer, length, offset);
    if (got < 0) return -1;
    return (size_t)got == length ? 1 : 0;
}

static int soname_says_loader(const char *name) {
    if (strncmp(name, "ld-", 3) == 0 && strstr(name, ".so") != NULL) return 1;
    if (strncmp(name, "ld.so", 5) == 0) return 1;
    return strcmp(name, "libc.so") == 0;
}

// The same walk for both ELF classes; the types differ only in width.
#define LOADER_CHECK(EHDR, PHDR, DYN)                                                              \
    do {                                                                                           \
        EHDR header;                                                                               \
        int ok = read_exactly(fd, &header, sizeof(header), 0);                                     \
        if (ok <= 0) return ok;                                                                    \
        if (header.e_type != ET_DYN || header.e_phentsize != sizeof(PHDR)) return 0;               \
        unsigned count = header.e_phnum;                                                           \
        if (count == 0 || count > MAX_HEADERS) return 0;                                           \
        PHDR headers[MAX_HEADERS];                                                                 \
        ok = read_exactly(fd, headers, count * sizeof(PHDR), (off_t)header.e_phoff);               \
        if (ok <= 0) return ok;                                                                    \
        const PHDR *dynamic = NULL;                                                                \
        for (unsigned i = 0; i < count; i++) {                                                     \
            if (headers[i].p_type == PT_INTERP) return 0;                                          \
            if (headers[i].p_type == PT_DYNAMIC) dynamic = &headers[i];                            \
        }                                                                                          \
        if (dynamic == NULL) return 0;                                                             \
        DYN entries[MAX_DYNAMIC];                                                                  \
        size_t entry_count = dynamic->p_filesz / sizeof(DYN);                                      \
        if (entry_count > MAX_DYNAMIC) entry_count = MAX_DYNAMIC;                                  \
        ssize_t got = pread(fd, entries, entry_count * sizeof(DYN), (off_t)dynamic->p_offset);     \
        if (got < 0) return -1;                                                                    \
        entry_count = (size_t)got / sizeof(DYN);                                                   \
        uint64_t soname = 0, strtab = 0;                                                           \
        int has_soname = 0, has_strtab = 0;                                                        \
        for (size_t i = 0; i < entry_count && entries[i].d_tag != DT_NULL; i++) {                  \
            if (entries[i].d_tag == DT_SONAME) { soname = entries[i].d_un.d_val; has_soname = 1; } \
            if (entries[i].d_tag == DT_STRTAB) { strtab = entries[i].d_un.d_ptr; has_strtab = 1; } \
        }                                                                                          \
        if (!has_soname || !has_strtab) return 0;                                                  \
        /* DT_STRTAB is an address: find the loaded segment that holds it. */                     \
        for (unsigned i = 0; i < count; i++) {                                                     \
            const PHDR *segment = &headers[i];                                                     \
            if (segment->p_type != PT_LOAD || strtab < segment->p_vaddr                           \
                || strtab >= segment->p_vaddr + segment->p_filesz)                                 \
                continue;                                                                          \
            char name[64];                                                                         \
            off_t at = (off_t)(strtab - segment->p_vaddr + segment->p_offset + soname);            \
            got = pread(fd, name, sizeof(name) - 1, at);                                           \
            if (got <= 0) return got < 0 ? -1 : 0;                                                 \
            name[got] = 0;                                                                         \
            return soname_says_loader(name);                                                       \
        }                                                                                          \
        return 0;                                                                                  \
    } while (0)

static int is_loader64(int fd) { LOADER_CHECK(Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn); }
static int is_loader32(int fd) { LOADER_CHECK(Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn); }

int clinux_elf_is_loader(int fd) {
    unsigned char ident[EI_NIDENT];
    int ok = read_exactly(fd, ident, sizeof(ident), 0);
    if (ok <= 0) return ok;
    if (memcmp(ident, ELFMAG, SELFMAG) != 0) return 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (ident[EI_DATA] != ELFDATA2LSB) return 0;
#else
    if (ident[EI_DATA] != ELFDATA2MSB) return 0;
#endif
    if (ident[EI_CLASS] == ELFCLASS64) return is_loader64(fd);
    if (ident[EI_CLASS] == ELFCLASS32) return is_loader32(fd);
    return 0;
}
