import Foundation
import LogStore

/// The JSON of network tasks as `tasks --json` and `task --json` print it: the library's
/// `Codable` form (whatever fields it gains), with the enumerations that it stores as numbers
/// (`state`, `taskType`, `fetchType`) written by name, as `messages --json` writes levels.
enum TaskRecord {
    /// One line of NDJSON for a task.
    static func line(_ task: NetworkTaskSummary) throws -> String {
        try named(JSONOutput.line(task), options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Pretty JSON for a task's details.
    static func pretty(_ details: NetworkTaskDetails) throws -> String {
        try named(JSONOutput.pretty(details), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// The names of each numbered enumeration, by the key it is encoded under.
    static let names: [String: [Int: String]] = [
        "state": table(NetworkTaskState.self),
        "taskType": table(NetworkTaskType.self),
        "fetchType": table(NetworkTransactionMetrics.FetchType.self),
    ]

    private static func table<E: RawRepresentable & CaseIterable>(_: E.Type) -> [Int: String]
    where E.RawValue == Int16 {
        Dictionary(uniqueKeysWithValues: E.allCases.map { (Int($0.rawValue), String(describing: $0)) })
    }

    private static func named(_ json: String, options: JSONSerialization.WritingOptions) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        let data = try JSONSerialization.data(withJSONObject: renamed(object), options: options)
        return String(decoding: data, as: UTF8.self)
    }

    /// `value` with every numbered enumeration replaced by its name, at any depth (a details
    /// object holds its summary and its transactions).
    private static func renamed(_ value: Any) -> Any {
        if let array = value as? [Any] { return array.map(renamed) }
        guard let object = value as? [String: Any] else { return value }
        var result: [String: Any] = [:]
        for (key, field) in object {
            if let table = names[key], let number = field as? NSNumber, let name = table[number.intValue] {
                result[key] = name
            } else {
                result[key] = renamed(field)
            }
        }
        return result
    }
}
