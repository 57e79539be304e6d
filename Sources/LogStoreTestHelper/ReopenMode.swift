// A store opened and closed again and again in one process (WALCheckpointTests).
//
//     LogStoreTestHelper reopen <store> <rounds>
//
// Each round opens the store (a 16 MB size limit), logs 1,000 messages and closes it. In the
// first round it waits (at most 20 s) until the store's checkpoint thread shows. One store at a
// time in this process, so the threads named `logstore-ckpt` are that store's alone. Prints one
// line:
//     result seen=<checkpoint threads in the first round> left=<after the last round's close> messages=<stored>
import Foundation
import LogStore

func runReopenMode(arguments: [String]) async -> Never {
    guard arguments.count == 4, let rounds = Int(arguments[3]), rounds > 0 else {
        FileHandle.standardError.write(Data("usage: LogStoreTestHelper reopen <store> <rounds>\n".utf8))
        exit(64)
    }
    let url = URL(fileURLWithPath: arguments[2])
    var configuration = LogStore.Configuration()
    configuration.sizeLimit = 16_000_000
    do {
        var seen = 0
        for round in 0..<rounds {
            let store = try await LogStore(storeURL: url, options: [.create], configuration: configuration)
            for index in 0..<1_000 { store.storeMessage(label: "round\(round)", level: .info, message: "\(index)") }
            if round == 0 {
                // The thread names itself once it runs.
                try await waitUntil(seconds: 20) { threads(named: "logstore-ckpt") > 0 }
                seen = threads(named: "logstore-ckpt")
            }
            try await store.close()
        }
        // An ended thread may linger in /proc for a moment after its function returned.
        try await waitUntil(seconds: 5) { threads(named: "logstore-ckpt") == 0 }
        let left = threads(named: "logstore-ckpt")
        // Counted by one more store of its own, whose thread is not counted.
        let store = try await LogStore(storeURL: url, options: [], configuration: configuration)
        let messages = try await store.info().messageCount
        try await store.close()
        print("result seen=\(seen) left=\(left) messages=\(messages)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("reopen: \(error)\n".utf8))
        exit(1)
    }
}
