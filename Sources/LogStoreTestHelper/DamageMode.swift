// A writer whose database is damaged under it (DamageReportingTests).
//
//     LogStoreTestHelper damage <store> <count> <damage-script> close|exit
//
// Logs `count` messages (policy `.waitForSpace`, as the demo does) and flushes, then runs
// `<damage-script> <store>/logs.sqlite` (another process damages the database's pages and
// commits, so this writer reads them afresh), then keeps logging for 2 s, measuring the writer
// thread's CPU time over those 2 s. Then closes the store (`close`) or ends without closing, the
// exit drain's case (`exit`). Prints one line:
//     result damageReports=N reports=N lastKind=K flushFailed=B writerCPUms=N loggedAfter=N info=K closeMs=N
import Foundation
import Glibc
import LogStore
import Synchronization

func runDamageMode(arguments: [String]) async -> Never {
    guard arguments.count == 6, let count = Int(arguments[3]), ["close", "exit"].contains(arguments[5]) else {
        FileHandle.standardError.write(Data("usage: LogStoreTestHelper damage <store> <count> <damage-script> close|exit\n".utf8))
        exit(64)
    }
    let store = URL(fileURLWithPath: arguments[2])
    let reports = Mutex<[LogStoreError]>([])
    var configuration = LogStore.Configuration()
    configuration.overflowPolicy = .waitForSpace
    configuration.saveInterval = .milliseconds(20)
    configuration.onWriteError = { error in reports.withLock { $0.append(error) } }
    do {
        let logStore = try await LogStore(storeURL: store, options: [.create], configuration: configuration)
        for index in 0..<count {
            logStore.storeMessage(label: "before", level: .info, message: "before \(index)", metadata: ["i": "\(index)"])
        }
        try await logStore.flush()
        // Run by python3, not executed itself: a file just written may still be open in another
        // child the test spawned meanwhile, and executing it would fail with ETXTBSY.
        let status = runCommand(["python3", arguments[4], store.appendingPathComponent("logs.sqlite").path])
        guard status == 0 else {
            say("error: the damage script failed (status \(status))")
            exit(1)
        }

        // Logging goes on: each call returns at once, whatever the writer meets.
        let cpuBefore = writerThreadCPUMilliseconds()
        let start = ContinuousClock.now
        var loggedAfter = 0
        while ContinuousClock.now - start < .seconds(2) {
            for index in 0..<100 {
                logStore.storeMessage(label: "after", level: .info, message: "after \(loggedAfter + index)")
            }
            loggedAfter += 100
            try await Task.sleep(for: .milliseconds(1))
        }
        let cpu = writerThreadCPUMilliseconds() - cpuBefore
        var flushFailed = false
        do { try await logStore.flush() } catch { flushFailed = true }
        let reported = reports.withLock { $0 }
        let damageReports = reported.filter { "\($0)".contains("damaged") }.count
        var fields = "damageReports=\(damageReports) reports=\(reported.count) lastKind=\(reported.last.map { "\($0.kind)" } ?? "none")"
        fields += " flushFailed=\(flushFailed) writerCPUms=\(cpu) loggedAfter=\(loggedAfter)"
        // Reading the damaged store fails too, as damage.
        do {
            _ = try await logStore.info()
            fields += " info=ok"
        } catch let error as LogStoreError {
            fields += " info=\(error.kind)"
        }
        if arguments[5] == "close" {
            let closing = ContinuousClock.now
            do { try await logStore.close() } catch {}
            fields += " closeMs=\(Int((ContinuousClock.now - closing) / .milliseconds(1)))"
        }
        for report in reported { say("report: \(report)") }
        say("result \(fields)")
        exit(0)
    } catch {
        say("error: \(error)")
        exit(1)
    }
}

/// Runs a command to its end; its exit status (-1 when it could not start).
private func runCommand(_ arguments: [String]) -> Int32 {
    var pid: pid_t = 0
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    guard posix_spawnp(&pid, arguments[0], nil, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status >> 8) & 0xff
}

/// The CPU time (user and system) of this process's `logstore-writer` thread so far.
private func writerThreadCPUMilliseconds() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    for task in tasks {
        let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        guard comm.hasPrefix("logstore-writer"),
            let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { continue }
        // After the name: state, then fields 4…; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
        return (user + system) * 1000 / sysconf(Int32(_SC_CLK_TCK))
    }
    return 0
}
