import Foundation

/// The writer's side of network tasks: task rows, their deduplicated heads and bodies, their
/// transactions and their technical message. Called inside the batch transaction.
extension BatchWriter {
    func insert(_ created: LogStore.Event.NetworkTaskCreated) throws {
        // A NetworkLogger creation's head is prepared with its batch (or here, recorded for
        // its completion when the batch was not prepared).
        let prepared = created.creationHead.head?.head(forCreation: created.request)
            ?? TaskPreparation.PreparedHead(request: created.request)
        let head: Int64? = try storeHead(prepared)
        let url = created.request.url
        try connection.cachedStatement(Tasks.insertCreatedSQL).bindAndRun([
                .text(created.taskID.uuidString), .integer(sessionRowID), .integer(try labelID(for: created.label)),
                .real(created.createdAt.timeIntervalSince1970), .integer(Int64(created.taskType.rawValue)),
                .text(created.request.method.uppercased()), Self.text(url?.absoluteString), Self.text(url?.host?.lowercased()),
                Self.text(url?.path), head.map { .integer($0) } ?? .null, Self.text(created.taskDescription),
                .integer(created.direction.storedValue), nextTaskID.map { .integer($0) } ?? .null,
            ])
        if connection.changes == 0 {
            // A second creation of the same task: its head link was not used.
            if let head { try releaseHead(head) }
        } else {
            nextTaskID = nil
            tasksToIndex.append(connection.lastInsertRowID)
            history?.record(.task, .insert, id: connection.lastInsertRowID)
            if let head { created.creationHead.head?.didStore(rowID: head) }
        }
    }

    func update(_ progress: LogStore.Event.NetworkTaskProgressUpdated) throws {
        let arguments: [DatabaseValue] = [
            .integer(progress.completed), .integer(progress.total), .text(progress.taskID.uuidString),
        ]
        let sql = Tasks.updateProgressSQL
        guard let history else { return try connection.cachedStatement(sql).bindAndRun(arguments) }
        let updated = try connection.cachedStatement(sql + " RETURNING id")
        try updated.bind(arguments)
        defer { updated.reset() }
        while try updated.step() { history.record(.task, .update, id: updated.int64(at: 0)) }
    }

    func insert(_ completed: LogStore.Event.NetworkTaskCompleted, prepared: TaskPreparation.PreparedTask?) throws {
        let prepared = prepared ?? TaskPreparation.prepareHere(completed, bodySizeLimit: bodySizeLimit)
        let preparedRequestHead = prepared.requestHead ?? TaskPreparation.PreparedHead(request: completed.request)
        // A NetworkLogger completion whose request head is its creation's: its task row is
        // usually there, pending, linked to that head. Found first, it keeps that link: nothing
        // is linked again and released.
        var pending: ExistingTask?
        var keptRequestHead: Int64?
        if let creationRow = completed.creationHead.head?.storedRowID(forKey: preparedRequestHead.key),
            let existing = try existingTask(completed.taskID)
        {
            // Completed twice: the first completion stands, and nothing was stored for this one.
            guard existing.state == NetworkTaskState.pending.rawValue else { return }
            pending = existing
            if existing.requestHeadID == creationRow { keptRequestHead = creationRow }
        }
        let requestBodyID = try prepared.requestBody.map { try blobs.store($0).rowID }
        let responseBodyID = try prepared.responseBody.map { try blobs.store($0).rowID }
        var metadata: [String: String] = [:]
        if let image = prepared.image {
            metadata["imageFormat"] = image.format.rawValue
            metadata["imageWidth"] = String(image.width)
            metadata["imageHeight"] = String(image.height)
        }
        let requestHead = try keptRequestHead ?? storeHead(preparedRequestHead)
        let responseHead = try prepared.responseHead.map { try storeHead($0) }
        let state = completed.isFailure ? NetworkTaskState.failure : NetworkTaskState.success
        let url = completed.request.url

        var values: [DatabaseValue] = [
            .integer(sessionRowID), .integer(try labelID(for: completed.label)),
            .real(completed.createdAt.timeIntervalSince1970), .integer(Int64(completed.taskType.rawValue)),
            .integer(Int64(state.rawValue)), .text(completed.request.method.uppercased()),
            Self.text(url?.absoluteString), Self.text(url?.host?.lowercased()), Self.text(url?.path),
            completed.response?.statusCode.map { .integer(Int64($0)) } ?? .null,
            completed.error.map { .integer(Int64($0.code)) } ?? .null, Self.text(completed.error?.domain),
            Self.text(completed.error?.description), Self.text(completed.response?.contentType),
            completed.duration.map { .real($0) } ?? .null, .integer(Int64(completed.metrics?.redirectCount ?? 0)),
            .integer(requestHead), responseHead.map { .integer($0) } ?? .null,
            requestBodyID.map { .integer($0) } ?? .null, responseBodyID.map { .integer($0) } ?? .null,
            .integer(Int64(prepared.requestBodySize)), .integer(prepared.responseBodySize), .integer(prepared.bodyFlags),
            Self.text(completed.taskDescription), Self.text(completed.decodingError),
            metadata.isEmpty ? .null : .text(MetadataJSON.encode(metadata.mapValues { .string($0) })),
            completed.direction.map { .integer($0.storedValue) } ?? .null,
        ]
        // Other completions are mostly new tasks (every `storeRequest`): insert first, and look
        // the task up only when its id is taken. A completion that does not know its direction (nil) is
        // outbound when new, and keeps the direction its creation stored otherwise.
        let row: TaskRow
        if let pending {
            row = .pending(pending)
        } else {
            try Self.kept(&insertCompletedTaskStatement, Tasks.insertCompletedSQL, on: connection).bindAndRun(
                values + [.text(completed.taskID.uuidString), nextTaskID.map { .integer($0) } ?? .null])
            if connection.changes == 1 {
                nextTaskID = nil
                row = .inserted(connection.lastInsertRowID)
            } else {
                guard let existing = try existingTask(completed.taskID),
                    existing.state == NetworkTaskState.pending.rawValue
                else {
                    // Completed twice: the first completion stands; give back this one's links.
                    for head in [requestHead, responseHead].compactMap({ $0 }) { try releaseHead(head) }
                    for body in [requestBodyID, responseBodyID].compactMap({ $0 }) {
                        _ = try blobs.unlink(rowID: body)
                    }
                    return
                }
                row = .pending(existing)
            }
        }
        let taskRowID: Int64
        switch row {
        case .inserted(let rowID):
            taskRowID = rowID
            tasksToIndex.append(rowID)
            history?.record(.task, .insert, id: taskRowID)
        case .pending(let pending):
            // The creation stored a request head already; this completion's replaces it, unless
            // it is that same head, kept.
            if keptRequestHead == nil, let oldHead = pending.requestHeadID { try releaseHead(oldHead) }
            // The update trigger takes the row's old URL out of `task_search`: a creation of
            // this transaction must be in it first.
            try indexInsertedTasks()
            values.append(.integer(pending.rowID))
            try connection.cachedStatement(Tasks.completePendingSQL).bindAndRun(values)
            taskRowID = pending.rowID
            history?.record(.task, .update, id: taskRowID)
        }
        try insertTechnicalMessage(for: completed, taskRowID: taskRowID)
        for (position, transaction) in (completed.metrics?.transactions ?? []).enumerated() {
            try connection.cachedStatement(
                Tasks.insertTransactionSQL
            ).bindAndRun([
                .integer(taskRowID), .integer(Int64(position)), .text(try Self.json(transaction)),
            ])
        }
    }

    /// Indexes the tasks this transaction inserted (and has not indexed yet) in `task_search`, in
    /// one statement (see ``Schema/version13``): at the end of the transaction, and before a
    /// pending task is completed. The rows are read as they are then, so the index holds what a
    /// later `delete` reads from them.
    func indexInsertedTasks() throws {
        guard !tasksToIndex.isEmpty else { return }
        var ids = "["
        ids.reserveCapacity(tasksToIndex.count * 8 + 2)
        for (position, id) in tasksToIndex.enumerated() {
            if position > 0 { ids += "," }
            ids += String(id)
        }
        ids += "]"
        try connection.cachedStatement(Tasks.indexInsertedSQL).bindAndRun([.text(ids)])
        tasksToIndex.removeAll(keepingCapacity: true)
    }

    /// The task's line in the message timeline: label "network" unless set, debug, or error
    /// when it failed, linked by `messages.task_id`. Not counted as a logged message.
    private func insertTechnicalMessage(for task: LogStore.Event.NetworkTaskCompleted, taskRowID: Int64) throws {
        var text = "\(task.request.method.uppercased()) \(task.request.url?.absoluteString ?? "(no URL)")"
        if let status = task.response?.statusCode { text += " \(status)" }
        if let error = task.error { text += " failed: \(error.description)" }
        let message = LogStore.Event.MessageCreated(
            createdAt: task.createdAt, label: task.label, level: task.isFailure ? .error : .debug, message: text,
            metadata: ["taskID": .string(task.taskID.uuidString)], file: "", function: "", line: 0)
        try insert(message, taskRowID: taskRowID)
    }

    /// The row a completion lands in: one it just inserted, or its creation's, pending, to update.
    private enum TaskRow {
        case inserted(Int64)
        case pending(ExistingTask)
    }

    /// A task row found by its uuid: what a completion needs to replace it.
    struct ExistingTask {
        var rowID: Int64
        var state: Int16
        var requestHeadID: Int64?
    }

    private func existingTask(_ id: UUID) throws -> ExistingTask? {
        let statement = try connection.cachedStatement(Tasks.byUUIDSQL)
        statement.bind(id.uuidString, at: 1)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return ExistingTask(
            rowID: statement.int64(at: 0), state: Int16(truncatingIfNeeded: statement.int64(at: 1)),
            requestHeadID: statement.isNull(at: 2) ? nil : statement.int64(at: 2))
    }

    /// Stores a prepared head: links the row this writer stored for the same head recently, when
    /// it still holds that head (another process or a sweep may have removed it), else inserts one.
    private func storeHead(_ head: TaskPreparation.PreparedHead) throws -> Int64 {
        try head.key.withUnsafeBytes { keyBytes in
            if let rowID = recentHeads[head.key] {
                let link = try connection.cachedStatement(TaskHeads.linkSQL)
                link.bind(rowID, at: 1)
                link.bind(keyBytes, at: 2)
                try link.run()
                if connection.changes == 1 { return rowID }
            }
            let insert = try connection.cachedStatement(TaskHeads.insertSQL)
            insert.bind(keyBytes, at: 1)
            insert.bind(head.json, at: 2)
            try insert.run()
            let rowID = connection.lastInsertRowID
            rememberHead(head.key, rowID: rowID)
            return rowID
        }
    }

    /// Drops one link to a head; the last link deletes it.
    func releaseHead(_ rowID: Int64) throws {
        try connection.cachedStatement(TaskHeads.unlinkSQL)
            .bindAndRun([.integer(rowID)])
        try connection.cachedStatement(TaskHeads.deleteUnlinkedSQL)
            .bindAndRun([.integer(rowID)])
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try StoreJSON.compactEncoder.encode(value), as: UTF8.self)
    }

    static func text(_ value: String?) -> DatabaseValue {
        value.map { .text($0) } ?? .null
    }
}
