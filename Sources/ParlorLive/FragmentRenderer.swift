import ByteOutput
import ParlorTemplates
import ParlorViews
import Synchronization

/// Renders fragments into stream envelopes with the current templates, and counts how often it does:
/// the measure of how well fan-out shares work between pages.
final class FragmentRenderer: Sendable {
    let templates: @Sendable () -> TemplateSet
    let encoding: (any UpdateEncoding)?
    let renders: Atomic<Int>

    init(templates: @escaping @Sendable () -> TemplateSet, encoding: (any UpdateEncoding)?) {
        self.templates = templates
        self.encoding = encoding
        renders = Atomic(0)
    }

    func update(_ action: StreamAction, _ target: String, _ fragment: Fragment?) -> ScreenUpdate {
        let set = templates()
        let html: String
        switch fragment {
        case .none: html = ""
        case .chatList(let model): html = render(model, set)
        case .chatListItem(let model): html = render(model, set)
        case .conversationHeader(let model): html = render(model, set)
        case .messages(let model): html = render(model, set)
        case .daySection(let model): html = render(model, set)
        case .messageCell(let model): html = render(model, set)
        case .badge(let model): html = render(model, set)
        case .toast(let model): html = render(model, set)
        case .feedList(let model): html = render(model, set)
        case .typing(let model): html = render(model, set)
        case .presence(let model): html = render(model, set)
        case .reactions(let model): html = render(model, set)
        }
        let envelope = set.render(StreamEnvelopeViewModel(action: action.rawValue, target: target, html: html), capacity: html.utf8.count + 128)
        let update = ScreenUpdate(action: action, target: target, fragment: fragment, html: envelope)
        guard let encoding else { return update }
        return ScreenUpdate(action: action, target: target, fragment: fragment, html: envelope, encoded: encoding.encode(update))
    }

    /// Updates rendered once per distinct value for the length of one event's fan-out: in a room, the members
    /// who see the same thing (the same time zone and language, not the sender, not named) share one
    /// rendering of a cell or a row instead of one each.
    final class Memo {
        private struct Key: Hashable {
            let action: StreamAction
            let target: String
            let fragment: Fragment?
        }

        private let renderer: FragmentRenderer
        private var made: [Key: ScreenUpdate] = [:]
        private var cells: [CellVariant: [ScreenUpdate]] = [:]
        private var rows: [RowVariant: [ScreenUpdate]] = [:]

        init(_ renderer: FragmentRenderer) {
            self.renderer = renderer
        }

        func update(_ action: StreamAction, _ target: String, _ fragment: Fragment?) -> ScreenUpdate {
            let key = Key(action: action, target: target, fragment: fragment)
            if let known = made[key] { return known }
            let update = renderer.update(action, target, fragment)
            made[key] = update
            return update
        }

        /// What `make` gives for `variant` (everything a viewer's copy depends on), made once: a member who
        /// shares the variant of someone before them costs a lookup, not a view model and a rendering.
        func updates(for variant: CellVariant, _ make: () -> [ScreenUpdate]) -> [ScreenUpdate] {
            if let known = cells[variant] { return known }
            let made = make()
            cells[variant] = made
            return made
        }

        func updates(for variant: RowVariant, _ make: () -> [ScreenUpdate]) -> [ScreenUpdate] {
            if let known = rows[variant] { return known }
            let made = make()
            rows[variant] = made
            return made
        }
    }

    private func render<Model: Renderable>(_ model: Model, _ set: TemplateSet) -> String {
        renders.add(1, ordering: .relaxed)
        return set.render(model).string
    }
}
