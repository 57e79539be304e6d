/// Bounds on what opening an archive may cost, whatever the archive claims: it comes from
/// outside and may be damaged or crafted.
public struct ArchiveLimits: Sendable, Hashable {
    /// The most bytes the archive's database may take once extracted (plus its bodies, read
    /// lazily); a larger claim is refused before anything is written. Default 64 GiB. Extraction
    /// also checks that the temporary directory's volume has room.
    public var maximumContentSize: Int64
    /// The longest info record accepted (bytes of JSON). Default 64 MiB.
    public var maximumInfoSize: Int
    /// The largest single body accepted, as stored. Default 256 MiB.
    public var maximumBodySize: Int

    /// Creates limits; the defaults suit archives of any store this library writes.
    public init(maximumContentSize: Int64 = 64 << 30, maximumInfoSize: Int = 64 << 20, maximumBodySize: Int = 256 << 20) {
        self.maximumContentSize = maximumContentSize
        self.maximumInfoSize = maximumInfoSize
        self.maximumBodySize = maximumBodySize
    }
}
