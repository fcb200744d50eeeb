#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "clinux_sentinel.h"

static uint64_t now_ns(void) {
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (uint64_t)spec.tv_sec * 1000000000ULL + (uint64_t)spec.tv_nsec;
}

// Refuse: a blocked file; during a strict block, a file the daemon would have to read.
static int refuse(const struct clinux_sentinel_table *table, const struct stat *status) {
    // A daemon stopped in the middle of an update leaves the sequence odd: after a bounded
    // wait, refuse during a strict block and allow otherwise, as for anything unchecked.
    for (int attempt = 0;; attempt++) {
        if (attempt > 100000) return table->strict != 0;
        uint32_t before = __atomic_load_n(&table->sequence, __ATOMIC_ACQUIRE);
        if (before & 1) continue;
        int verdict = 0;
        uint32_t files = table->file_count, sizes = table->size_count;
        if (files > CLINUX_SENTINEL_FILES) files = CLINUX_SENTINEL_FILES;
        if (sizes > CLINUX_SENTINEL_SIZES) sizes = CLINUX_SENTINEL_SIZES;
        for (uint32_t i = 0; i < files && !verdict; i++) {
            if (table->files[i].device == (uint64_t)status->st_dev && table->files[i].inode == (uint64_t)status->st_ino) verdict = 1;
        }
        int user_controlled = status->st_uid != 0 || (status->st_mode & (S_IWGRP | S_IWOTH)) != 0;
        if (!verdict && table->strict && user_controlled) {
            if (table->minimum_size >= 0 && status->st_size >= table->minimum_size) verdict = 1;
            for (uint32_t i = 0; i < sizes && !verdict; i++) {
                if (table->sizes[i] == status->st_size) verdict = 1;
            }
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&table->sequence, __ATOMIC_RELAXED) == before) return verdict;
    }
}

static void answer_all(int group_fd, struct clinux_sentinel_table *table) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
    for (;;) {
        ssize_t length = read(group_fd, buffer, sizeof(buffer));
        if (length <= 0) return;
        struct fanotify_event_metadata *event = (struct fanotify_event_metadata *)buffer;
        while (FAN_EVENT_OK(event, length)) {
            if (event->fd >= 0) {
                struct stat status;
                int deny;
                if (event->mask & FAN_OPEN_EXEC_PERM) {
                    deny = fstat(event->fd, &status) != 0 ? table->strict != 0 : refuse(table, &status);
                } else {
                    // An open of a blocked file (only those carry that mark): refused to every
                    // opener while the daemon cannot tell an interpreter from `cat`.
                    deny = 1;
                }
                struct fanotify_response response = {.fd = event->fd, .response = deny ? FAN_DENY : FAN_ALLOW};
                (void)!write(group_fd, &response, sizeof(response));
                close(event->fd);
                __atomic_add_fetch(deny ? &table->refused : &table->allowed, 1, __ATOMIC_RELAXED);
            }
            event = FAN_EVENT_NEXT(event, length);
        }
    }
}

// The child: only system calls from here on (it was forked from a multithreaded process).
static void sentinel_main(int group_fd, int pipe_fd, uint64_t stall_ns, struct clinux_sentinel_table *table) {
    prctl(PR_SET_NAME, "exec-sentinel", 0, 0, 0);
    // Keep only the group and the pipe: the daemon's sockets and files are not ours to hold.
    for (int fd = 0; fd < 3; fd++) {
        if (fd != group_fd && fd != pipe_fd) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0 && null != fd) { dup2(null, fd); close(null); }
        }
    }
    int low = group_fd < pipe_fd ? group_fd : pipe_fd, high = group_fd < pipe_fd ? pipe_fd : group_fd;
    if (low > 3) syscall(SYS_close_range, 3, low - 1, 0);
    if (high > low + 1) syscall(SYS_close_range, low + 1, high - 1, 0);
    syscall(SYS_close_range, high + 1, ~0U, 0);
    for (;;) {
        uint64_t beat = __atomic_load_n(&table->beat, __ATOMIC_RELAXED);
        int stale = now_ns() - beat > stall_ns;
        struct pollfd fds[2] = {{.fd = pipe_fd, .events = POLLIN}, {.fd = group_fd, .events = POLLIN}};
        int ready = poll(fds, stale ? 2 : 1, 100);
        if (ready < 0) continue;
        if (fds[0].revents) _exit(0);
        if (stale && (fds[1].revents & POLLIN)) answer_all(group_fd, table);
    }
}

int clinux_sentinel_start(int group_fd, uint64_t stall_ns, struct clinux_sentinel *sentinel) {
    struct clinux_sentinel_table *table =
        mmap(NULL, sizeof(*table), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED) return -1;
    memset(table, 0, sizeof(*table));
    table->minimum_size = -1;
    table->beat = now_ns();
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        munmap(table, sizeof(*table));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        munmap(table, sizeof(*table));
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        sentinel_main(group_fd, fds[0], stall_ns, table);
        _exit(0);
    }
    close(fds[0]);
    sentinel->pid = pid;
    sentinel->pipe_fd = fds[1];
    sentinel->table = table;
    return 0;
}

void clinux_sentinel_stop(struct clinux_sentinel *sentinel) {
    if (sentinel->pid <= 0) return;
    close(sentinel->pipe_fd);
    // It ends at once (the pipe wakes its poll); the bound is for a sentinel stopped by someone.
    for (int i = 0; i < 200; i++) {
        if (waitpid(sentinel->pid, NULL, WNOHANG) != 0) break;
        if (i == 199) {
            kill(sentinel->pid, SIGKILL);
            waitpid(sentinel->pid, NULL, 0);
        }
        usleep(10000);
    }
    sentinel->pid = 0;
}

void clinux_sentinel_release(struct clinux_sentinel_table *table) { munmap(table, sizeof(*table)); }

void clinux_sentinel_beat(struct clinux_sentinel_table *table, uint64_t now) {
    __atomic_store_n(&table->beat, now, __ATOMIC_RELAXED);
}

void clinux_sentinel_update(
    struct clinux_sentinel_table *table, int strict, int64_t minimum_size, const int64_t *sizes, uint32_t size_count,
    const uint64_t *files, uint32_t file_count) {
    if (size_count > CLINUX_SENTINEL_SIZES) {
        // More distinct sizes than fit: refuse every user-controlled file from the smallest.
        int64_t smallest = minimum_size;
        for (uint32_t i = 0; i < size_count; i++) {
            if (smallest < 0 || sizes[i] < smallest) smallest = sizes[i];
        }
        minimum_size = smallest;
        size_count = 0;
    }
    if (file_count > CLINUX_SENTINEL_FILES) file_count = CLINUX_SENTINEL_FILES;
    __atomic_add_fetch(&table->sequence, 1, __ATOMIC_ACQ_REL);
    table->strict = strict ? 1 : 0;
    table->minimum_size = minimum_size;
    table->size_count = size_count;
    for (uint32_t i = 0; i < size_count; i++) table->sizes[i] = sizes[i];
    table->file_count = file_count;
    for (uint32_t i = 0; i < file_count; i++) {
        table->files[i].device = files[2 * i];
        table->files[i].inode = files[2 * i + 1];
    }
    __atomic_add_fetch(&table->sequence, 1, __ATOMIC_RELEASE);
}
