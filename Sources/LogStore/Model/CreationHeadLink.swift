/// How a task's creation event holds the work the writer did for its request head (a
/// `CreationHead`, which the ingestion layer defines): beside the event's value, not in it.
/// Events compare equal and encode the same whatever their links: a link is a cache of work
/// done, not something the event says.
struct CreationHeadLink: Sendable, Equatable {
    /// The cache, typed by the layer that fills it.
    var cache: (any AnyObject & Sendable)?

    static func == (_: CreationHeadLink, _: CreationHeadLink) -> Bool { true }
}
