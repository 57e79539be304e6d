import Foundation
import LogStore
import Testing

/// The process-wide store. One test only touches `shared`: it is global to the test process.
@Suite("Shared store")
struct SharedStoreTests {
    @Test func defaultLocationFollowsXDG() {
        let state = LogStore.defaultStoreURL(appName: "billing", environment: ["XDG_STATE_HOME": "/var/state", "HOME": "/home/ann"])
        #expect(state.path == "/var/state/billing/logs.logstore")
        let home = LogStore.defaultStoreURL(appName: "billing", environment: ["HOME": "/home/ann"])
        #expect(home.path == "/home/ann/.local/state/billing/logs.logstore")
        // A relative XDG_STATE_HOME is invalid by the specification and ignored.
        let relative = LogStore.defaultStoreURL(appName: "billing", environment: ["XDG_STATE_HOME": "state", "HOME": "/home/ann"])
        #expect(relative.path == "/home/ann/.local/state/billing/logs.logstore")
        #expect(LogStore.defaultStoreURL(appName: "../x", environment: ["HOME": "/h"]).path == "/h/.local/state/logstore/logs.logstore")
    }

    @Test func onlyTheFirstBootstrapTakesEffect() async throws {
        try await withTemporaryDirectory { directory in
            let first = try await LogStore(storeURL: directory.appendingPathComponent("a.logstore"), options: [.create])
            let second = try await LogStore(storeURL: directory.appendingPathComponent("b.logstore"), options: [.create])
            #expect(LogStore.bootstrap(first))
            #expect(!LogStore.bootstrap(second))
            #expect(LogStore.shared === first)
            // The default bootstrap hands back the store already shared instead of opening another.
            #expect(try await LogStore.bootstrapDefault(appName: "never-opened") === first)
            // Closing the shared store stops sharing it: nothing keeps handing out a closed store,
            // and a later bootstrap takes effect.
            try await first.close()
            #expect(LogStore.shared == nil)
            #expect(LogStore.bootstrap(second))
            #expect(LogStore.shared === second)
            try await second.close()
            #expect(LogStore.shared == nil)
        }
    }
}
