import ArgumentParser
import Foundation
import Logging
import ParlorDomain
import ParlorEvents
import ParlorPostgres
import ParlorStorage
import ParlorWeb

/// `parlor admin create-invite` and `parlor admin reset-password HANDLE`: for an operator who lost access to the
/// Administration page (or never had one). They send their command through a router of their own on the database,
/// so they work with Parlor stopped or running; a running Parlor hears the change from the database's log (the
/// event log on PostgreSQL, the account log on SQLite) within a second, and ends the streams of ended sessions.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Let someone in when nobody can reach the Administration page.",
        subcommands: [CreateInvite.self, ResetPassword.self]
    )

    struct Database: ParsableArguments {
        @Option(help: "The SQLite file Parlor serves from, or its PostgreSQL address (postgres://user@host/database).")
        var database = "parlor.sqlite"

        /// The router over the store, and what to close once done. Its bus has no pages: the store's log is what
        /// tells a running Parlor.
        func open() async throws -> (router: EventRouter, close: @Sendable () -> Void) {
            func router(_ store: any ChatStore & AccountStore & AdministrationStore) -> EventRouter {
                EventRouter(store: store, administration: store, accounts: store, bus: InProcessEventBus(), clock: SystemClock(), logger: Logger(label: "parlor.admin"))
            }
            guard Stores.isPostgres(database) else {
                guard FileManager.default.fileExists(atPath: database) else { throw AdminError("\(database) does not exist") }
                return (router(try SQLiteChatStore(path: database)), {})
            }
            let connection = try PostgresDatabase.runningOnItsOwn(url: database, maximumConnections: 2, logger: Logger(label: "parlor.admin"))
            do {
                return (router(try await PostgresChatStore(database: connection)), { connection.close() })
            } catch {
                connection.close()
                throw error
            }
        }
    }

    struct AdminError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct CreateInvite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-invite",
            abstract: "Replace the join link (the old one lets nobody in from then on) and print it."
        )

        @OptionGroup var database: Database
        @Option(help: "Days the link stays open (default: until replaced).")
        var days: Int?
        @Option(help: "Accounts the link may create (default: any number).")
        var uses: Int?
        @Option(help: "The Parlor's address, printed in front of the link (\"https://chat.example.org\").")
        var url = ""

        func validate() throws {
            if let days, !(1...JoinLink.maximumDays).contains(days) { throw ValidationError("--days must be 1 to \(JoinLink.maximumDays)") }
            if let uses, !(1...JoinLink.maximumUses).contains(uses) { throw ValidationError("--uses must be 1 to \(JoinLink.maximumUses)") }
        }

        func run() async throws {
            do {
                let (router, close) = try await database.open()
                defer { close() }
                let link = JoinLinks.make(now: Date(), days: days, uses: uses)
                guard case .joinLinkReplaced = await router.send(.replacingJoinLink(link, by: nil)) else { throw AdminError("the join link was not stored") }
                var base = url
                while base.hasSuffix("/") { base.removeLast() }
                print(base + "/join/" + link.code)
            } catch {
                FileHandle.standardError.write(Data("parlor admin create-invite: \(error)\n".utf8))
                throw ExitCode(74)
            }
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Give an account a new password, print it, and sign it out everywhere."
        )

        @Argument(help: "The account's handle (\"ana\" or \"@ana\").")
        var handle: String
        @OptionGroup var database: Database

        func run() async throws {
            guard let normalized = try? Handle.normalized(handle) else {
                FileHandle.standardError.write(Data("parlor admin reset-password: \(Refusal.invalidHandle.message)\n".utf8))
                throw ExitCode(64)
            }
            do {
                let (router, close) = try await database.open()
                defer { close() }
                let password = JoinLinks.temporaryPassword()
                let command = AccountEvent.resettingPassword(handle: normalized, passwordHash: try await PasswordHasher().hashed(password))
                let ended: Int
                switch await router.send(command) {
                case .sessionsEnded(let sessions): ended = sessions.count
                case .refused(let refusal): throw refusal
                default: throw AdminError("the password was not stored")
                }
                print(password)
                FileHandle.standardError.write(Data("@\(normalized): new password printed; \(ended) session\(ended == 1 ? "" : "s") ended\n".utf8))
            } catch Refusal.notFound {
                FileHandle.standardError.write(Data("parlor admin reset-password: nobody is called @\(normalized)\n".utf8))
                throw ExitCode(67)
            } catch {
                FileHandle.standardError.write(Data("parlor admin reset-password: \(error)\n".utf8))
                throw ExitCode(74)
            }
        }
    }
}
