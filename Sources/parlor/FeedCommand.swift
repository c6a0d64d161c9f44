import ArgumentParser
import Foundation
import ParlorFeeds

/// `parlor feed parse FILE`: what Parlor reads from a saved feed, as JSON, so people can see what a
/// subscription would post. Exits 65 with the reason when the file is not a feed Parlor can read.
struct FeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed", abstract: "Read feeds as Parlor reads them.", subcommands: [Parse.self]
    )

    struct Parse: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print what Parlor reads from a saved feed, as JSON.")

        @Argument(help: "The feed file (RSS, RDF, Atom or JSON Feed).")
        var file: String
        @Option(help: "The address the feed was fetched from, to resolve its relative links.")
        var url: String?

        func run() throws {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("parlor feed parse: \(file) cannot be read\n".utf8))
                throw ExitCode(66)
            }
            do {
                let feed = try FeedParser.parse(Array(data), url: url.flatMap(URL.init(string:)))
                print(Self.json(feed))
            } catch {
                FileHandle.standardError.write(Data("parlor feed parse: \(error.description)\n".utf8))
                throw ExitCode(65)
            }
        }

        /// `{"title": …, "link": … or null, "items": [{"key", "title", "link", "date", "text"}]}`, in that order.
        static func json(_ feed: Feed) -> String {
            func string(_ value: String?) -> String { value.map(JSONString.quoted) ?? "null" }
            let items = feed.items.map { item in
                let date = item.date.map { $0.formatted(.iso8601) }
                return "{\"key\": \(string(item.key)), \"title\": \(string(item.title)), \"link\": \(string(item.link)), "
                    + "\"date\": \(string(date)), \"text\": \(string(item.text))}"
            }
            return "{\"title\": \(string(feed.title)), \"link\": \(string(feed.link)), \"items\": [" + items.joined(separator: ", ") + "]}"
        }
    }
}
