import Foundation
import Synchronization

/// An exported HTML page opened in a ``ChromiumSession``, for the tests that read or click the
/// page rather than dump it once.
extension ChromiumSession {
    /// Opens `page` at `fragment` as a fresh document (a query that differs on each call makes
    /// it a new load, not a jump within the current one, so the page reads the fragment as a
    /// link's reader would) and waits, bounded, until its script has drawn it.
    func openExport(_ page: URL, fragment: String, seconds: Double = 15) async throws {
        let load = loads.add(1, ordering: .relaxed).newValue
        try await open(page.absoluteString + "?load=\(load)" + (fragment.isEmpty ? "" : "#" + fragment), seconds: seconds)
        try await waitUntil(js: "document.documentElement.getAttribute('data-ready') === 'true'", seconds: seconds)
    }

    /// The text of the element with `id` ("" when it has none).
    func text(ofElement id: String) async throws -> String {
        try await evaluate("document.getElementById('\(id)').textContent") ?? ""
    }
}

/// Counts the pages ``ChromiumSession/openExport(_:fragment:seconds:)`` opened.
private let loads = Atomic<Int>(0)
