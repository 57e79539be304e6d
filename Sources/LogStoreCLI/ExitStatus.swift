import Foundation
import LogStore

/// The statuses `logstore` exits with: a small set a script can branch on, the last three from
/// BSD's `sysexits.h` (which shells and `systemd` already know).
enum ExitStatus {
    /// The work was done.
    static let success: Int32 = 0
    /// The work failed (an invalid store, a write error, anything not below).
    static let failure: Int32 = 1
    /// `EX_USAGE`: an unknown command or option, a missing or malformed value.
    static let usage: Int32 = 64
    /// `EX_NOINPUT`: the store, archive, task or history author (`history --retire`) named does
    /// not exist, or the directory of the file to write (`export -o`).
    static let notFound: Int32 = 66
    /// `EX_TEMPFAIL`: another process held the store busy past the wait; trying again may work.
    static let busy: Int32 = 75

    /// Every status with its meaning, as `logstore --help` lists them.
    static let all: [(code: Int32, meaning: String)] = [
        (success, "success"),
        (failure, "the work failed (an invalid store, a write error, ...)"),
        (usage, "usage error: an unknown command or option, a missing or malformed value"),
        (notFound, "not found: no store, archive, task, history author or output directory at what was named"),
        (busy, "busy: another process held the store locked; try again"),
    ]
}

/// An error a command threw, as the line `logstore` prints and the status it exits with:
/// what went wrong, then what to do next.
struct Failure {
    var message: String
    var status: Int32

    /// - Parameters:
    ///   - error: what the command threw (not a ``UsageError``, handled apart).
    ///   - storePath: the store or archive the command names (its first argument), to tell a
    ///     missing store from any other missing path.
    init(_ error: any Error, storePath: String?) {
        switch error {
        case let failure as CommandFailure:
            self.init(message: failure.description, status: failure.status)
        case let error as LogStoreError:
            if error.kind == .fileDoesntExist, let url = error.url {
                if let storePath, URL(fileURLWithPath: storePath).standardized.path == url.standardized.path {
                    self.init(message: Self.noStore(url.path), status: ExitStatus.notFound)
                } else {
                    // Another path the work needed (the library says "store" for every missing
                    // path): name it for what it is not known to be.
                    self.init(message: "\(Format.escaped(url.path)) does not exist", status: ExitStatus.notFound)
                }
            } else {
                self.init(error)
            }
        default:
            self.init(message: String(describing: error), status: ExitStatus.failure)
        }
    }

    /// The error of a store or archive that is not where the command line says: for an
    /// archive's path (`*.lsarchive`, or anything `open` is given), how to write one; for a
    /// store's, how to make a demo store there.
    static func noStore(_ path: String, isArchive: Bool = false) -> String {
        let quoted = Format.escaped(Format.shellQuoted(path))
        if isArchive || URL(fileURLWithPath: path).pathExtension.lowercased() == "lsarchive" {
            return "no archive at \(Format.escaped(path)): check the path, or write one "
                + "with 'logstore export <store> -o \(quoted)'"
        }
        return "no store or archive at \(Format.escaped(path)): check the path, or create a demo store "
            + "with 'logstore demo \(quoted)'"
    }

    init(message: String, status: Int32) {
        self.message = message
        self.status = status
    }

    private init(_ error: LogStoreError) {
        if error.kind == .storeInvalid, let url = error.url, let reason = error.reason {
            self.init(
                message: "\(Format.escaped(url.path)) is not a store LogStore can open: \(Format.escaped(reason)); "
                    + "give a *.logstore directory or a *.lsarchive file",
                status: ExitStatus.failure)
        } else if error.kind == .unsupportedVersion {
            self.init(
                message: "\(Format.escaped(error.description)); a newer logstore reads it (logstore --version prints this one's)",
                status: ExitStatus.failure)
        } else if error.databaseError?.isBusy == true {
            self.init(
                message: "\(Format.escaped(error.description)): another process holds the store busy; try again in a moment",
                status: ExitStatus.busy)
        } else {
            self.init(message: Format.escaped(error.description), status: ExitStatus.failure)
        }
    }
}
