/// A value that threads share behind a lock. It is `Synchronization.Mutex` without that type's
/// floor of macOS 15 and iOS 18, so that the package runs on the iOS 16 and 17 most apps still
/// support; the calls read the same (`withLock { value in … }`).
package final class Locked<Value>: @unchecked Sendable {
    // A pthread mutex must not move once initialised, so it lives in memory of its own.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Only ENOMEM or EAGAIN can fail a default mutex; neither leaves anything to fall back to.
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while no other thread holds it.
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

extension Locked where Value == Int {
    /// Adds one and returns the value before, as `Atomic.wrappingAdd(1, …).oldValue` did.
    package func takeNext() -> Int {
        withLock { value in
            defer { value &+= 1 }
            return value
        }
    }
}
