// SPDX-License-Identifier: GPL-2.0-only
// The exec guard's BPF LSM program (see README, "The BPF exec guard"). It refuses to execute or
// map as code any file whose (device, inode) is in `blocked`, and, when `settings` says so (a
// strict block), any memfd. With both maps empty it refuses nothing.
//
// Built with `clang -target bpf` by the Makefile. Instead of a generated vmlinux.h it declares
// the five kernel fields it reads with preserve_access_index: libbpf relocates them against the
// running kernel's BTF (CO-RE), and the object builds where no BTF is at hand.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define EPERM 1
#define PROT_EXEC 0x4

struct super_block {
	unsigned int s_dev;
} __attribute__((preserve_access_index));

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));

struct linux_binprm {
	struct file *file;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	struct file *vm_file;
} __attribute__((preserve_access_index));

// The kernel's dev_t (major << 20 | minor) and inode number of a blocked program.
struct file_key {
	__u64 dev;
	__u64 ino;
};

// The value is the index of the rule that blocks the file, for the daemon's reports.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct file_key);
	__type(value, __u32);
} blocked SEC(".maps");

#define DENY_MEMFD 1u

// During a strict block: DENY_MEMFD, and the device of the kernel's internal shmem mount, which
// holds every memfd (and SysV shared memory) whatever its name.
struct guard_settings {
	__u32 flags;
	__u32 reserved;
	__u64 shmem_dev;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct guard_settings);
} settings SEC(".maps");

// Denials so far: 0 exec, 1 executable mapping, 2 memfd (exec or mapping).
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} denials SEC(".maps");

static __always_inline int deny(__u32 kind)
{
	__u64 *count = bpf_map_lookup_elem(&denials, &kind);
	if (count)
		*count += 1;
	return -EPERM;
}

// LSM programs read kernel structures directly (BTF-typed pointers): bpf_probe_read_kernel is
// refused under lockdown=confidentiality, which some kernels enforce.
static __always_inline int decide(struct file *file, __u32 kind)
{
	if (!file)
		return 0;
	struct inode *inode = file->f_inode;
	if (!inode)
		return 0;
	struct super_block *sb = inode->i_sb;
	if (!sb)
		return 0;
	struct file_key key = {.dev = sb->s_dev, .ino = inode->i_ino};
	if (bpf_map_lookup_elem(&blocked, &key))
		return deny(kind);
	__u32 zero = 0;
	struct guard_settings *settings_now = bpf_map_lookup_elem(&settings, &zero);
	if (settings_now && (settings_now->flags & DENY_MEMFD) && settings_now->shmem_dev == key.dev)
		return deny(2);
	return 0;
}

SEC("lsm/bprm_check_security")
int BPF_PROG(guard_exec, struct linux_binprm *bprm, int ret)
{
	if (ret)
		return ret;
	return decide(bprm->file, 0);
}

SEC("lsm/mmap_file")
int BPF_PROG(guard_mmap, struct file *file, unsigned long reqprot, unsigned long prot, unsigned long flags, int ret)
{
	if (ret || !(prot & PROT_EXEC))
		return ret;
	return decide(file, 1);
}

// A mapping made readable first and executable later.
SEC("lsm/file_mprotect")
int BPF_PROG(guard_mprotect, struct vm_area_struct *vma, unsigned long reqprot, unsigned long prot, int ret)
{
	if (ret || !(prot & PROT_EXEC))
		return ret;
	return decide(vma->vm_file, 1);
}

char LICENSE[] SEC("license") = "GPL";
