import CLinux
import Glibc

/// How the daemon asks glibc's malloc to hand memory back.
///
/// With the defaults, a daemon that once held a 100 000-name block kept most of the freed
/// memory: the mmap threshold grows to the largest block freed (so later large buffers come
/// from the heap, where they stay), and each thread that allocated gets an arena of its own.
public enum MallocPolicy {
    /// Buffers from 128 KiB up are mapped and unmapped on their own, the heap top is returned
    /// past 128 KiB free, and two arenas serve every thread. Call once, before threads start.
    public static func applyForDaemon() {
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        _ = mallopt(M_TRIM_THRESHOLD, 128 * 1024)
        _ = mallopt(M_ARENA_MAX, 2)
    }

    /// Hands the free pages inside the heap back to the kernel (`malloc_trim`), after a change
    /// that dropped large structures: a block's names, a profile file's parse. Freed chunks
    /// between live ones stay with malloc otherwise; after a 100 000-name start that was a
    /// seventh of the daemon's memory.
    public static func returnFreedMemory() {
        _ = malloc_trim(0)
    }
}
