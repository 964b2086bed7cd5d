// The package's platform layer (Sources/PlatformLayer), and through it the C library's POSIX
// calls, for every file of this module.
@_exported import PlatformLayer
