#define _GNU_SOURCE
#include "exec_guard_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

// Names shared with bpf/exec-guard.bpf.c.
static const char *const programs[] = {"guard_exec", "guard_mmap", "guard_mprotect"};
static const char *const maps[] = {"blocked", "settings", "denials"};
#define COUNT(array) (sizeof(array) / sizeof(array[0]))

struct file_key {
    uint64_t dev;
    uint64_t ino;
};

struct guard_settings {
    uint32_t flags;
    uint32_t reserved;
    uint64_t shmem_dev;
};

static int fail(int code, char *error, size_t size, const char *what, const char *name) {
    if (code > 0) code = -code;
    if (code == 0) code = -EINVAL;
    snprintf(error, size, "%s %s", what, name);
    return code;
}

static void pin_path(char *out, size_t size, const char *directory, const char *prefix, const char *name) {
    snprintf(out, size, "%s/%s%s", directory, prefix, name);
}

static void unpin_all(const char *directory) {
    char path[4096];
    for (size_t i = 0; i < COUNT(programs); i++) {
        pin_path(path, sizeof(path), directory, "link_", programs[i]);
        unlink(path);
    }
    for (size_t i = 0; i < COUNT(maps); i++) {
        pin_path(path, sizeof(path), directory, "", maps[i]);
        unlink(path);
    }
}

static int quiet(enum libbpf_print_level level, const char *format, va_list arguments) {
    (void)level;
    (void)format;
    (void)arguments;
    return 0;
}

int slbpf_probe(const char *object_path, char *error, size_t size) {
    libbpf_set_print(quiet);
    struct bpf_object *object = bpf_object__open_file(object_path, NULL);
    int code = libbpf_get_error(object);
    if (code) return fail(code, error, size, "opening", object_path);
    code = bpf_object__load(object);
    if (code) code = fail(code, error, size, "loading", object_path);
    bpf_object__close(object);
    return code;
}

int slbpf_attach(const char *object_path, const char *directory, char *error, size_t size) {
    libbpf_set_print(quiet);
    char path[4096];
    struct bpf_object *object = bpf_object__open_file(object_path, NULL);
    int code = libbpf_get_error(object);
    if (code) return fail(code, error, size, "opening", object_path);
    code = bpf_object__load(object);
    if (code) {
        code = fail(code, error, size, "loading", object_path);
        bpf_object__close(object);
        return code;
    }
    for (size_t i = 0; i < COUNT(maps); i++) {
        struct bpf_map *map = bpf_object__find_map_by_name(object, maps[i]);
        pin_path(path, sizeof(path), directory, "", maps[i]);
        code = map ? bpf_map__pin(map, path) : -ENOENT;
        if (code) {
            code = fail(code, error, size, "pinning map", path);
            goto failed;
        }
    }
    for (size_t i = 0; i < COUNT(programs); i++) {
        struct bpf_program *program = bpf_object__find_program_by_name(object, programs[i]);
        if (!program) {
            code = fail(ENOENT, error, size, "finding program", programs[i]);
            goto failed;
        }
        struct bpf_link *link = bpf_program__attach_lsm(program);
        code = libbpf_get_error(link);
        if (code) {
            code = fail(code, error, size, "attaching", programs[i]);
            goto failed;
        }
        pin_path(path, sizeof(path), directory, "link_", programs[i]);
        code = bpf_link__pin(link, path);
        // The pin holds the link from here on; closing ours never detaches it.
        bpf_link__disconnect(link);
        bpf_link__destroy(link);
        if (code) {
            code = fail(code, error, size, "pinning link", path);
            goto failed;
        }
    }
    bpf_object__close(object);
    return 0;
failed:
    unpin_all(directory);
    bpf_object__close(object);
    return code;
}

int slbpf_open_pinned(const char *directory, const char *name, char *error, size_t size) {
    char path[4096];
    pin_path(path, sizeof(path), directory, "", name);
    int fd = bpf_obj_get(path);
    if (fd < 0) return fail(errno, error, size, "opening", path);
    return fd;
}

int slbpf_block(int map, uint64_t dev, uint64_t ino, uint32_t rule) {
    struct file_key key = {dev, ino};
    return bpf_map_update_elem(map, &key, &rule, BPF_ANY) ? -errno : 0;
}

int slbpf_unblock(int map, uint64_t dev, uint64_t ino) {
    struct file_key key = {dev, ino};
    return bpf_map_delete_elem(map, &key) && errno != ENOENT ? -errno : 0;
}

int slbpf_blocked(int map, uint64_t *pairs, int capacity) {
    struct file_key key, next;
    int count = 0;
    void *previous = NULL;
    while (count < capacity && bpf_map_get_next_key(map, previous, &next) == 0) {
        pairs[2 * count] = next.dev;
        pairs[2 * count + 1] = next.ino;
        count++;
        key = next;
        previous = &key;
    }
    return count;
}

int slbpf_set_settings(int map, uint32_t flags, uint64_t shmem_dev) {
    uint32_t zero = 0;
    struct guard_settings settings = {flags, 0, shmem_dev};
    return bpf_map_update_elem(map, &zero, &settings, BPF_ANY) ? -errno : 0;
}

int slbpf_flags(int map, uint32_t *flags) {
    uint32_t zero = 0;
    struct guard_settings settings;
    if (bpf_map_lookup_elem(map, &zero, &settings)) return -errno;
    *flags = settings.flags;
    return 0;
}

int slbpf_denials(int map, uint32_t kind, uint64_t *total) {
    int cpus = libbpf_num_possible_cpus();
    if (cpus <= 0 || cpus > 4096) return -EINVAL;
    uint64_t values[cpus];
    if (bpf_map_lookup_elem(map, &kind, values)) return -errno;
    *total = 0;
    for (int i = 0; i < cpus; i++) *total += values[i];
    return 0;
}

int slbpf_shmem_device(uint64_t *device) {
    int fd = memfd_create("simplylock-probe", MFD_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat status;
    int code = fstat(fd, &status) ? -errno : 0;
    close(fd);
    if (code == 0) *device = status.st_dev;
    return code;
}

int slbpf_is_bpffs(const char *path) {
    struct statfs info;
    if (statfs(path, &info)) return -errno;
    return info.f_type == 0xcafe4a11;  // BPF_FS_MAGIC
}
