// Recognising the dynamic loader by what the file is, not by its name: a root-made copy of
// `ld-linux-x86-64.so.2` under another name runs any program without exec just as well.
#ifndef CLINUX_ELF_H
#define CLINUX_ELF_H

// 1 when the file open on `fd` is a dynamic loader: an ELF shared object of this machine's
// byte order with no PT_INTERP (it is what PT_INTERP names) whose DT_SONAME is `ld-*.so*`,
// `ld.so*` or musl's `libc.so`; 0 when it is not (or not ELF); -1 when it cannot be read.
// Reads at most a few kilobytes with pread (the descriptor's offset is untouched) and uses
// only system calls and the stack, so a forked child of a multithreaded process may call it.
int clinux_elf_is_loader(int fd);
#endif
