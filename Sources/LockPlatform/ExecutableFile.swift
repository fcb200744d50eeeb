import Glibc

/// An executable as found on disk: the path it was named by (a wrapper or symbolic link on
/// PATH), the real file that path leads to, its identity, and what kind of program it is.
public struct ExecutableFile: Sendable, Hashable, Codable {
    /// What the kernel runs when the file is executed.
    public enum Kind: Sendable, Hashable, Codable {
        /// A compiled program.
        case elf
        /// A script with a `#!` line naming its interpreter.
        case script(interpreter: String)
        /// Anything else marked executable.
        case other
    }

    /// The path as named (on PATH, in `Exec`, in a profile).
    public var path: String
    /// The real path (`realpath`): symbolic links resolved.
    public var resolved: String
    /// Device and inode of the real file.
    public var identity: FileIdentity
    /// ELF, script or other.
    public var kind: Kind
    /// Size in bytes.
    public var size: Int64

    /// Examines `path`: nil unless it leads to a regular file with an execute bit (or, with
    /// `requireExecutable: false`, any regular file: scripts run as `python3 game.py`).
    public static func inspect(_ path: String, requireExecutable: Bool = true) -> ExecutableFile? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        if requireExecutable, status.st_mode & 0o111 == 0 { return nil }
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        let resolved = String(cString: real)
        return ExecutableFile(
            path: path, resolved: resolved, identity: FileIdentity(status), kind: kind(of: resolved),
            size: Int64(status.st_size))
    }

    /// Reads the first line to tell ELF from scripts. Opening a file for reading is harmless
    /// even where the exec guard watches (it only ever denies interpreters).
    static func kind(of path: String) -> Kind {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return .other }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 256)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 4 else { return .other }
        if header[0] == 0x7F, header[1] == UInt8(ascii: "E"), header[2] == UInt8(ascii: "L"), header[3] == UInt8(ascii: "F") {
            return .elf
        }
        guard header[0] == UInt8(ascii: "#"), header[1] == UInt8(ascii: "!") else { return .other }
        let line = header[2..<count].prefix { $0 != UInt8(ascii: "\n") }
        let text = String(decoding: line, as: UTF8.self)
        let interpreter = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        return .script(interpreter: interpreter)
    }
}
