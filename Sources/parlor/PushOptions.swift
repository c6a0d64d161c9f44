import ArgumentParser

/// How `parlor serve` sends Web Push notifications.
struct PushOptions: ParsableArguments {
    @Option(name: .customLong("push-port"), help: "Port a push service may be reached on (repeatable; default 443).")
    var pushPorts: [Int] = []

    @Flag(help: "Let pushes go to loopback addresses, over plain http too (for tests; private and link-local addresses stay refused).")
    var pushAllowLoopback = false

    @Option(help: "Who runs this Parlor, told to push services with each push: mailto:someone@example.org or an https address.")
    var pushContact = "mailto:parlor@localhost"

    @Option(help: "Seconds after a person's last page closed until others see them offline (away until then).")
    var presenceOfflineAfter: Double = 60

    @Option(help: "Seconds between this instance's reports of who is here, which the others count for three times as long.")
    var presenceRefresh: Double = 60

    @Flag(help: "Make a new push key at start: every browser must turn notifications on again (its subscription is removed).")
    var rotatePushKey = false

    func validate() throws {
        guard presenceOfflineAfter >= 1, presenceOfflineAfter <= 3_600 else { throw ValidationError("--presence-offline-after is 1 to 3600 seconds.") }
        guard presenceRefresh >= 1, presenceRefresh <= 60 else { throw ValidationError("--presence-refresh is 1 to 60 seconds.") }
        guard pushPorts.allSatisfy({ (1...65_535).contains($0) }) else { throw ValidationError("A push port is between 1 and 65535.") }
        guard pushContact.hasPrefix("mailto:") || pushContact.hasPrefix("https://"), pushContact.utf8.count <= 200,
              pushContact.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { throw ValidationError("--push-contact is mailto:… or https://…, without spaces.") }
    }
}
