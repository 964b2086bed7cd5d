import Testing

@testable import CommandLineParser

/// The parser on its own: every way of writing an option, and the words of every error.
@Suite("The command-line parser")
struct ArgumentParserTests {
    static let parser = ArgumentParser(options: [
        Option("out", short: "o", value: .required(placeholder: "folder"), help: "Where."),
        Option("jobs", short: "j", value: .required(placeholder: "count"), help: "How many."),
        Option("recursive", short: "r", help: "Deeper."),
        Option("quiet", short: "q", help: "Less."),
        Option("null", short: "0", help: "NUL."),
        Option("json", help: "JSON."),
        Option("skip-existing", help: "Keep."),
        Option("check", value: .optional(placeholder: "file.json", separateWordSuffix: ".json"), help: "Check."),
        Option("help", short: "h", help: "Help."),
    ])

    static func parse(_ words: [String]) throws(UsageError) -> ParsedArguments {
        try parser.parse(words.map { CommandLineArgument($0) })
    }

    static func error(_ words: [String]) -> String? {
        do {
            _ = try parse(words)
            return nil
        } catch {
            return error.message
        }
    }

    @Test(
        "Every way of writing an option's value gives the same value",
        arguments: [
            ["--out", "DIR"], ["--out=DIR"], ["-o", "DIR"], ["-oDIR"], ["-o=DIR"], ["-rqo", "DIR"], ["-rqoDIR"],
            ["--out", "first", "--out=DIR"],
        ])
    func valueForms(words: [String]) throws {
        let parsed = try Self.parse(words + ["photo.jpg"])
        #expect(try parsed.string("out") == "DIR")
        #expect(parsed.arguments == ["photo.jpg"])
    }

    @Test("Short flags combine, in any order, and each is set")
    func combinedFlags() throws {
        for words in [["-rq0"], ["-0qr"], ["-r", "-q", "-0"], ["-rq", "-0"]] {
            let parsed = try Self.parse(words)
            #expect(parsed.has("recursive") && parsed.has("quiet") && parsed.has("null"), "\(words)")
            #expect(!parsed.has("json"))
        }
        let withValue = try Self.parse(["-rj4", "a"])
        #expect(try withValue.integer("jobs", in: 1...8) == 4)
        #expect(withValue.has("recursive"))
    }

    @Test("-- ends the options: what follows is an argument even when it looks like one")
    func doubleDashEndsOptions() throws {
        let parsed = try Self.parse(["-r", "--", "--json", "-q", "-"])
        #expect(parsed.arguments == ["--json", "-q", "-"])
        #expect(!parsed.has("json") && !parsed.has("quiet") && parsed.has("recursive"))
    }

    @Test("A lone - is an argument (standard input), and can be a value")
    func loneDash() throws {
        let parsed = try Self.parse(["-", "--out", "-"])
        #expect(parsed.arguments == ["-"])
        #expect(try parsed.string("out") == "-")
    }

    @Test("A word that starts with a dash is not taken as a value, except a negative number")
    func optionIsNotAValue() throws {
        #expect(Self.error(["--out", "--json"]) == "Missing value for '--out <folder>'")
        #expect(Self.error(["-o", "-r"]) == "Missing value for '-o <folder>'")
        #expect(Self.error(["--out"]) == "Missing value for '--out <folder>'")
        #expect(Self.error(["--out="]) == "Missing value for '--out <folder>'")
        #expect(try Self.parse(["--out=--json"]).string("out") == "--json")
        #expect(
            Self.error(["--jobs", "-3"])
                == nil)
        #expect(throws: UsageError("The value '-3' is invalid for '--jobs <count>': it must be a whole number 1 to 8"))
        {
            try Self.parse(["--jobs", "-3"]).integer("jobs", in: 1...8)
        }
    }

    @Test("A value that takes any word takes the next one even when it starts with a dash, as free text may")
    func anyWord() throws {
        let parser = ArgumentParser(options: [
            Option("note", value: .required(placeholder: "text", takesAnyWord: true), help: "A note."),
            Option("json", help: "JSON."),
        ])
        let parsed = try parser.parse(["--note", "- gate left open", "--json"])
        #expect(try parsed.string("note") == "- gate left open" && parsed.has("json"))
        #expect(try parser.parse(["--note", "--json"]).string("note") == "--json")
    }

    @Test(
        "An unknown option is named, with the nearest known one when there is one",
        arguments: [
            (["--jsn"], "Unknown option '--jsn'. Did you mean '--json'?"),
            (["--josn"], "Unknown option '--josn'. Did you mean '--json'?"),
            (["--recursve"], "Unknown option '--recursve'. Did you mean '--recursive'?"),
            (["--skip"], "Unknown option '--skip'. Did you mean '--skip-existing'?"),
            (["--outt=DIR"], "Unknown option '--outt'. Did you mean '--out'?"),
            (["-json"], "Unknown option '-json'. Did you mean '--json'?"),
            (["-out", "DIR"], "Unknown option '-out'. Did you mean '--out'?"),
            (["--frobnicate"], "Unknown option '--frobnicate'"),
            (["-x"], "Unknown option '-x'"),
            (["-rx"], "Unknown option '-x'"),
        ])
    func unknownOption(words: [String], message: String) {
        #expect(Self.error(words) == message)
    }

    @Test("A flag given a value says so, in argument-parser's words")
    func flagWithValue() {
        #expect(Self.error(["--json=yes"]) == "The option '--json' does not take any value, but 'yes' was specified.")
    }

    @Test("-h or --help anywhere before -- wins over any error")
    func helpWins() throws {
        #expect(try Self.parse(["--bogus", "--help"]).has("help"))
        #expect(try Self.parse(["--out", "-h"]).has("help"))
        #expect(Self.error(["--", "--help", "--bogus"]) == nil)
        #expect(Self.error(["--bogus", "--", "-h"]) == "Unknown option '--bogus'")
    }

    @Test("An optional value is taken from =, or from the next word only when it has the suffix")
    func optionalValue() throws {
        let bare = try Self.parse(["--check", "photos"])
        #expect(bare.has("check") && bare.value("check") == nil && bare.arguments == ["photos"])
        #expect(try Self.parse(["--check", "goals.json"]).string("check") == "goals.json")
        #expect(try Self.parse(["--check=goals.txt", "photos"]).string("check") == "goals.txt")
    }

    @Test("Arguments keep their bytes, UTF-8 or not; as text, bytes that are not UTF-8 are a usage error")
    func bytesThatAreNotUTF8() throws {
        let name = CommandLineArgument(bytes: Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let parsed = try Self.parser.parse([name, "--out", CommandLineArgument(bytes: [0xFF])])
        #expect(parsed.arguments == [name])
        #expect(parsed.value("out")?.bytes == [0xFF])
        #expect(throws: UsageError("The value '\\xFF' is invalid for '--out <folder>': it is not UTF-8 text")) {
            try parsed.string("out")
        }
        #expect(throws: UsageError("The value 'caf\\xE9.jpg' is invalid for '<photo>': it is not UTF-8 text")) {
            try name.text(for: "<photo>")
        }
    }

    @Test("Numbers out of range name the option as typed and the rule")
    func numbers() throws {
        #expect(throws: UsageError("The value '0' is invalid for '-j <count>': it must be a whole number 1 to 1024")) {
            try Self.parse(["-j", "0"]).integer("jobs", in: 1...1024)
        }
        #expect(
            throws: UsageError("The value 'x' is invalid for '--jobs <count>': it must be a whole number at least 1")
        ) {
            try Self.parse(["--jobs=x"]).integer("jobs", in: 1...Int.max)
        }
        #expect(try Self.parse([]).integer("jobs", in: 1...8) == nil)
    }

    @Test("Extra arguments are named one by one, as argument-parser names them")
    func extraArguments() throws {
        #expect(throws: UsageError("Unexpected argument 'b'")) { try Self.parse(["a", "b"]).onlyArgument("<id>") }
        #expect(throws: UsageError("2 unexpected arguments: 'b', 'c'")) {
            try Self.parse(["a", "b", "c"]).onlyArgument("<id>")
        }
        #expect(throws: UsageError("Missing expected argument '<id>'")) { try Self.parse([]).onlyArgument("<id>") }
    }

    @Test("Stopping at the first argument leaves it and the rest unread, for a command and its options")
    func stopsAtFirstArgument() throws {
        let parsed = try Self.parser.parse(["-q", "add", "--kind", "x"], stopsAtFirstArgument: true)
        #expect(parsed.has("quiet"))
        #expect(parsed.rest == ["add", "--kind", "x"])
    }

    @Test("Escaped for display: bytes that are not UTF-8 and control characters become \\xHH, the rest stays")
    func escaping() {
        #expect(escapedForDisplay(Array("été/日本.jpg".utf8)) == "été/日本.jpg")
        #expect(escapedForDisplay([0x63, 0xE9, 0x2E]) == "c\\xE9.")
        #expect(escapedForDisplay(Array("a\nb\u{1B}[31m".utf8)) == "a\\x0Ab\\x1B[31m")
        #expect(escapedForDisplay([0xE2, 0x82]) == "\\xE2\\x82", "a sequence cut short")
        #expect(escapedForDisplay([0xC0, 0xAF]) == "\\xC0\\xAF", "an overlong '/'")
        #expect(escapedForDisplay([0xED, 0xA0, 0x80]) == "\\xED\\xA0\\x80", "a surrogate")
    }

    @Test("Suggestions: two edits at most for long names, one for short ones, or a unique start")
    func suggestions() {
        let names = ["out", "json", "jobs", "recursive", "skip-existing", "max-edge", "max-pixels"]
        #expect(Suggestion.nearest(to: "jsno", among: names) == "json")
        #expect(Suggestion.nearest(to: "recurse", among: names) == "recursive")
        #expect(Suggestion.nearest(to: "maxedge", among: names) == "max-edge")
        #expect(Suggestion.nearest(to: "max", among: names) == nil, "two options start with max")
        #expect(Suggestion.nearest(to: "xyz", among: names) == nil)
        #expect(Suggestion.editDistance(Array("ab"), Array("ba")) == 1)
    }
}

@Suite("Help text layout")
struct HelpTextTests {
    @Test("Entries wrap beside their name at the text column, and a long name puts its text below")
    func layout() {
        let help = HelpText(
            overview: "Do a thing.",
            usage: "tool [options]",
            sections: [
                .options(
                    title: "OPTIONS",
                    [
                        Option("a", short: "a", help: String(repeating: "word ", count: 30)),
                        Option("a-very-long-option-name", value: .required(placeholder: "value"), help: "Short."),
                    ]),
                .text(title: "EXAMPLES", "tool -a\n\nmore"),
            ]
        ).rendered
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= HelpText.width }, "\(help)")
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
        #expect(
            help.hasPrefix(
                "OVERVIEW: Do a thing.\n\nUSAGE: tool [options]\n\nOPTIONS:\n  -a, --a                 word word"))
        #expect(help.contains("\n  --a-very-long-option-name <value>\n                          Short.\n"))
        #expect(help.hasSuffix("EXAMPLES:\n  tool -a\n\n  more\n"))
    }
}
