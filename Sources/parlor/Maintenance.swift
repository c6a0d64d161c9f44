import ArgumentParser
import Foundation
import Logging
import ParlorPostgres
import ParlorStorage

/// `parlor migrate`: brings the database's schema up to date without serving (`parlor serve` does it too
/// at start; this is for a deployment that migrates as a step of its own).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply the database migrations, then exit.")

    @Option(help: "The SQLite file (created when missing), or a PostgreSQL address (postgres://user@host/database).")
    var database = "parlor.sqlite"

    func run() async throws {
        guard Stores.isPostgres(database) else {
            do {
                let applied = try StoreMaintenance.migrate(path: database)
                print(applied.isEmpty ? "\(database): up to date" : "\(database): applied \(applied.joined(separator: ", "))")
            } catch {
                FileHandle.standardError.write(Data("parlor migrate: \(error.description)\n".utf8))
                throw ExitCode(74)
            }
            return
        }
        do {
            let connection = try PostgresDatabase.runningOnItsOwn(url: database, maximumConnections: 2, logger: Logger(label: "parlor.migrate"))
            defer { connection.close() }
            let applied = try await PostgresChatStore.migrate(connection)
            print(applied.isEmpty ? "PostgreSQL: up to date" : "PostgreSQL: applied \(applied.joined(separator: ", "))")
        } catch {
            FileHandle.standardError.write(Data("parlor migrate: \(error)\n".utf8))
            throw ExitCode(74)
        }
    }
}

/// `parlor backup PATH`: a consistent copy of the database while Parlor serves from it.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Copy the database, consistently, while Parlor serves.")

    @Argument(help: "The new file to write (never overwritten).")
    var path: String
    @Option(help: "The SQLite file Parlor serves from.")
    var database = "parlor.sqlite"

    func run() throws {
        guard !Stores.isPostgres(database) else {
            FileHandle.standardError.write(Data("parlor backup: copies a SQLite file; back PostgreSQL up with its own tools (pg_dump, base backups)\n".utf8))
            throw ExitCode(64)
        }
        do {
            let messages = try StoreMaintenance.backup(from: database, to: path)
            print("\(path): a copy of \(database) with \(messages) messages")
        } catch {
            FileHandle.standardError.write(Data("parlor backup: \(error.description)\n".utf8))
            switch error {
            case .noDatabase: throw ExitCode(66)
            case .targetExists: throw ExitCode(73)
            case .failed: throw ExitCode(74)
            }
        }
    }
}
