/// A browser's name and system from its `User-Agent`, for the list of browsers that get notifications ("Chrome on
/// Linux"): enough to tell a person's own browsers apart, never the whole header.
enum BrowserLabel {
    static func label(userAgent: String?) -> String {
        guard let agent = userAgent?.prefix(1_024) else { return "A browser" }
        let browser: String? =
            agent.contains("Edg/") ? "Edge"
            : agent.contains("OPR/") ? "Opera"
            : agent.contains("Firefox/") ? "Firefox"
            : agent.contains("Chrome/") || agent.contains("Chromium/") ? "Chrome"
            : agent.contains("Safari/") ? "Safari" : nil
        let system: String? =
            agent.contains("Android") ? "Android"
            : agent.contains("iPhone") || agent.contains("iPad") ? "iOS"
            : agent.contains("Windows") ? "Windows"
            : agent.contains("Mac OS X") || agent.contains("Macintosh") ? "macOS"
            : agent.contains("CrOS") ? "ChromeOS"
            : agent.contains("Linux") ? "Linux" : nil
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return "A browser on \(system)"
        case (nil, nil): return "A browser"
        }
    }
}
