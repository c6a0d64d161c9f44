import Clocks
import Logging
import ParlorDomain
import ParlorEvents
import ParlorStorage

/// On SQLite, until cancelled: four times a second, whether another process on the same file (`parlor
/// admin`) committed (a look at the writer's `data_version`, not a read of the disk), and if so the account events it
/// logged, published on this instance's bus as if they had happened here.
struct AccountLogReader {
    let store: SQLiteChatStore
    let bus: any EventBus
    let changes: ChangeCounters
    let logger: Logger
    var every: Duration = .milliseconds(250)
    var timer = AnyClock(ContinuousClock())

    func run() async {
        var failing = false
        while !Task.isCancelled {
            do {
                for event in try await store.accountEventsFromOtherProcesses() {
                    changes.note(.account(event))
                    bus.publish(PublishedEvent(.account(event)))
                }
                if failing { logger.notice("the account log is read again") }
                failing = false
            } catch {
                if !failing { logger.error("the account log could not be read; retrying", metadata: ["error": "\(error)"]) }
                failing = true
            }
            do { try await timer.sleep(for: every) } catch { return }
        }
    }
}
