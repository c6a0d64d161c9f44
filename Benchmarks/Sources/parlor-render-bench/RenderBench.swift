// Renders the 50-item chat-list page with Parlor's renderer and with swift-mustache (through
// MustacheParent dictionaries and through reflection) from the same Templates/, and prints µs and
// allocations per page with the ratios. Run with `bash Benchmarks/render`.

import AllocationCounter
import ByteOutput
import Foundation
import Mustache
import ParlorDomain
import ParlorFixtures
import ParlorTemplates
import ParlorViews

@main
enum RenderBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        let templatesPath = arguments.count > 1 ? arguments[1] : "../Templates"
        let rounds = 5

        let page = chatListPage(items: 50)
        let templates = try TemplateLibrary(directory: templatesPath, viewModels: ParlorViewModels.renderable).templates
        let oracle = try await MustacheLibrary(directory: templatesPath)
        let parent = page.mustacheParent

        let ours = templates.render(page).string
        let byParent = oracle.render(parent, withTemplate: ChatsPageViewModel.templateName) ?? ""
        let byMirror = oracle.render(page, withTemplate: ChatsPageViewModel.templateName) ?? ""
        guard ours == byParent, ours == byMirror else {
            print("the engines disagree on the page; not measuring")
            exit(1)
        }
        print("page: \(page.chatList.items.count) chats, \(ours.utf8.count) bytes; \(ProcessInfo.processInfo.activeProcessorCount) cores; best of \(rounds) rounds")

        var buffer = OutputBuffer(capacity: 32 * 1024)
        if arguments.contains("--profile-parlor") {
            // Renders for a few seconds and nothing else, for `perf record`.
            for _ in 0..<30_000 {
                buffer.removeAll()
                templates.render(page, into: &buffer)
            }
            return
        }
        if arguments.contains("--profile-hand") {
            for _ in 0..<30_000 {
                buffer.removeAll()
                HandWrittenChatList.render(page.chatList, into: &buffer)
            }
            return
        }
        let parlor = measure(rounds: rounds, iterations: 20_000) {
            buffer.removeAll()
            templates.render(page, into: &buffer)
        }
        let parlorFresh = measure(rounds: rounds, iterations: 20_000) {
            let out = templates.render(page, capacity: 32 * 1024)
            precondition(out.count > 0)
        }
        let parent1 = measure(rounds: rounds, iterations: 300) {
            precondition(oracle.render(parent, withTemplate: ChatsPageViewModel.templateName) != nil)
        }
        let mirror = measure(rounds: rounds, iterations: 100) {
            precondition(oracle.render(page, withTemplate: ChatsPageViewModel.templateName) != nil)
        }

        // The chat list alone, by Parlor and by hand: how close the renderer comes to the floor.
        let list = page.chatList
        var handBuffer = OutputBuffer(capacity: 32 * 1024)
        HandWrittenChatList.render(list, into: &handBuffer)
        guard handBuffer == templates.render(list) else {
            print("the hand-written chat list differs from the template's; not measuring it")
            exit(1)
        }
        let listParlor = measure(rounds: rounds, iterations: 20_000) {
            buffer.removeAll()
            templates.render(list, into: &buffer)
        }
        let listByHand = measure(rounds: rounds, iterations: 20_000) {
            handBuffer.removeAll()
            HandWrittenChatList.render(list, into: &handBuffer)
        }

        func row(_ name: String, _ result: Measurement) -> String {
            let ratio = result.microseconds / parlor.microseconds
            return name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(format: "%10.2f µs  %8.1f allocs  %8.1fx", result.microseconds, result.allocations, ratio)
        }
        print("renderer".padding(toLength: 44, withPad: " ", startingAt: 0) + "  per page     per page   vs Parlor")
        print(row("Parlor (reused buffer)", parlor))
        print(row("Parlor (new buffer per page)", parlorFresh))
        print(row("swift-mustache 2.1.1, MustacheParent", parent1))
        print(row("swift-mustache 2.1.1, reflection (Mirror)", mirror))
        print("")
        print("chat list alone (\(handBuffer.count) bytes)")
        print(row("  Parlor", listParlor))
        print(row("  written by hand (the floor)", listByHand))
        print(String(format: "target: at most 15 µs per page; swift-mustache (MustacheParent) / Parlor = %.0fx", parent1.microseconds / parlor.microseconds))
    }

    struct Measurement {
        let microseconds: Double
        let allocations: Double
    }

    /// The best of `rounds` runs of `iterations` renders: the least disturbed by other work on the machine.
    static func measure(rounds: Int, iterations: Int, _ body: () -> Void) -> Measurement {
        for _ in 0..<min(iterations, 100) { body() }
        var best = Measurement(microseconds: .infinity, allocations: 0)
        for _ in 0..<rounds {
            let allocationsBefore = parlor_allocation_count()
            let start = ContinuousClock.now
            for _ in 0..<iterations { body() }
            let elapsed = ContinuousClock.now - start
            let allocations = Double(parlor_allocation_count() - allocationsBefore) / Double(iterations)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let microseconds = seconds * 1e6 / Double(iterations)
            if microseconds < best.microseconds { best = Measurement(microseconds: microseconds, allocations: allocations) }
        }
        return best
    }

    /// The chats page with `items` chats in the list and no conversation open, built through the builders.
    static func chatListPage(items: Int) -> ChatsPageViewModel {
        let world = FixtureWorld()
        let summaries = (0..<items).map { index -> ChatSummary in
            let contact = User(id: UserID(Int64(100 + index)), handle: "friend\(index)", displayName: "Friend Number \(index)", avatar: index % 3 == 0 ? ImageID(Int64(index)) : nil)
            let date = world.now.addingTimeInterval(-Double(index) * 3_600 * 7)
            let message = Message(id: MessageID(Int64(10_000 - index)), chatID: ChatID(Int64(index + 1)), senderID: index % 2 == 0 ? contact.id : world.ana.id, body: "Message number \(index) with a little text & a <tag> to escape", createdAt: date)
            return ChatSummary(chatID: ChatID(Int64(index + 1)), contact: contact, lastMessage: message, unreadCount: index % 4 == 0 ? index : 0, lastActivity: date)
        }
        let list = ChatListBuilder(context: world.context).loaded(summaries, current: ChatID(3))
        return PageBuilder(context: world.context).chats(list: list, conversation: nil, contactName: nil, unreadTotal: 17, openChat: nil)
    }
}
