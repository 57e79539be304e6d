public import Foundation

extension LogStore {
    /// One run of a process that wrote to the store, with the machine as it was at its start.
    public struct Session: Sendable, Codable, Equatable, Identifiable {
        /// The session's id.
        public var id: UUID
        /// When the store was opened.
        public var startDate: Date
        /// The process: name, version, pid, arguments, memory.
        public var app: AppSnapshot
        /// The machine: OS, kernel, CPU, memory, disk, network, product name.
        public var host: HostSnapshot
        /// What changed on the host since the session before this one (a new OS or kernel
        /// version: APIs change under you); empty when nothing did or there was no earlier session.
        public var hostChanges: [String]
    }
}
