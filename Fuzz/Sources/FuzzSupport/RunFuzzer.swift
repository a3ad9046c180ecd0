import CLibFuzzer
import Foundation

/// Hands the process to libFuzzer with `testOneInput` as the target; libFuzzer reads its own
/// options (`-runs=`, `-max_total_time=`, corpus folders) from the command line.
///
/// `setUp` builds the target's fixtures first (touching its lazy globals), so that no input pays
/// for them and the leak checker does not count them (see `__lsan_disable`).
public func runFuzzer(setUp: () -> Void = {}, _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    __lsan_disable()
    Fixtures.warmUp()
    setUp()
    __lsan_enable()
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

/// The fuzzer's bytes (a null pointer when the input is empty).
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
