import Foundation
import OutboundHTTP
import ParlorFeeds

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

/// Webhooks over HTTP through the outbound rules (``OutboundClient``): a public address Parlor resolved and pinned
/// (loopback only when the policy allows it, for tests), on the policy's ports, no redirects (one could lead
/// anywhere), a bounded answer, and 7 seconds for all of it (a webhook that trickles is cut off).
public struct HTTPWebhookDelivery: WebhookDelivering {
    let client: OutboundClient
    /// The most bytes of an answer read (more than a message holds); a longer one is refused.
    public static let answerLimit = 64 * 1024

    public init(policy: AddressPolicy, timeout: Duration = .seconds(7)) {
        client = OutboundClient(policy: policy, timeout: timeout, byteLimit: Self.answerLimit)
    }

    public var policy: AddressPolicy { client.policy }
    public var timeout: Duration { client.timeout }

    public func post(_ body: [UInt8], to url: String) async -> WebhookOutcome {
        let request = OutboundRequest(.post, url, headers: [("Content-Type", "application/json"), ("User-Agent", "Parlor webhook")], body: body)
        let response: OutboundResponse
        do {
            response = try await client.send(request)
        } catch .timedOut {
            return .failed("webhook took longer than \(client.timeout)")
        } catch .tooLarge {
            return .failed("webhook answered more than \(Self.answerLimit) bytes")
        } catch {
            return error.isRefusedAddress ? .failed("address refused: \(error)") : .failed("webhook not reached: \(error)")
        }
        let type = response.mediaType
        guard response.status == 200, type == "text/plain" || type == "text/html" else {
            return response.isSuccess ? .noReply : .failed("webhook answered \(response.status)")
        }
        return Self.reply(response.body, isHTML: type == "text/html")
    }

    /// An answer's bytes as the text of a reply (``HTMLText/answer(_:isHTML:)``); nothing to post when empty.
    public static func reply(_ bytes: [UInt8], isHTML: Bool) -> WebhookOutcome {
        HTMLText.answer(bytes, isHTML: isHTML).map(WebhookOutcome.reply) ?? .noReply
    }
}
