// `Combine` for Linux: OpenCombine, which declares Combine's API under Combine's names
// (`ObservableObject`, `@Published`, `AnyPublisher`, `PassthroughSubject`, ...), with its
// Dispatch and Foundation parts (`DispatchQueue` and `RunLoop` as schedulers,
// `NotificationCenter.publisher(for:)`, `Timer.publish`).
//
// OpenCombine declares its Apple-named Foundation extensions only `#if !canImport(Combine)`: it
// is compiled before this module exists, which holds for every build this module is part of
// because this module depends on it.
#if os(Linux)
@_exported import OpenCombine
@_exported import OpenCombineDispatch
@_exported import OpenCombineFoundation
#endif
