/// The metadata JSON of a batch's messages, written by ``BatchPreparer`` with the batch, so that
/// when the batch is prepared in the background the writer thread, the bottleneck under load,
/// only binds it (the encoding, with the reference counting of walking each dictionary, was
/// ~4 % of that thread in the profile).
struct PreparedMetadata: Sendable {
    /// Every message's JSON, one after the other.
    private var bytes: [UInt8] = []
    /// `ends[i - offset]`: where the JSON of event `i` ends in ``bytes`` (it starts where the
    /// previous one ends); an empty range means no metadata (NULL).
    private var ends: [Int] = []
    /// Events put in front of the batch after it was prepared (a failed commit's, retried):
    /// theirs is not here, the writer encodes it.
    private var offset = 0

    init() {}

    /// Encodes the metadata of every message of `events` (keys sorted, capped at
    /// ``LogStore/maxMetadataBytes``, exactly as the writer would).
    init(_ events: [LogStore.Event?]) {
        ends.reserveCapacity(events.count)
        for event in events {
            if case .messageStored(let message)? = event {
                Self.append(message.metadata, to: &bytes)
            }
            ends.append(bytes.count)
        }
    }

    /// Appends the JSON of `metadata` (nothing for none or empty) to `output`, cut to
    /// ``LogStore/maxMetadataBytes``.
    static func append(_ metadata: LogStore.Metadata?, to output: inout [UInt8]) {
        guard let metadata, !metadata.isEmpty else { return }
        let start = output.count
        MetadataJSON.write(metadata, to: &output)
        let cut = output[start...].withUnsafeBytes {
            SizeCap.truncatedMetadata($0, limit: LogStore.maxMetadataBytes)
        }
        if let cut {
            output.removeSubrange(start...)
            output.append(contentsOf: cut)
        }
    }

    /// Shifts the indexes for `count` events put in front of the batch.
    mutating func prepend(count: Int) {
        offset += count
    }

    /// Binds the prepared JSON of event `index` (NULL when it has no metadata) to parameter
    /// `parameter` of `statement`; `false` when none was prepared for it.
    func bind(eventAt index: Int, to statement: Statement, at parameter: Int32) -> Bool {
        let slot = index - offset
        guard slot >= 0, slot < ends.count else { return false }
        let start = slot == 0 ? 0 : ends[slot - 1]
        let end = ends[slot]
        if start == end {
            statement.bindNull(at: parameter)
        } else {
            bytes.withUnsafeBytes { statement.bindText(UnsafeRawBufferPointer(rebasing: $0[start..<end]), at: parameter) }
        }
        return true
    }
}
