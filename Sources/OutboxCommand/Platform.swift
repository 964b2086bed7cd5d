// The one file of this module that imports the C library by name, re-exported to the module's
// other files for the POSIX calls that mean the same on every platform; the calls whose name
// or meaning differs between Apple's platforms and Linux are the functions below.
#if canImport(Darwin)
@_exported import Darwin
#elseif canImport(Glibc)
@_exported import Glibc
#endif

/// The system calls whose name or meaning differs between Apple's platforms and Linux.
enum Platform {
    /// `write(2)`; a type's own `write` method would hide the bare name.
    static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, buffer, count)
        #else
        Glibc.write(descriptor, buffer, count)
        #endif
    }
}
