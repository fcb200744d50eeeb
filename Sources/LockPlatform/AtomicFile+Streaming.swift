import CLinux
import Foundation
import Glibc

extension AtomicFile {
    /// Receives the bytes of a file written by `write(to:mode:producing:)`, buffered.
    public final class Sink {
        private let fd: Int32
        private let path: String
        private var buffer: [UInt8] = []
        private var offset: off_t = 0
        private static let bufferSize = 1 << 20

        fileprivate init(fd: Int32, path: String) {
            self.fd = fd
            self.path = path
            buffer.reserveCapacity(Self.bufferSize)
        }

        /// Appends `bytes`.
        public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
            if buffer.count + bytes.count > Self.bufferSize { try flush() }
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.bufferSize { try flush() }
        }

        /// Appends one byte.
        public func write(byte: UInt8) throws(SystemError) {
            if buffer.count >= Self.bufferSize { try flush() }
            buffer.append(byte)
        }

        /// Appends `bytes`.
        public func write(_ bytes: [UInt8]) throws(SystemError) {
            if buffer.count + bytes.count > Self.bufferSize { try flush() }
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.bufferSize { try flush() }
        }

        fileprivate func flush() throws(SystemError) {
            guard !buffer.isEmpty else { return }
            let failure = buffer.withUnsafeBytes { writeAll($0) }
            if let failure { throw failure }
            buffer.removeAll(keepingCapacity: true)
        }

        private func writeAll(_ bytes: UnsafeRawBufferPointer) -> SystemError? {
            var done = 0
            while done < bytes.count {
                let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return SystemError("write", path)
                }
                done += n
                offset += off_t(n)
            }
            return nil
        }
    }

    /// Writes a file too large to hold twice in memory the way `write(_:to:)` writes one: into
    /// a temporary file in the same directory (named so that `removeLeftovers` finds it after
    /// a crash), flushed, renamed over `path`, the directory flushed. `produce` hands the bytes
    /// to the sink as it makes them; if it throws, nothing at `path` changes.
    public static func write(to path: String, mode: mode_t = 0o644, producing produce: (Sink) throws(SystemError) -> Void)
        throws(SystemError)
    {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        var template = Array("\(directory.isEmpty ? "." : directory)/\(temporaryPrefix(for: base))XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { clinux_mkostemp($0.baseAddress!, O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("create temporary file in", directory) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var keep = false
        defer {
            close(fd)
            if !keep { unlink(temporary) }
        }
        let sink = Sink(fd: fd, path: temporary)
        try produce(sink)
        try sink.flush()
        fchmod(fd, mode)
        guard fsync(fd) == 0 else { throw SystemError("fsync", temporary) }
        guard rename(temporary, path) == 0 else { throw SystemError("rename", path) }
        keep = true
        syncDirectory(directory)
    }
}
