import MicroHTTP

/// Fields on every response Parlor sends: no inline script runs, no other site frames a page, nothing is
/// sniffed into another type, and no URL leaks to other sites in `Referer`.
public enum SecurityHeaders {
    static let contentSecurityPolicy = [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "object-src 'none'",
    ].joined(separator: "; ")

    public static var all: HTTPHeaders {
        [
            "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin",
            "X-Frame-Options": "DENY",
            "Cross-Origin-Opener-Policy": "same-origin",
        ]
    }
}
