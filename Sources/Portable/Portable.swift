@_exported import Dispatch

// What every module of aggctl imports instead of Foundation.
//
// On Linux that is FoundationEssentials, not the whole of Foundation: Foundation brings ICU and
// CoreFoundation into the binary, which tripled its size and, through the relocations and initializers
// that came with it, most of what `aggctl --version` cost above a hello world. What aggctl used of the rest
// lives in this module, small and tested (`PortableTests`). Elsewhere (macOS) Foundation is the library
// and these helpers sit on it.
#if canImport(FoundationEssentials)
    @_exported import FoundationEssentials
#else
    @_exported import Foundation
#endif

#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Darwin)
    @_exported import Darwin
#endif
