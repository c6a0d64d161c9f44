import MicroHTTP
import ParlorEvents
import ParlorLive

/// An open page, fed through its event stream.
final class StreamListener: Listener {
    let stream: EventStream
    let encoder: StreamEncoder

    init(stream: EventStream, encoder: StreamEncoder) {
        self.stream = stream
        self.encoder = encoder
    }

    func receive(_ update: ScreenUpdate) {
        stream.send(encoder.event(for: update))
    }
}
