import FuzzSupport
import StratusEngine

/// The `.ckdb` schema language: any text parses or throws a `CloudKitError`; a parsed schema
/// renders to text that parses back to the same schema.
func fuzzSchema(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: inputBytes(data, size), as: UTF8.self)
    guard let parsed = try? SchemaLanguage.parse(text) else { return 0 }
    let rendered = SchemaLanguage.render(parsed.schema)
    guard let again = try? SchemaLanguage.parse(rendered) else { fatalError("a rendered schema does not parse:\n\(rendered)") }
    precondition(again.schema == parsed.schema, "a rendered schema parses to a different schema:\n\(rendered)")
    return 0
}

runFuzzer(fuzzSchema)
