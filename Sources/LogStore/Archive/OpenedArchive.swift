/// An archive opened as a store: the file (read for its bodies) and the private directory its
/// database was extracted into. Closing closes the one and removes the other.
struct OpenedArchive: Sendable {
    let file: ArchiveFile
    let scratch: ArchiveScratchDirectory

    func close() {
        file.close()
        scratch.remove()
    }
}
