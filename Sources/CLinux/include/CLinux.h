// Linux interfaces that Swift's Glibc module does not export.
#ifndef CLINUX_H
#define CLINUX_H
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <malloc.h>
#include <sys/random.h>
#include "clinux_chunker.h"
#include "clinux_sentinel.h"
#include "clinux_elf.h"

// O_PATH needs _GNU_SOURCE too (the value of every architecture Linux runs Swift on).
#define CLINUX_O_PATH 010000000

// mkostemp needs _GNU_SOURCE, which cannot be set for the Glibc module itself.
int clinux_mkostemp(char *template_path, int flags);

// SO_PEERCRED as three plain numbers (struct ucred also needs _GNU_SOURCE).
int clinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

// Raises the soft limit of open files to the hard limit (at most `wanted`); returns the soft
// limit in force afterwards, or -1.
long clinux_raise_nofile(long wanted);

// pipe2(O_CLOEXEC), for spawning children without leaking pipe ends into other children.
int clinux_pipe_cloexec(int fds[2]);

// 1 when the kernel considers the clock synchronised (adjtimex), 0 when not, -1 on error.
int clinux_clock_synchronised(void);

// The arguments the process was started with, as glibc hands them to the executable's
// initialisers (before main, without /proc): their number, or -1 when they were not seen, and
// the array itself.
int clinux_start_argc(void);
// The inode flags chattr(1) sets (FS_IOC_GETFLAGS) of `path`, followed if a link: 1 in
// `immutable` for +i, in `append_only` for +a. 0, or -1 with errno (ENOTTY: the filesystem has
// no such flags).
int clinux_inode_flags(const char *path, int *immutable, int *append_only);
char *const *clinux_start_argv(void);

// ---- App blocking (exec guard): fanotify, the proc connector, pidfds ----
#include <sys/fanotify.h>
#include <stdint.h>

// fanotify_init / fanotify_mark, returning -1 with errno set like the system calls.
int clinux_fanotify_init(unsigned int flags, unsigned int event_f_flags);
int clinux_fanotify_mark(int fd, unsigned int flags, uint64_t mask, int dirfd, const char *path);

// One fanotify event as the exec guard needs it (the kernel's record is variable-length).
struct clinux_fanotify_event {
    uint64_t mask;
    int32_t fd;
    int32_t pid;
};
// Reads up to `max` events from a non-blocking fanotify descriptor into `events`. Returns the
// number read, 0 when none is pending, -1 with errno on error. Records without a file
// descriptor (queue overflow) are returned with fd -1.
int clinux_fanotify_read(int fd, struct clinux_fanotify_event *events, int max);
// Answers a permission event: allow != 0 lets the access through, 0 denies it (EPERM).
int clinux_fanotify_respond(int fd, int32_t event_fd, int allow);

// The kernel's process-event connector (netlink NETLINK_CONNECTOR, CN_IDX_PROC): opens a
// socket subscribed to process events (needs CAP_NET_ADMIN). -1 with errno on failure.
int clinux_proc_connector_open(void);
/// Tells the kernel this socket no longer listens (the kernel counts listeners and builds
/// process events for everyone while any are counted), then closes it.
void clinux_proc_connector_close(int fd);
// Reads one datagram and stores the pids of processes that called exec (PROC_EVENT_EXEC) in
// `pids`. Returns how many (0 for other events), -1 with errno (EAGAIN when none pending;
// ENOBUFS when the kernel dropped events because the socket buffer was full).
int clinux_proc_connector_read(int fd, int32_t *pids, int max);

// pidfd_open(2) and pidfd_send_signal(2); -1 with errno on failure.
int clinux_pidfd_open(int32_t pid);
int clinux_pidfd_send_signal(int pidfd, int signal);
#endif
