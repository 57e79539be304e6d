// Shows why Scripts/tsan-suppressions.txt has its Mutex entries: under ThreadSanitizer on Linux,
// two threads appending to a Synchronization.Mutex<[Int]> get a "Swift access race" report,
// although the final count is right (the lock works; TSan does not see it).
//   swiftc -sanitize=thread -g -module-name tsan_mutex_demo Scripts/tsan-mutex-demo.swift -o /tmp/tsan-mutex-demo && /tmp/tsan-mutex-demo
// It reports (most runs; TSan samples) with no suppressions; with TSAN_OPTIONS=suppressions=<file holding
// `race_top:tsan_mutex_demo*zYuYTXEfU`> it prints 20000 and exits 0.
import Foundation
import Synchronization

final class Counter: Sendable {
    let values = Mutex<[Int]>([])
}

let counter = Counter()
let done = DispatchSemaphore(value: 0)
for thread in 0..<2 {
    Thread {
        for i in 0..<10_000 { counter.values.withLock { $0.append(i + thread) } }
        done.signal()
    }.start()
}
done.wait()
done.wait()
print(counter.values.withLock { $0.count })
