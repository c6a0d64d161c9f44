import ArgumentParser

/// The `parlor` command.
@main
struct Parlor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Parlor: a chat drawn on the server and kept live with Server-Sent Events.",
        subcommands: [Serve.self, Migrate.self, Backup.self, FeedCommand.self, AdminCommand.self],
        defaultSubcommand: Serve.self
    )
}
