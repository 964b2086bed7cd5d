import Testing

@testable import CommandLineParser

/// Options read by the `Option` value the parser was given, as the commands read theirs: the
/// same value is the parser's option, the help's line and the command's key.
@Suite("Options read by their Option value")
struct TypedOptionTests {
    static let out = Option("out", short: "o", value: .required(placeholder: "folder"), help: "Where.")
    static let jobs = Option("jobs", short: "j", value: .required(placeholder: "count"), help: "How many.")
    static let wait = Option("wait", value: .required(placeholder: "seconds"), help: "How long.")
    static let attach = Option("attach", value: .required(placeholder: "file"), help: "Files.")
    static let null = Option("null", short: "0", help: "NUL.")
    static let parser = ArgumentParser(options: [out, jobs, wait, attach, null])

    static func parse(_ words: [String]) throws(UsageError) -> ParsedArguments {
        try parser.parse(words.map { CommandLineArgument($0) })
    }

    @Test func eachAccessorReadsItsOption() throws {
        let parsed = try Self.parse([
            "-o", "first", "--out=DIR", "-j4", "--wait", "0.5", "--attach", "a", "--attach=b", "-0", "photo.jpg",
        ])
        #expect(try parsed.string(Self.out) == "DIR")
        #expect(parsed.value(Self.out)?.bytes == Array("DIR".utf8))
        #expect(try parsed.integer(Self.jobs, in: 1...8) == 4)
        #expect(try parsed.number(Self.wait, in: 0...10, unit: "seconds") == 0.5)
        #expect(try parsed.strings(Self.attach) == ["a", "b"])
        #expect(parsed.values(Self.attach) == ["a", "b"])
        #expect(parsed.has(Self.null) && parsed.last(Self.null)?.isShort == true)
        #expect(parsed.arguments == ["photo.jpg"])
        // By name, as the parser's own tests read them: the same answers.
        #expect(try parsed.string("out") == "DIR" && parsed.has("null") && parsed.has("jobs"))
    }

    @Test func anOptionNotGivenReadsAsAbsent() throws {
        let parsed = try Self.parse(["photo.jpg"])
        #expect(!parsed.has(Self.out) && parsed.value(Self.out) == nil && parsed.last(Self.out) == nil)
        #expect(try parsed.string(Self.out) == nil && parsed.integer(Self.jobs, in: 1...8) == nil)
        #expect(try parsed.strings(Self.attach).isEmpty && parsed.values(Self.attach).isEmpty)
    }

    /// The error quotes the option as it was typed, short or long.
    @Test func invalidQuotesTheOptionAsTyped() throws {
        #expect(throws: UsageError("The value '9' is invalid for '-j <count>': it must be a whole number 1 to 8")) {
            try Self.parse(["-j", "9"]).integer(Self.jobs, in: 1...8)
        }
        #expect(
            try Self.parse(["--jobs=x"]).invalid(Self.jobs, "it must be a count").message
                == "The value 'x' is invalid for '--jobs <count>': it must be a count")
        #expect(
            throws: UsageError(
                "The value '-1' is invalid for '--wait <seconds>': it must be a number of seconds from 0 to 10")
        ) {
            try Self.parse(["--wait", "-1"]).number(Self.wait, in: 0...10, unit: "seconds")
        }
    }

    /// `Option.spelled(short:)` is how prep-photo names `-0` or `--null` in its error, as typed.
    @Test func spelledAsTyped() throws {
        #expect(Self.null.spelled(short: try Self.parse(["-0"]).last(Self.null)!.isShort) == "-0")
        #expect(Self.null.spelled(short: try Self.parse(["--null"]).last(Self.null)!.isShort) == "--null")
    }
}
