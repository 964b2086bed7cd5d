extension String {
    /// The bytes as text when they are valid UTF-8, else nil. `String(validating:as:)` does the
    /// same but needs macOS 15 and iOS 18; decoding replaces each invalid sequence with U+FFFD,
    /// so the text's own bytes differ from the input's exactly when the input was not UTF-8.
    package init?(validUTF8 bytes: some Collection<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else { return nil }
        self = text
    }

    /// A C string as text when it is valid UTF-8, else nil.
    package init?(validUTF8CString cString: UnsafePointer<CChar>) {
        let bytes = UnsafeRawBufferPointer(start: cString, count: strlen(cString))
        self.init(validUTF8: bytes)
    }
}
