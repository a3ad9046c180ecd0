// `stratus` with empty hooks on the benchmarks' record type (Item), for measuring what hooks cost:
// STRATUS_BENCH_HOOKS=before registers an empty beforeSave, =after an empty afterSave (every
// create then queues an outbox event that the runner drains), =none nothing. Benchmarks/hooks
// runs it against `stratus`.
import Foundation
import StratusApp

var server = Stratus()
switch ProcessInfo.processInfo.environment["STRATUS_BENCH_HOOKS"] ?? "none" {
case "before": server.beforeSave("Item") { _, _ in }
case "after": server.afterSave("Item") { _, _ in }
case "none": break
case let other: fatalError("STRATUS_BENCH_HOOKS=\(other): use before, after or none")
}
await server.run()
