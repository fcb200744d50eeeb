"""Shared parts of the benchmark scripts: a scratch root, the daemon, memory figures."""
import os
import subprocess
import tempfile
import time


def scratch_root(prefix):
    """A scratch --root with an etc/hosts of its own and an empty profiles.d."""
    root = tempfile.mkdtemp(prefix=prefix)
    os.makedirs(f"{root}/etc/simplylock/profiles.d")
    with open(f"{root}/etc/hosts", "w") as f:
        f.write("127.0.0.1 localhost\n::1 localhost\n")
    return root


def start_daemon(bin_dir, root, data_dir, enforcers="hosts"):
    """Starts simplylockd under `root` and waits until lockctl gets an answer."""
    daemon = subprocess.Popen([f"{bin_dir}/simplylockd", "--root", root, "--data-dir", data_dir,
                               "--enforcers", enforcers], stderr=subprocess.DEVNULL)
    for _ in range(200):
        if subprocess.run([f"{bin_dir}/lockctl", "--root", root, "status"], capture_output=True).returncode == 0:
            return daemon
        time.sleep(0.05)
    daemon.kill()
    raise RuntimeError("simplylockd did not answer")


def status_kib(pid, field="VmRSS"):
    """A memory figure of /proc/PID/status (VmRSS, VmHWM), in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def write_domain_profile(root, name, count):
    """A custom profile of `count` distinct domains, d00000.bench.example and up."""
    domains = "\n".join(f'    "d{i:05d}.bench.example",' for i in range(count))
    with open(f"{root}/etc/simplylock/profiles.d/{name}.toml", "w") as f:
        f.write(f'name = "{name}"\ndomains = [\n{domains}\n]\n')


def cpu_and_switches(pid):
    """CPU seconds (user + system, the whole process, exited threads included) and the context
    switches of each thread, by thread id (a thread that exits takes its count with it, so
    differences are taken over the threads alive at both ends)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    switches = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                switches[task] = sum(int(line.split()[1]) for line in f if line.startswith(("voluntary_ctxt", "nonvoluntary_ctxt")))
        except FileNotFoundError:
            pass
    return cpu, switches


def difference(after, before):
    """(CPU seconds, context switches) between two `cpu_and_switches` readings."""
    cpu = after[0] - before[0]
    return cpu, sum(after[1][t] - before[1][t] for t in after[1] if t in before[1])
