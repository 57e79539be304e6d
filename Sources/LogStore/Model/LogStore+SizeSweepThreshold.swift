import Foundation

// The threshold lives with the configuration rather than in Sweep/: the writer's size watch
// (Ingest/) checks against it after commits, and Ingest does not depend on Sweep.
extension LogStore.Configuration {
    /// The share of ``sizeLimit`` at which the sweep trims for size: 0.85, so what is logged
    /// while a size sweep runs still fits under the limit. Fixed; shown by `logstore sweep`.
    public static let sizeSweepThresholdRatio = 0.85

    /// The size at which a sweep trims for size (``sizeSweepThresholdRatio`` of ``sizeLimit``).
    var sizeSweepThreshold: Int64 {
        Int64(Double(sizeLimit) * Self.sizeSweepThresholdRatio)
    }
}
