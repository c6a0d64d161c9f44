import ArgumentParser
import Foundation
import ParlorDomain
import ParlorFeeds

/// `parlor feed parse FILE` and `parlor feed check URL`: what Parlor reads from a saved feed or from a
/// feed's (or a page's) address, as JSON, so people can see what a subscription would post. They exit
/// non-zero with the reason when there is no feed Parlor can read.
struct FeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed", abstract: "Read feeds as Parlor reads them.", subcommands: [Parse.self, Check.self]
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

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch a feed (or the feed a page names) as the poller does, and print what Parlor reads, as JSON."
        )

        @Argument(help: "The address of a feed or of a page that names one.")
        var url: String
        @OptionGroup(title: "Fetching")
        var options: FeedOptions

        func run() async throws {
            let address: String
            do {
                address = try FeedAddress.validated(url)
            } catch {
                FileHandle.standardError.write(Data("parlor feed check: \(error.message)\n".utf8))
                throw ExitCode(64)
            }
            do {
                guard case .feed(let feed, _, _) = try await options.checker().read(address) else { throw FeedError.empty }
                print(Parse.json(feed))
            } catch let error as FeedFetchError {
                FileHandle.standardError.write(Data("parlor feed check: \(error.description)\n".utf8))
                throw ExitCode(69)
            } catch {
                FileHandle.standardError.write(Data("parlor feed check: \(String(describing: error))\n".utf8))
                throw ExitCode(65)
            }
        }
    }
}
