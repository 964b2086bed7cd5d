internal import CJXL

/// libjxl's decoder and, when it decodes on several threads, its thread runner: one owner for
/// both, which gives the runner back only after the decoder that uses it.
struct JXLDecoder: ~Copyable {
    let pointer: OpaquePointer
    private let runner: UnsafeMutableRawPointer?

    /// - Parameter threads: libjxl's worker threads (`JxlThreadParallelRunner`), which decode its
    ///   groups at once while the calling thread waits; 0 decodes on the calling thread alone.
    /// - Throws: `.outOfMemory` when libjxl cannot make its decoder or its threads.
    init(file: String, threads: Int) throws(ImagePrepError) {
        guard let pointer = JxlDecoderCreate(nil) else { throw .outOfMemory(file: file, byteCount: 0) }
        guard threads > 0 else {
            self.pointer = pointer
            runner = nil
            return
        }
        guard let runner = JxlThreadParallelRunnerCreate(nil, threads) else {
            JxlDecoderDestroy(pointer)
            throw .outOfMemory(file: file, byteCount: 0)
        }
        guard JxlDecoderSetParallelRunner(pointer, JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS else {
            JxlDecoderDestroy(pointer)
            JxlThreadParallelRunnerDestroy(runner)
            throw .outOfMemory(file: file, byteCount: 0)
        }
        self.pointer = pointer
        self.runner = runner
    }

    deinit {
        JxlDecoderDestroy(pointer)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
    }
}
