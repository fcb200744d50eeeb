// libbpf, for the BPF LSM exec guard's loader (Sources/CExecGuardBPF).
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
