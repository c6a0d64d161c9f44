import AsyncHTTPClient
import Foundation
import NIOCore
import ParlorFeeds
import ParlorFeedsHTTP

/// What a bot's webhook answered.
public enum WebhookOutcome: Hashable, Sendable {
    /// 200 with `text/plain` or `text/html`: the bot's reply, as text (HTML made plain).
    case reply(String)
    /// A 2xx with nothing to post.
    case noReply
    /// Not delivered, or refused: why, for the log (never a message's words).
    case failed(String)
}

/// Posts a JSON body to a bot's webhook and reads its answer.
public protocol WebhookDelivering: Sendable {
    func post(_ body: [UInt8], to url: String) async -> WebhookOutcome
}

/// Webhooks over HTTP through the outbound rules feeds follow: a public address Parlor resolved and pinned (loopback
/// only when the policy allows it, for tests), on the policy's ports, no redirects (one could lead anywhere), a
/// bounded answer, and 7 seconds for all of it.
public struct HTTPWebhookDelivery: WebhookDelivering {
    public let policy: AddressPolicy
    public let timeout: Duration
    /// The most bytes of an answer read; a longer reply is cut to what a message holds anyway.
    public static let answerLimit = 64 * 1024

    public init(policy: AddressPolicy, timeout: Duration = .seconds(7)) {
        self.policy = policy
        self.timeout = timeout
    }

    public func post(_ body: [UInt8], to url: String) async -> WebhookOutcome {
        let target: OutboundAddress
        do {
            target = try await OutboundAddress.pinned(url, policy: policy)
        } catch {
            return .failed("address refused: \(error)")
        }
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let milliseconds = Int64(timeout.components.seconds) * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .milliseconds(milliseconds), read: .milliseconds(milliseconds))
        configuration.dnsOverride = [target.host: target.address]
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Parlor webhook")
        request.body = .bytes(ByteBuffer(bytes: body))
        let ready = request
        let outcome: WebhookOutcome
        do {
            // The whole exchange, answer's body included, within the time: a webhook that trickles is cut off.
            outcome = try await withThrowingTaskGroup(of: WebhookOutcome.self) { group in
                group.addTask {
                    let response = try await client.execute(ready, timeout: .milliseconds(milliseconds))
                    let status = Int(response.status.code)
                    let type = response.headers.first(name: "Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                    guard status == 200, type == "text/plain" || type == "text/html" else {
                        _ = try? await response.body.collect(upTo: 4_096)
                        return (200...299).contains(status) ? .noReply : .failed("webhook answered \(status)")
                    }
                    var buffer = try await response.body.collect(upTo: Self.answerLimit)
                    return Self.reply(buffer.readBytes(length: buffer.readableBytes) ?? [], isHTML: type == "text/html")
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return .failed("webhook took longer than \(timeout)")
                }
                let first = try await group.next() ?? .failed("no answer")
                group.cancelAll()
                return first
            }
        } catch {
            outcome = .failed("webhook not reached: \(Swift.type(of: error))")
        }
        try? await client.shutdown()
        return outcome
    }

    /// An answer's bytes as the text of a reply: UTF-8 (repaired), HTML made plain, white space trimmed; nothing
    /// to post when empty.
    public static func reply(_ bytes: [UInt8], isHTML: Bool) -> WebhookOutcome {
        let text = String(decoding: bytes, as: UTF8.self)
        let plain = (isHTML ? HTMLText.plain(text) : text).trimmingCharacters(in: .whitespacesAndNewlines)
        return plain.isEmpty ? .noReply : .reply(plain)
    }
}
