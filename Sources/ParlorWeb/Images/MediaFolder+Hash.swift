import ParlorImages

extension MediaFolder {
    /// The folder at `path`, its files named by their BLAKE2b hash.
    public init(path: String) {
        self.init(path: path, contentHash: { Sodium.hash(bytes: $0) })
    }
}
