import Foundation
import LogStore
import Testing

/// `NetworkTransactionMetrics.phases(taskEnd:)`: the timeline `logstore task` and the HTML page
/// both draw.
@Suite struct TransactionPhasesTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)
    static func at(_ milliseconds: Double) -> Date { start.addingTimeInterval(milliseconds / 1000) }

    /// Sent over a new TLS connection; `answered` decides whether a response came.
    static func transaction(answered: Bool) -> NetworkTransactionMetrics {
        NetworkTransactionMetrics(
            fetchType: .networkLoad, request: NetworkRequest(url: URL(string: "https://cache.example.com/get")),
            response: answered ? NetworkResponse(statusCode: 200) : nil, fetchStart: at(0),
            domainLookupStart: at(0), domainLookupEnd: at(2), connectStart: at(2), connectEnd: at(9),
            secureConnectionStart: at(4), secureConnectionEnd: at(9), requestStart: at(9), requestEnd: at(10),
            responseStart: answered ? at(40) : nil, responseEnd: answered ? at(45) : nil)
    }

    @Test func aTimedOutRequestWaitsUntilTheTaskEnds() throws {
        let phases = Self.transaction(answered: false).phases(taskEnd: Self.at(10_009))
        #expect(phases.map(\.kind) == [.dns, .connect, .tls, .request, .waiting])
        let waiting = try #require(phases.last)
        #expect(waiting.start == Self.at(10))
        #expect(waiting.end == Self.at(10_009))
        #expect(abs((waiting.duration ?? 0) - 9.999) < 1e-6)
        #expect(waiting.endsWithoutResponse)
        #expect(phases.dropLast().allSatisfy { !$0.endsWithoutResponse })
    }

    @Test func anAnsweredRequestWaitsForTheFirstByte() {
        let phases = Self.transaction(answered: true).phases(taskEnd: Self.at(50))
        #expect(phases.map(\.kind.name) == ["DNS", "Connect", "TLS", "Request", "Waiting", "Response"])
        // Connect stops where TLS starts: connectEnd includes the handshake.
        #expect(phases[1].end == Self.at(4))
        #expect(phases[4].end == Self.at(40))
        #expect(phases.allSatisfy { !$0.endsWithoutResponse && $0.end != nil })
    }

    @Test func aPendingRequestIsStillWaiting() throws {
        let phases = Self.transaction(answered: false).phases(taskEnd: nil)
        let waiting = try #require(phases.last)
        #expect(waiting.kind == .waiting)
        #expect(waiting.end == nil)
        #expect(!waiting.endsWithoutResponse)
    }

    @Test func aPhaseThatNeverBeganIsLeftOut() {
        var reused = Self.transaction(answered: true)
        reused.domainLookupStart = nil
        reused.domainLookupEnd = nil
        reused.connectStart = nil
        reused.connectEnd = nil
        reused.secureConnectionStart = nil
        reused.secureConnectionEnd = nil
        #expect(reused.phases(taskEnd: Self.at(50)).map(\.kind) == [.request, .waiting, .response])
    }
}
