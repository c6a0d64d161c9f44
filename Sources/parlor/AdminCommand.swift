import ArgumentParser
import Foundation
import Logging
import ParlorDomain
import ParlorPostgres
import ParlorStorage
import ParlorWeb

/// `parlor admin create-invite` and `parlor admin reset-password HANDLE`: for an operator who lost access to the
/// Administration page (or never had one). They write to the database directly, so they work with Parlor stopped or
/// running.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Let someone in when nobody can reach the Administration page.",
        subcommands: [CreateInvite.self, ResetPassword.self]
    )

    struct Database: ParsableArguments {
        @Option(help: "The SQLite file Parlor serves from, or its PostgreSQL address (postgres://user@host/database).")
        var database = "parlor.sqlite"

        /// The store, and what to close once done.
        func open() async throws -> (store: any AdministrationStore, close: @Sendable () -> Void) {
            guard Stores.isPostgres(database) else {
                guard FileManager.default.fileExists(atPath: database) else { throw AdminError("\(database) does not exist") }
                return (try SQLiteChatStore(path: database), {})
            }
            let connection = try PostgresDatabase.runningOnItsOwn(url: database, maximumConnections: 2, logger: Logger(label: "parlor.admin"))
            do {
                return (try await PostgresChatStore(database: connection), { connection.close() })
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
                let (store, close) = try await database.open()
                defer { close() }
                let link = JoinLinks.make(now: Date(), days: days, uses: uses)
                try await store.replaceJoinLink(link)
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
                let (store, close) = try await database.open()
                defer { close() }
                let password = JoinLinks.temporaryPassword()
                let ended = try await store.resetPassword(handle: normalized, to: try await PasswordHasher().hashed(password))
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
