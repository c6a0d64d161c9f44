/// The updates one event has for each page, gathered while it is applied and handed to each page together:
/// a page of a room gets its new cell, its list's row and its badge in one stream write instead of three.
final class Outbox {
    private var order: [ObjectIdentifier] = []
    private var waiting: [ObjectIdentifier: (listener: any Listener, updates: [ScreenUpdate])] = [:]

    func add(_ updates: [ScreenUpdate], to page: ListenerRegistry.Entry) {
        guard !updates.isEmpty else { return }
        let id = ObjectIdentifier(page.listener)
        if waiting[id] == nil {
            order.append(id)
            waiting[id] = (page.listener, updates)
        } else {
            waiting[id]?.updates += updates
        }
    }

    /// Hands every page what it gathered, in the order they were added, and starts empty again.
    func send() {
        for id in order {
            if let batch = waiting[id] { batch.listener.receive(batch.updates) }
        }
        order.removeAll(keepingCapacity: true)
        waiting.removeAll(keepingCapacity: true)
    }
}
