import Synchronization

/// The request head a ``NetworkLogger`` task's creation stored, shared by its creation and
/// completion events (the same object in both): the usual completion carries the request its
/// creation had, and must not encode, hash, link and release that head a second time.
///
/// The creation's side records its request as the writer stores it (redacted, passed through
/// `willHandleEvent`) once, where it is prepared. The completion's request, redacted and passed
/// through the hook on its own, is then compared with it over the head's fields alone
/// (``HeadJSON/isSameHead(_:_:)``): equal fields encode to the same JSON, so to the same key;
/// any difference (a hook that rewrote one of the two, a header added) makes the completion
/// prepare and store its own head, as a completion without a creation does.
final class CreationHead: Sendable {
    private struct Recorded {
        /// Without its body: only the head's fields are compared, and the body need not live on.
        var request: NetworkRequest
        var head: TaskPreparation.PreparedHead
        /// The `task_heads` row the creation linked, once the writer inserted its task row.
        var rowID: Int64?
    }

    private let recorded = Mutex<Recorded?>(nil)

    /// The head of the creation's request: prepared and recorded on the first call (the batch
    /// preparation's, or the writer's when the creation's batch was not prepared), then the
    /// recorded one. Only the creation this object was made for calls it.
    func head(forCreation request: NetworkRequest) -> TaskPreparation.PreparedHead {
        if let head = recorded.withLock({ $0?.head }) { return head }
        // Encoded and hashed outside the lock; the creation is prepared in one place at a time.
        let head = TaskPreparation.PreparedHead(request: request)
        var headOnly = request
        headOnly.body = nil
        return recorded.withLock { recorded in
            if let earlier = recorded { return earlier.head }
            recorded = Recorded(request: headOnly, head: head)
            return head
        }
    }

    /// The creation's head when `request` (the completion's) has the same head; nil when it
    /// differs or the creation was not prepared (dropped, or left out by the hook).
    func head(matching request: NetworkRequest) -> TaskPreparation.PreparedHead? {
        recorded.withLock { recorded in
            guard let recorded, HeadJSON.isSameHead(recorded.request, request) else { return nil }
            return recorded.head
        }
    }

    /// The writer inserted the creation's task row, linked to head row `rowID`.
    func didStore(rowID: Int64) {
        recorded.withLock { $0?.rowID = rowID }
    }

    /// The head row the creation's task row links, when the creation's head has `key`.
    func storedRowID(forKey key: SHA1.Digest) -> Int64? {
        recorded.withLock { recorded in
            guard let recorded, recorded.head.key == key else { return nil }
            return recorded.rowID
        }
    }
}

extension CreationHeadLink {
    /// The creation's ``CreationHead``, when the network logger made one.
    var head: CreationHead? { cache as? CreationHead }

    init(head: CreationHead?) {
        self.init(cache: head)
    }
}
