// StratusKit: the CloudKit-shaped Swift SDK for a Stratus server.
//
// Code written against Apple's CloudKit framework moves over by changing `import CloudKit` to
// `import StratusKit`. Like CloudKit, this module re-exports Foundation.
//
// How `NSPredicate(format:)` and `NSSortDescriptor(key:ascending:)` work on Linux
// ---------------------------------------------------------------------------------
// swift-corelibs-foundation marks those initializers unavailable. A compile spike (Swift 6.3,
// Linux) showed that declaring our own `NSPredicate`/`NSSortDescriptor` classes does not work:
// expressions resolve to ours, but type annotations (`let p: NSPredicate`) are ambiguous in a
// file that imports both Foundation and StratusKit. So StratusKit instead *extends Foundation's
// classes* with available initializers of the same shape (`NSPredicate+Format.swift`,
// `NSSortDescriptor+Key.swift`); overload resolution prefers them over the unavailable ones, and
// every type name stays Foundation's. The parsed format is recovered without a side table:
// a format predicate is a block predicate whose block hands its format and arguments to a
// private probe object when evaluated with it; a key sort descriptor stores a key path into a
// subscript that returns the key. On Apple platforms Foundation's own initializers are used and
// the predicate is read back from `predicateFormat`.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
