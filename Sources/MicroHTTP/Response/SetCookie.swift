/// A `Set-Cookie` header value with its attributes.
public struct SetCookie: Sendable, Equatable {
    /// The `SameSite` attribute.
    public enum SameSite: String, Sendable { case strict = "Strict", lax = "Lax", none = "None" }

    public var name: String
    public var value: String
    public var path: String?
    public var domain: String?
    /// Seconds until expiry; 0 deletes the cookie; nil makes a session cookie.
    public var maxAge: Int?
    public var secure: Bool
    public var httpOnly: Bool
    public var sameSite: SameSite?

    /// Creates a cookie; the defaults suit a session cookie on the whole site.
    public init(
        name: String, value: String, path: String? = "/", domain: String? = nil, maxAge: Int? = nil,
        secure: Bool = false, httpOnly: Bool = true, sameSite: SameSite? = .lax
    ) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// A cookie that tells the browser to forget `name`.
    public static func expired(_ name: String, path: String? = "/") -> SetCookie {
        SetCookie(name: name, value: "", path: path, maxAge: 0)
    }

    /// The header value. Characters a cookie may not hold are dropped from name and value.
    public var headerValue: String {
        var text = "\(Self.token(name))=\(Self.cookieValue(value))"
        if let path { text += "; Path=\(Self.attribute(path))" }
        if let domain { text += "; Domain=\(Self.attribute(domain))" }
        if let maxAge { text += "; Max-Age=\(max(0, maxAge))" }
        if secure || sameSite == SameSite.none { text += "; Secure" }
        if httpOnly { text += "; HttpOnly" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        return text
    }

    private static func token(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains($0) })
    }

    private static func cookieValue(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "," && $0 != ";" && $0 != "\\" })
    }

    private static func attribute(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != ";" })
    }
}
