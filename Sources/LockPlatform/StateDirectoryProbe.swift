import CLinux
import Glibc

/// Checks that a directory can really take a write, not only that its permissions allow one: a
/// full file system passes `access(W_OK)` and fails every save.
public enum StateDirectoryProbe {
    /// Bytes written by the probe; the size of one SQLite page change is about this.
    static let probeBytes = 8192

    /// Nil when a file can be created, written, flushed and removed in `directory`; otherwise why not.
    public static func problem(_ directory: String) -> String? {
        var template = Array("\(directory)/.probe.simplylock-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { clinux_mkostemp($0.baseAddress!, O_CLOEXEC) }
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer {
            close(fd)
            unlink(path)
        }
        let bytes = [UInt8](repeating: 0, count: probeBytes)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == probeBytes else { return written < 0 ? String(cString: strerror(errno)) : "the file system is full" }
        guard fsync(fd) == 0 else { return String(cString: strerror(errno)) }
        return nil
    }
}
