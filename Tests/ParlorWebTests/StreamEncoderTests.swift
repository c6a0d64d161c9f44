import ByteOutput
import ParlorEvents
import ParlorLive
import Testing
@testable import MicroHTTP
@testable import ServerSentEvents
@testable import ParlorWeb

/// Each live update is encoded once, with its own id, and held in the ring of the server that serves the pages.
@Suite struct StreamEncoderTests {
    func update(_ html: String) -> ScreenUpdate {
        ScreenUpdate(action: .replace, target: "t", fragment: nil, html: OutputBuffer(Array(html.utf8)))
    }

    @Test func updatesAreSharedInTheServersRingWithRisingIds() throws {
        let ring = EventRing(capacity: 4)
        let encoder = StreamEncoder(ring: ring)
        let first = encoder.event(for: update("<p>one</p>"))
        let second = encoder.event(for: update("<p>two</p>"))
        #expect(first.sharing?.ring === ring && second.sharing?.ring === ring)
        let ids = [first, second].map { event in
            String(decoding: event.bytes, as: UTF8.self).split(separator: "\n").first.map(String.init)
        }
        #expect(ids == ["id: \(encoder.run)-1", "id: \(encoder.run)-2"])
        #expect(String(decoding: second.bytes, as: UTF8.self).hasSuffix("data: <p>two</p>\n\n"))
    }

    @Test func anUpdateEncodedWhenRenderedIsSentAsItIs() throws {
        let encoder = StreamEncoder(ring: EventRing(capacity: 4))
        let rendered = update("<p>once</p>")
        let encoded = encoder.encode(rendered)
        let kept = ScreenUpdate(action: rendered.action, target: rendered.target, fragment: nil, html: rendered.html, encoded: encoded)
        #expect(encoder.event(for: kept).sharing?.ticket == encoded.sharing?.ticket, "not encoded again")
    }
}
