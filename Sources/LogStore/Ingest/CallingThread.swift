import Glibc

/// The OS identity of the thread that logs, looked up once per thread and cached in
/// thread-specific storage so the hot path pays a `pthread_getspecific` only.
final class CallingThread: Sendable {
    /// The kernel thread id (what `top -H` and `/proc/<pid>/task` show).
    let id: Int32
    /// The thread's name, when it has one other than the process name; for a worker thread of
    /// libdispatch (Swift concurrency's threads on Linux), its root queue's full label.
    let name: String?

    private init(id: Int32, name: String?) {
        self.id = id
        self.name = name
    }

    /// The calling thread's identity.
    static var current: CallingThread {
        let key = storageKey
        if let stored = pthread_getspecific(key) {
            return Unmanaged<CallingThread>.fromOpaque(stored).takeUnretainedValue()
        }
        let thread = lookUp()
        // Released by the key's destructor when the thread exits.
        pthread_setspecific(key, Unmanaged.passRetained(thread).toOpaque())
        return thread
    }

    private static let storageKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { stored in
            if let stored { Unmanaged<CallingThread>.fromOpaque(stored).release() }
        }
        return key
    }()

    /// Glibc's `gettid` and `pthread_getname_np` are not visible to Swift, so the thread's
    /// `/proc` entry answers instead, once per thread.
    private static func lookUp() -> CallingThread {
        var link = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &link, link.count - 1)
        // The link reads "<pid>/task/<tid>".
        let target = count > 0 ? String(decoding: link[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let id = target.split(separator: "/").last.flatMap { Int32($0) } ?? getpid()
        var name = readSmallFile("/proc/thread-self/comm")?.trimmingTrailingNewlines()
        if name == readSmallFile("/proc/self/comm")?.trimmingTrailingNewlines() || name?.isEmpty == true {
            // Unnamed threads inherit the process name, which says nothing about the thread.
            name = nil
        }
        return CallingThread(id: id, name: name.flatMap(untruncated))
    }

    /// The kernel keeps 15 bytes of a thread's name.
    static let kernelNameLength = 15

    /// The labels of libdispatch's root queues, after which it names its worker threads.
    ///
    /// Written out as literals: a literal's storage is static and never reference counted, and
    /// every event logged from a worker thread carries one of these. A string built at run time
    /// would be one object that all those threads retain, and the writer's side releases, on
    /// each logging call: an atomic on a cache line that moves between cores every time.
    static let rootQueueLabels: [String] = [
        "com.apple.root.maintenance-qos", "com.apple.root.maintenance-qos.overcommit",
        "com.apple.root.background-qos", "com.apple.root.background-qos.overcommit",
        "com.apple.root.utility-qos", "com.apple.root.utility-qos.overcommit",
        "com.apple.root.default-qos", "com.apple.root.default-qos.overcommit",
        "com.apple.root.user-initiated-qos", "com.apple.root.user-initiated-qos.overcommit",
        "com.apple.root.user-interactive-qos", "com.apple.root.user-interactive-qos.overcommit",
    ]

    /// A thread name as the kernel gave it, with a libdispatch worker's name restored to its
    /// root queue's label. The kernel keeps the last 15 bytes of that label (`oot.default-qos`
    /// for `com.apple.root.default-qos`), which names no queue anyone knows. The overcommit
    /// pools (serial queues run there) all cut to `-qos.overcommit`; such a name says nothing
    /// certain about the thread and is dropped.
    static func untruncated(_ name: String) -> String? {
        guard name.utf8.count == kernelNameLength else { return name }
        let labels = rootQueueLabels.filter { $0.utf8.count > kernelNameLength && $0.hasSuffix(name) }
        switch labels.count {
        case 0: return name
        case 1: return labels[0]
        default: return nil
        }
    }

    private static func readSmallFile(_ path: String) -> String? {
        guard case .success(let descriptor) = Files.openDescriptor(path, O_RDONLY) else {
            return nil
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        guard case .success(let count) = SystemCall.valueOrErrno({ read(descriptor, &bytes, bytes.count) }), count > 0
        else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while text.last == "\n" { text = text.dropLast() }
        return String(text)
    }
}
