import Foundation
import Testing

@testable import Outbox

/// The rules for text and values that come from outside: quoted text is one short clean line,
/// and only plain file names name media files.
@Suite("Untrusted values")
struct UntrustedValueTests {
    @Test(arguments: [
        ("plain words", "plain words"),
        ("two\nlines\r\n\tand a tab", "two lines and a tab"),
        ("\u{1B}[31mred\u{1B}[0m text", "red text"),
        ("title\u{1B}]0;pwned\u{07} after", "title after"),
        ("string\u{1B}]8;;http://x\u{1B}\\ link", "string link"),
        ("bell\u{07} backspace\u{08} nul\u{00} del\u{7F}", "bell backspace nul del"),
        ("c1 \u{9B}2Jcsi and \u{9D}osc\u{9C} end", "c1 csi and end"),
        ("bidi \u{202E}txet\u{202C} \u{2066}iso\u{2069}", "bidi txet iso"),
        ("  surrounding  ", "surrounding"),
        ("", ""),
    ])
    func quotedTextHasNoControlsOrEscapes(text: String, quoted: String) {
        #expect(UntrustedText.quoted(text) == quoted)
    }

    @Test func quotedTextIsCutToItsLimit() {
        let long = String(repeating: "é", count: 10_000)
        let cut = UntrustedText.quoted(long, limit: 200)
        #expect(cut.count == 200)
        #expect(cut.hasSuffix("…"))
        #expect(UntrustedText.quoted(String(repeating: "a", count: 200), limit: 200).count == 200)
    }

    @Test(arguments: [
        ("plate-1.0.abcdef012345.jpg", true), ("a", true), ("A_b-c.9", true),
        ("", false), (".", false), ("..", false), (".hidden", false), ("../x", false), ("../../victim.jpg", false),
        ("a/b", false), ("/etc/passwd", false), ("a..b", false), ("a\u{0}b", false), ("é.jpg", false),
        ("a b", false), (String(repeating: "x", count: 256), false), (String(repeating: "x", count: 255), true),
    ])
    func onlyPlainNamesNameAFileInTheMediaFolder(name: String, isPlain: Bool) {
        #expect(StoredValue.isPlainFileName(name) == isPlain)
    }

    @Test func storedCountsAndTimesCannotTrapOrRunAway() {
        #expect(StoredValue.count(Int64.max) == Int.max)
        #expect(StoredValue.count(Int64.max).incrementedSaturating == Int.max)
        #expect(StoredValue.count(-5) == 0)
        #expect(StoredValue.count(nil) == 0)
        #expect(StoredValue.moment(1e300) == Date(timeIntervalSince1970: StoredValue.latestMoment))
        #expect(StoredValue.moment(-1e300) == Date(timeIntervalSince1970: 0))
        #expect(StoredValue.moment(.nan) == nil)
        #expect(StoredValue.moment(.infinity) == nil)
    }
}
