/// Reads on a store's database, each on a connection of its own for its duration: what the
/// layers above the database need of an open store to read it, and no more.
protocol DatabaseReading: Sendable {
    /// Runs `body` on a read connection (or the writer's, where no other can open) and returns
    /// its value; failures come out as the store reports them.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T
}
