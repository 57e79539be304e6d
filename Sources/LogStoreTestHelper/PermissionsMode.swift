// `LogStoreTestHelper permissions <store> <count> <archive>`: under umask(0), the most permissive
// there is, opens the store, logs `count` messages and as many tasks with large bodies (so files
// appear in `blobs/`), exports an archive to `<archive>`, then prints "ready" and keeps the store
// open (its WAL and shared memory exist) until its standard input ends; then closes and exits.
// umask is process-wide: set here, in a child, it cannot change the modes of files that tests
// running in parallel in the test process create.
import Foundation
import Glibc
import LogStore

func runPermissionsMode(arguments: [String]) async -> Never {
    guard arguments.count == 5, let count = Int(arguments[3]) else {
        FileHandle.standardError.write(Data("usage: LogStoreTestHelper permissions <store> <count> <archive>\n".utf8))
        exit(64)
    }
    umask(0)
    do {
        let store = try await LogStore(storeURL: URL(fileURLWithPath: arguments[2]), options: [.create])
        let url = URL(string: "https://example.com/upload")
        var generator = SystemRandomNumberGenerator()
        for index in 0..<count {
            store.storeMessage(label: "child", level: .info, message: "message \(index)")
            // Random bytes do not compress: each body stays past the inline limit, so it is a file.
            let body = Data((0..<(32 * 1024)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            if let url {
                store.storeRequest(
                    NetworkRequest(url: url, method: "POST"), response: NetworkResponse(url: url, statusCode: 200),
                    error: nil, data: body)
            }
        }
        try await store.flush()
        _ = try await store.export(to: URL(fileURLWithPath: arguments[4]))
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        // The test looks at the files now; it ends our standard input when it is done.
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try await store.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("permissions: \(error)\n".utf8))
        exit(1)
    }
}
