#ifndef STRATUS_CLIBFUZZER_H
#define STRATUS_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's own driver (the body of its `main`), linked in by `-sanitize=fuzzer`. The fuzz
/// targets call it from their Swift entry point: SwiftPM gives every executable its own `main`,
/// so libFuzzer's is never used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// LeakSanitizer (part of AddressSanitizer): allocations made between these two calls are never
/// reported as leaks. Swift globals keep flag bits in their pointers, so the sanitizer cannot see
/// that a global holds them; the fixtures are built between these calls.
void __lsan_disable(void);
void __lsan_enable(void);

#endif
