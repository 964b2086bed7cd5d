import Dispatch
internal import PlatformLayer

/// Runs two pieces of one photo's work at once: on libdispatch's threads, or as a pipeline.
///
/// The closures share no mutable state: each works on its own `CopyLane` and its own bands of
/// the planes, and reads only what neither writes; a pipeline's stages meet only at the items
/// handed over. Swift cannot see that disjointness, so the closures travel in an
/// `@unchecked Sendable` box; this is the only place in the module that steps around the
/// compiler's checks.
enum Parallel {
    private struct Unchecked<Value>: @unchecked Sendable {
        var value: Value
    }

    /// Calls `body` for every index, at once when there is more than one.
    static func forEach(_ indices: Range<Int>, _ body: (Int) -> Void) {
        guard indices.count > 1 else {
            indices.forEach(body)
            return
        }
        withoutActuallyEscaping(body) { body in
            let boxed = Unchecked(value: body)
            DispatchQueue.concurrentPerform(iterations: indices.count) { offset in
                boxed.value(indices.lowerBound + offset)
            }
        }
    }

    /// Runs `first` and `second`, at once when `concurrently`, and returns both results.
    static func run<A, B, Failure: Error>(
        _ first: () throws(Failure) -> A, _ second: () throws(Failure) -> B, concurrently: Bool
    ) -> (Result<A, Failure>, Result<B, Failure>) {
        guard concurrently else { return (Result(catching: first), Result(catching: second)) }
        var results = Unchecked(value: (Result<A, Failure>?.none, Result<B, Failure>?.none))
        withUnsafeMutablePointer(to: &results) { pointer in
            let shared = Unchecked(value: pointer)
            forEach(0..<2) { index in
                if index == 0 {
                    shared.value.pointee.value.0 = Result(catching: first)
                } else {
                    shared.value.pointee.value.1 = Result(catching: second)
                }
            }
        }
        return (results.value.0!, results.value.1!)
    }

    /// Runs a pipeline of two stages: `produce` makes items on the calling thread, one after
    /// another into `slots` reusable slots (it is told which to fill), until it returns nil;
    /// `consume` takes them in order on a thread of its own, while the next ones are made. The
    /// producer waits when every slot holds an item not yet consumed.
    ///
    /// Items are handed over `batch` at a time (and the last ones when the producer ends), so
    /// that the producer wakes the waiting consumer once per batch: a wake is a system call and,
    /// in a virtual machine, an interrupt to the other core, 20–40 µs that the producer, the
    /// slower stage, would otherwise pay for every item. `batch` must be at most `slots`, or the
    /// producer could wait for a slot that only an item it has not handed over would free.
    ///
    /// The consumer is a thread of its own rather than a libdispatch work item because the
    /// producer waits for it: libdispatch may run its items one after another. Without a thread
    /// to be had, both stages run on the calling thread in turn.
    static func pipeline<Item>(
        slots: Int, batch: Int, produce: (_ slot: Int) -> Item?, consume: (Item) -> Void
    ) {
        precondition(batch >= 1 && batch <= slots, "a batch larger than the slots would deadlock")
        withoutActuallyEscaping(consume) { consume in
            // Item `i` goes through `handedOver[i % slots]`; the semaphores order each write
            // before its read, and each read before the slot's next write.
            // Made at 0 and raised, because libdispatch traps on freeing a semaphore below the
            // value it was made with.
            let free = DispatchSemaphore(value: 0)
            for _ in 0..<slots { free.signal() }
            let filled = DispatchSemaphore(value: 0)
            let handedOver = Unchecked(value: UnsafeMutablePointer<Item?>.allocate(capacity: slots))
            handedOver.value.initialize(repeating: nil, count: slots)
            defer {
                handedOver.value.deinitialize(count: slots)
                handedOver.value.deallocate()
            }
            let consumer = Unchecked(value: consume)
            let thread = Platform.startThread {
                var slot = 0
                while true {
                    filled.wait()
                    guard let item = handedOver.value[slot] else { return }
                    consumer.value(item)
                    free.signal()
                    slot = (slot + 1) % slots
                }
            }
            var slot = 0
            guard let thread else {
                while let item = produce(slot) { consume(item) }
                return
            }
            var notHandedOver = 0
            while true {
                free.wait()
                let item = produce(slot)
                handedOver.value[slot] = item
                notHandedOver += 1
                if notHandedOver == batch || item == nil {
                    // Only the first signal can wake the consumer; the others count.
                    for _ in 0..<notHandedOver { filled.signal() }
                    notHandedOver = 0
                }
                guard item != nil else { break }
                slot = (slot + 1) % slots
            }
            Platform.join(thread)
        }
    }
}
