/// Checks on a decoded request path before it is routed.
enum RequestPath {
    /// Why `path` is refused, or nil when it is acceptable.
    static func problem(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "The address must start with /." }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) where segment == ".." || segment == "." {
            return "The address may not contain . or .. segments."
        }
        return nil
    }
}
