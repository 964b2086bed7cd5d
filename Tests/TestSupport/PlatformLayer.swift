// The tests share the platform layer's `Locked` and its C library names.
@_exported public import PlatformLayer
