/// Told of every answered request, after its response is queued: for metrics. Called on the connection's
/// thread, so it must be quick and must not block.
public protocol RequestObserver: Sendable {
    /// `route` is the pattern that matched ("/rooms/{id}"), or "unmatched": never the raw path, so labels
    /// stay few whatever paths people ask for.
    func answered(method: HTTPMethod, route: String, status: Int, seconds: Double)
}
