import Foundation
import Glibc
import Testing

@testable import LockEnforcement

/// The exec guard's map is keyed by the kernel's dev_t (major << 20 | minor, as the programs read
/// it from the superblock), the daemon resolves files with stat's encoding: the two must agree,
/// or a blocked program is never refused.
@Suite struct BPFExecGuardDeviceTests {
    @Test("stat device numbers become the kernel's dev_t, checked against the mount table's major:minor")
    func kernelDevice() throws {
        let lines = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
        let mountPoints = Dictionary(grouping: lines, by: { $0[4] })
        var checked = 0
        // The filesystem type follows the "-" that ends the optional fields.
        func type(_ fields: [String]) -> String { fields.firstIndex(of: "-").map { fields[$0 + 1] } ?? "" }
        var majors = Set<UInt64>()
        for fields in lines where mountPoints[fields[4]]?.count == 1 && ["tmpfs", "ext4", "proc", "sysfs", "bpf"].contains(type(fields)) {
            // A mount point nothing else is mounted on or over: stat sees exactly this filesystem.
            let numbers = fields[2].split(separator: ":").compactMap { UInt64($0) }
            var status = stat()
            guard numbers.count == 2, stat(fields[4], &status) == 0 else { continue }
            #expect(BPFExecGuard.kernelDevice(UInt64(status.st_dev)) == numbers[0] << 20 | numbers[1], "\(fields)")
            checked += 1
            majors.insert(numbers[0])
        }
        #expect(checked > 0)
        if !majors.contains(where: { $0 != 0 }) { print("note: only devices of major 0 mounted here; the major's shift is not exercised") }
    }

    @Test("the memfd device is the kernel's shmem mount, not a tmpfs anyone mounted")
    func shmemDevice() throws {
        let device = try #require(BPFExecGuard.shmemDevice())
        var status = stat()
        #expect(stat("/dev/shm", &status) != 0 || UInt64(status.st_dev) != device)
        #expect(BPFExecGuard.shmemDevice() == device)
    }
}
