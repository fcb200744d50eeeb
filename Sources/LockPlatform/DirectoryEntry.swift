import Glibc

/// The name of an entry `readdir(3)` returned, read where it lies.
///
/// `entry.pointee.d_name` copies the whole 256-byte array, but a record ends soon after its
/// name's NUL (`d_reclen`): the last record in glibc's buffer can end a few bytes before an
/// unmapped page (the top of a thread's malloc heap), and the copy then faults. That crashed the
/// daemon at start-up about once in 50 starts under load (SIGSEGV in `ProgramRunners.refresh`,
/// reading /usr/bin), so every directory walk reads names through here.
public enum DirectoryEntry {
    /// The entry's name.
    public static func name(_ entry: UnsafePointer<dirent>) -> String {
        withName(entry) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the bytes of the entry's name, its NUL left out.
    public static func withName<Result>(_ entry: UnsafePointer<dirent>, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let start = UnsafeRawPointer(entry) + nameOffset
        let length = strlen(start.assumingMemoryBound(to: CChar.self))
        return body(UnsafeRawBufferPointer(start: start, count: length))
    }

    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
}
