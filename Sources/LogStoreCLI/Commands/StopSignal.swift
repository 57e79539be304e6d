import Dispatch
import Glibc

/// SIGINT or SIGTERM, awaited. From its creation the signals are ignored by the process (so
/// their default action does not kill it before ``wait()``) and handled by dispatch sources
/// instead; their default actions come back once it is cancelled.
final class StopSignal {
    private static let signals = [SIGINT, SIGTERM]
    /// One element per signal (the newest kept until read); ends never.
    let received: AsyncStream<Void>
    private let sources: [any DispatchSourceSignal]

    init() {
        let (received, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.received = received
        sources = Self.signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
    }

    /// Returns once a signal came (at once if one came already), or when the waiting task is
    /// cancelled.
    func wait() async {
        for await _ in received { return }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}
