import Glibc

/// Reads a whole file by position (pread), so that the descriptor's offset, which the kernel's
/// event or another reader may share, is never moved.
enum FileBlocks {
    /// Hands each block of the file open on `fd` to `body`, in order, until the end or until
    /// `body` returns false. Returns the bytes read, or nil when a read failed or `body` stopped.
    static func read(fd: Int32, blockSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) -> Int64? {
        var buffer = [UInt8](repeating: 0, count: blockSize)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return Int64(offset) }
            let proceed = buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += off_t(count)
            if !proceed { return nil }
        }
    }
}
