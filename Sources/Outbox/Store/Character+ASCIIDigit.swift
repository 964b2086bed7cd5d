/// Digits as file names and stored values write them: 0 to 9 only, not every Unicode number.
extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
