import CLinux
import Glibc

/// The Linux calls the server needs that Swift's `Glibc` module does not import: `epoll_create1`,
/// `epoll_ctl`, `epoll_wait`, `eventfd` and `accept4`, from the `CLinux` shim, with their
/// constants and the layout of `epoll_event`.
///
/// The event loop takes them as one value (``Functions``), so this file is the only one that
/// imports the shim.
enum LinuxCalls {
    /// `int epoll_create1(int flags)`.
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    /// `int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)`.
    typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    /// `int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)`.
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    /// `int eventfd(unsigned int initval, int flags)`.
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    /// `int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags)`.
    typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    /// The functions.
    struct Functions: Sendable {
        let epollCreate1: EpollCreate1
        let epollCtl: EpollCtl
        let epollWait: EpollWait
        let eventFD: EventFD
        let accept4: Accept4
    }

    /// The C library's functions (a `Result` so the server's start keeps one failure path).
    static let functions: Result<Functions, HTTPServerError> = .success(
        Functions(
            epollCreate1: { flags in epoll_create1(flags) },
            epollCtl: { epoll, operation, descriptor, event in
                epoll_ctl(epoll, operation, descriptor, event?.assumingMemoryBound(to: epoll_event.self))
            },
            epollWait: { epoll, events, capacity, timeout in
                epoll_wait(epoll, events?.assumingMemoryBound(to: epoll_event.self), capacity, timeout)
            },
            eventFD: { value, flags in eventfd(value, flags) },
            accept4: { socket, address, length, flags in CLinux.accept4(socket, address, length, flags) }))

    // Event bits (`<sys/epoll.h>`).
    static let epollIn = EPOLLIN.rawValue
    static let epollOut = EPOLLOUT.rawValue
    static let epollErr = EPOLLERR.rawValue
    static let epollHup = EPOLLHUP.rawValue
    static let epollRdHup = EPOLLRDHUP.rawValue

    // `epoll_ctl` operations.
    static let epollCtlAdd = EPOLL_CTL_ADD
    static let epollCtlDel = EPOLL_CTL_DEL
    static let epollCtlMod = EPOLL_CTL_MOD

    /// `EPOLL_CLOEXEC` and `EFD_CLOEXEC`, both defined as `O_CLOEXEC`.
    static let closeOnExec = Int32(O_CLOEXEC)
    /// `EFD_NONBLOCK`, defined as `O_NONBLOCK`.
    static let nonBlocking = Int32(O_NONBLOCK)
    /// `SOCK_NONBLOCK | SOCK_CLOEXEC`, for `socket` and `accept4`.
    static let socketFlags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)

    /// `struct epoll_event` is `{ uint32_t events; uint64_t data; }`, packed on x86-64 (the
    /// kernel kept i386's layout there): the event buffer is read by these offsets.
    static let epollEventSize = MemoryLayout<epoll_event>.stride
    static let epollEventDataOffset = MemoryLayout<epoll_event>.offset(of: \epoll_event.data) ?? 8
}
