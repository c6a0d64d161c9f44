import Foundation
import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// Dates in request headers are outside bytes: the parser range-checks every field, and a date no
/// calendar has is ignored, as HTTP asks, never a reason to stop.
@Suite struct HTTPDateTests {
    @Test func formattedDatesParseBackToTheSameSecond() {
        var seconds = 0
        // Every few days from 1970 to 9999, at a different time of day each time.
        while seconds < HTTPDate.latest {
            let text = HTTPDate.format(seconds)
            #expect(HTTPDate.parse(text) == seconds, "\(text)")
            seconds += 86_400 * 37 + 3_601
        }
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == 951_782_400)
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == HTTPDate.latest)
    }

    @Test func formatClampsTimesNoFourDigitYearCanSay() {
        #expect(HTTPDate.format(-1) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Int.min) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Int.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    @Test(arguments: [
        "Sun, 06 Nov -2147483648 08:49:37 GMT", "Sun, 06 Nov 2147483648 08:49:37 GMT", "Sun, 06 Nov 99999999999 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT", "Thu, 29 Feb 1900 00:00:00 GMT",
        "Sat, 29 Feb 2001 00:00:00 GMT", "Mon, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1969 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 -8:49:37 GMT", "",
        "yesterday", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nóv 1994 08:49:37 GMT",
    ])
    func aDateNoCalendarHasIsIgnored(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    /// The probe that stopped the server, and its neighbours, on every conditional field.
    @Test func hostileDatesInConditionalFieldsNeverStopTheServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-dates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("body { }".utf8).write(to: folder.appendingPathComponent("site.css"))
        var router = Router()
        try StaticFiles(folder: folder.path).register(on: &router)
        let values = [
            "Sun, 06 Nov -2147483648 08:49:37 GMT", "Sun, 06 Nov 2147483647 08:49:37 GMT", "Sun, 06 Nov -2147483649 08:49:37 GMT",
            "Sun, 06 Nov 9223372036854775807 08:49:37 GMT", "Sun, 06 Nov 1994 2147483647:49:37 GMT",
            "Sun, -2147483648 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:-2147483648 GMT", "\"x\", W/\"y\", *",
        ]
        try await withServer(router) { _, port in
            for field in ["If-Modified-Since", "If-Unmodified-Since", "If-None-Match", "If-Match", "If-Range"] {
                for value in values {
                    let response = try await RawClient(port: port).exchange("GET", "/public/site.css", headers: ["\(field): \(value)"])
                    #expect([200, 304].contains(response.status), "\(field): \(value)")
                }
            }
            // Still answering, and a date from the far future is simply a date after the file's.
            let fresh = try await RawClient(port: port).exchange("GET", "/public/site.css", headers: ["If-Modified-Since: Fri, 31 Dec 9999 23:59:59 GMT"])
            #expect(fresh.status == 304)
        }
    }
}
