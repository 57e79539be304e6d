import Foundation

/// The store's directory and manifest, checked (or created) before the database opens.
extension StoreOpener {
    /// Checks (or creates) the store directory and returns its manifest.
    static func prepareDirectory(_ directory: URL, options: LogStore.Options) throws -> Manifest {
        let canCreate = options.contains(.create) && !options.contains(.readonly)
        if !Files.exists(directory) {
            guard canCreate else { throw LogStoreError.fileDoesntExist(directory) }
            try StoreFiles.createDirectory(directory)
            return try createManifest(in: directory)
        }
        guard Files.isDirectory(directory) else {
            throw LogStoreError.storeInvalid(directory, reason: "it is a file, not a store directory")
        }
        if !options.contains(.readonly) { try checkOwner(directory) }
        let manifestURL = directory.appendingPathComponent(Manifest.fileName)
        if !Files.exists(manifestURL) {
            // An empty directory (made by the caller) may become a store; anything else is not ours.
            // One that cannot be listed is reported, never taken for empty. The manifest another
            // process is creating right now (its temporary file) does not count.
            let contents = try Files.directoryEntries(directory)
                .filter { !Files.isAtomicWriteTemporary($0, of: Manifest.fileName) }
            if canCreate, contents.isEmpty { return try createManifest(in: directory) }
            // Another open may have created the store between the first look and the listing:
            // its manifest is then read like any other.
            guard Files.exists(manifestURL) else {
                throw LogStoreError.storeInvalid(directory, reason: "manifest.json is missing")
            }
        }
        let manifest = try Manifest.read(in: directory)
        let database = StoreFiles.databaseURL(in: directory)
        if !Files.exists(database), options.contains(.readonly) {
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is missing")
        }
        try checkDatabaseFile(database, in: directory)
        // A store whose database is gone or empty while its bodies remain lost its database:
        // starting a fresh one would take every body file for an orphan and delete it.
        let isEmpty = !Files.exists(database) || Files.fileSize(database) == 0
        if isEmpty, try BlobStore.hasFiles(in: directory) {
            throw LogStoreError.storeInvalid(
                directory, reason: "logs.sqlite is \(Files.exists(database) ? "empty" : "missing") and blobs/ holds bodies")
        }
        if isEmpty, options.contains(.readonly) {
            // Read-only cannot give it the schema: there is no store to read yet.
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is empty")
        }
        if !options.contains(.readonly), Files.exists(database) { try checkOwner(database) }
        return manifest
    }

    /// The database must be a file of the store's own: a symbolic link would have the store
    /// write (and set owner-only modes on) whatever it points at, and anything else is not SQLite's.
    private static func checkDatabaseFile(_ database: URL, in directory: URL) throws {
        var info = stat()
        guard lstat(database.path, &info) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK:
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is a symbolic link, not a file of the store's own")
        default:
            throw LogStoreError.storeInvalid(directory, reason: "logs.sqlite is not a file")
        }
    }

    /// A store's files are its owner's alone (mode 0600). Root writing another user's store
    /// would leave files (the WAL, bodies) its owner's app could not open again, so root may
    /// only read it. (Any other user is stopped by the modes themselves; a directory shared on
    /// purpose, group-writable, stays usable by its group.)
    private static func checkOwner(_ url: URL) throws {
        let user = geteuid()
        guard user == 0 else { return }
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_uid != user else { return }
        throw LogStoreError.fileSystem(
            url,
            operation: "open for writing as root (it is owned by uid \(info.st_uid)\(userName(info.st_uid)), and files root made would lock its owner out); open it read-only or as its owner",
            errno: EPERM)
    }

    /// ` (name)` for a user the system knows, or nothing.
    private static func userName(_ uid: uid_t) -> String {
        // getpwuid_r: the name points into `buffer`, read before the buffer goes.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            guard let base = buffer.baseAddress, getpwuid_r(uid, &entry, base, buffer.count, &found) == 0, found != nil,
                let name = entry.pw_name
            else { return "" }
            return " (\(String(cString: name)))"
        }
    }

    private static func createManifest(in directory: URL) throws -> Manifest {
        try Manifest.new().create(in: directory)
    }
}
