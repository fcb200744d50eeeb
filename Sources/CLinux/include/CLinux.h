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

// mkostemp needs _GNU_SOURCE, which cannot be set for the Glibc module itself.
int clinux_mkostemp(char *template_path, int flags);

// SO_PEERCRED as three plain numbers (struct ucred also needs _GNU_SOURCE).
int clinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

// pipe2(O_CLOEXEC), for spawning children without leaking pipe ends into other children.
int clinux_pipe_cloexec(int fds[2]);

// 1 when the kernel considers the clock synchronised (adjtimex), 0 when not, -1 on error.
int clinux_clock_synchronised(void);
#endif
