import CExecGuardBPF
import Foundation
import Glibc
import LockPlatform

/// The BPF LSM exec guard in the kernel (`bpf/exec-guard.bpf.c`): programs on the
/// `bprm_check_security`, `mmap_file` and `file_mprotect` hooks that refuse to run, or map as
/// code, any file in the `blocked` map, and during a strict block any memfd.
///
/// The links and maps are pinned in a bpf filesystem, so the guard stays in force while no daemon
/// runs (killed, stopped, restarting); a new daemon adopts the pinned maps. Removing the pins
/// detaches it.
public final class BPFExecGuard: @unchecked Sendable {
    /// Where links and maps are pinned (`/sys/fs/bpf/simplylock`).
    public let pinDirectory: String
    private let blocked: Int32
    private let settings: Int32
    private let denials: Int32

    static let linkNames = ["link_guard_exec", "link_guard_mmap", "link_guard_mprotect"]
    static let mapNames = ["blocked", "settings", "denials"]
    /// Set in the settings map: refuse memfds (strict blocks).
    static let denyMemfd: UInt32 = 1

    /// Adopts the guard pinned in `pinDirectory`, or loads `object` and pins it there.
    ///
    /// - Returns: the guard, and whether it was adopted (a daemon before this one left it).
    public static func attach(object: String, pinDirectory: String) throws(SystemError) -> (BPFExecGuard, adopted: Bool) {
        if let adopted = try? BPFExecGuard(pinDirectory: pinDirectory) { return (adopted, true) }
        // A partial set of pins (an older daemon died half-way): start again.
        detach(pinDirectory: pinDirectory)
        try prepare(pinDirectory)
        var error = [CChar](repeating: 0, count: 512)
        let code = slbpf_attach(object, pinDirectory, &error, error.count)
        guard code == 0 else { throw SystemError("BPF exec guard", text(error), errno: -code) }
        return (try BPFExecGuard(pinDirectory: pinDirectory), false)
    }

    private init(pinDirectory: String) throws(SystemError) {
        for link in Self.linkNames where access(pinDirectory + "/" + link, F_OK) != 0 {
            throw SystemError("adopting", "\(pinDirectory)/\(link)", errno: ENOENT)
        }
        var fds: [Int32] = []
        for name in Self.mapNames {
            var error = [CChar](repeating: 0, count: 512)
            let fd = slbpf_open_pinned(pinDirectory, name, &error, error.count)
            guard fd >= 0 else {
                for open in fds { close(open) }
                throw SystemError("adopting", text(error), errno: -fd)
            }
            fds.append(fd)
        }
        self.pinDirectory = pinDirectory
        (blocked, settings, denials) = (fds[0], fds[1], fds[2])
    }

    deinit {
        close(blocked)
        close(settings)
        close(denials)
    }

    /// Makes the kernel's map hold exactly `files` (rule index by identity) and the memfd rule
    /// match `denyMemfd`. Additions go in before removals, so a file blocked before and after
    /// never has a gap.
    public func sync(_ files: [FileIdentity: UInt32], denyMemfd: Bool, shmemDevice: UInt64?) throws(SystemError) {
        for (identity, rule) in files {
            let code = slbpf_block(blocked, Self.kernelDevice(identity.device), identity.inode, rule)
            guard code == 0 else { throw SystemError("blocking", "\(identity)", errno: -code) }
        }
        let wanted = Set(files.keys.map { (Self.kernelDevice($0.device), $0.inode) }.map(Pair.init))
        for pair in current() where !wanted.contains(pair) {
            let code = slbpf_unblock(blocked, pair.device, pair.inode)
            guard code == 0 else { throw SystemError("unblocking", "\(pair.device):\(pair.inode)", errno: -code) }
        }
        let flags = denyMemfd && shmemDevice != nil ? Self.denyMemfd : 0
        let code = slbpf_set_settings(settings, flags, shmemDevice.map(Self.kernelDevice) ?? 0)
        guard code == 0 else { throw SystemError("setting", "the memfd rule", errno: -code) }
    }

    /// How many files the kernel's map holds.
    public var blockedCount: Int { current().count }

    /// True when memfds are refused now.
    public var deniesMemfd: Bool {
        var flags: UInt32 = 0
        return slbpf_flags(settings, &flags) == 0 && flags & Self.denyMemfd != 0
    }

    /// Refusals so far: execs, executable mappings, memfds.
    public var denialCounts: (exec: UInt64, mapping: UInt64, memfd: UInt64) {
        var counts: [UInt64] = [0, 0, 0]
        for kind in 0..<3 { _ = slbpf_denials(denials, UInt32(kind), &counts[kind]) }
        return (counts[0], counts[1], counts[2])
    }

    private struct Pair: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private func current() -> [Pair] {
        var pairs = [UInt64](repeating: 0, count: 2 * 16384)
        let count = Int(slbpf_blocked(blocked, &pairs, Int32(pairs.count / 2)))
        return (0..<count).map { Pair(device: pairs[2 * $0], inode: pairs[2 * $0 + 1]) }
    }

    /// Removes the pins: the programs detach as soon as no process holds them.
    public static func detach(pinDirectory: String) {
        for name in linkNames + mapNames { unlink(pinDirectory + "/" + name) }
        rmdir(pinDirectory)
    }

    /// True when pins of a guard exist in `pinDirectory` (a block is in force, or a dead daemon left one).
    public static func isPinned(_ pinDirectory: String) -> Bool {
        linkNames.contains { access(pinDirectory + "/" + $0, F_OK) == 0 }
    }

    /// The kernel's dev_t (major << 20 | minor) of a `stat` device number, as the programs read
    /// it from the superblock.
    static func kernelDevice(_ device: UInt64) -> UInt64 {
        let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
        let minor = device & 0xff | (device >> 12) & ~0xff
        return major << 20 | minor
    }

    /// The device of the kernel's internal shmem mount, where every memfd lives.
    public static func shmemDevice() -> UInt64? {
        var device: UInt64 = 0
        return slbpf_shmem_device(&device) == 0 ? device : nil
    }

    /// Creates the pin directory in the bpf filesystem on its parent. It never mounts one: a bpf
    /// filesystem mounted by the daemon (in its private mount namespace under systemd) would die
    /// with the daemon and take the block with it; systemd mounts /sys/fs/bpf at boot.
    private static func prepare(_ pinDirectory: String) throws(SystemError) {
        let parent = (pinDirectory as NSString).deletingLastPathComponent
        guard slbpf_is_bpffs(parent) == 1 else {
            throw SystemError("pinning the exec guard", "\(parent) (not a bpf filesystem: mount -t bpf bpf \(parent))", errno: ENOTSUP)
        }
        guard mkdir(pinDirectory, 0o700) == 0 || errno == EEXIST else { throw SystemError("mkdir", pinDirectory) }
    }

    /// Why the guard cannot be used here, or nil when it can: the BPF LSM must be active, the
    /// kernel must describe itself (BTF), and it must accept the programs (they are loaded, then
    /// closed again; nothing is attached).
    public static func unavailableReason(object: String?) -> String? {
        if let lsm = try? String(contentsOfFile: "/sys/kernel/security/lsm", encoding: .utf8),
            !lsm.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").contains("bpf")
        {
            return
                "the BPF LSM is not active (add bpf to lsm= on the kernel command line; active: \(lsm.trimmingCharacters(in: .whitespacesAndNewlines)))"
        }
        guard access("/sys/kernel/btf/vmlinux", R_OK) == 0 else { return "the kernel has no BTF (/sys/kernel/btf/vmlinux)" }
        guard let object else { return "the guard's BPF object (exec-guard.bpf.o) is not installed" }
        var error = [CChar](repeating: 0, count: 512)
        let code = slbpf_probe(object, &error, error.count)
        guard code == 0 else {
            let reason = "\(text(error)): \(String(cString: strerror(-code)))"
            if code == -EPERM {
                return
                    "the kernel refuses BPF LSM programs (\(reason)): not root with CAP_BPF, or a kernel that does not allow them (lockdown, a restricted VM)"
            }
            return "the kernel refuses the guard (\(reason))"
        }
        return nil
    }
}

/// The text a C function wrote into `buffer`, up to its terminating zero.
private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
