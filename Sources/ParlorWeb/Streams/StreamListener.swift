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

    func end() {
        stream.close()
    }

    func receive(_ updates: [ScreenUpdate]) {
        switch updates.count {
        case 0: break
        case 1: stream.send(encoder.event(for: updates[0]))
        default: stream.send(updates.map(encoder.event(for:)))
        }
    }
}
