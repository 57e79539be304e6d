import Glibc
import Testing

@testable import LogStore

// The one entry point for libc calls that fail with -1 and errno: the EINTR retry and the
// errno capture are tested here once, rather than at each call.
@Suite struct SystemCallTests {
    @Test func anInterruptedCallIsMadeAgain() {
        var calls = 0
        let result = SystemCall.valueOrErrno { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(calls == 3)
        #expect(result == .success(7))
    }

    @Test func closeIsNotRetriedOnInterrupt() {
        var calls = 0
        let error = SystemCall.errnoOf(retryingOnInterrupt: false) {
            calls += 1
            errno = EINTR
            return -1
        }
        #expect(calls == 1)
        #expect(error == Errno(code: EINTR))
    }

    @Test func aFailureCarriesItsErrno() {
        let result = SystemCall.valueOrErrno { open("/nonexistent-\(UInt64.random(in: 0 ... .max))", O_RDONLY) }
        #expect(result == .failure(Errno(code: ENOENT)))
    }
}
