import StratusModel

/// CloudKit's text schema language (docs/protocol.md §12.1), for `stratus schema export|import`.
///
/// Stratus extension: an `INDEX (a, b, sort)` item declares a composite index (equality on every
/// field but the last, order by the last). `GRANT` items and `CREATE ROLE` are read and returned
/// separately so callers can apply them to the container's roles and grants.
public enum SchemaLanguage {
    static let reserved: Set<String> = ["grant", "preferred", "queryable", "sortable", "searchable", "index", "list", "record", "type"]

    /// Renders a schema in the text language, types and fields in name order.
    public static func render(_ schema: Schema) -> String {
        var out = "DEFINE SCHEMA\n"
        for recordType in schema.recordTypes.values.sorted(by: { $0.name < $1.name }) {
            var items: [String] = []
            for system in SystemFieldName.allCases {
                guard let flags = recordType.systemIndexes[system], !flags.isEmpty else { continue }
                items.append("\"\(system.schemaName)\" \(schemaType(of: system)) " + flags.names.joined(separator: " "))
            }
            for field in recordType.fields.values.sorted(by: { $0.name < $1.name }) {
                items.append(([quote(field.name), field.type.description] + field.indexes.names).joined(separator: " "))
            }
            for compound in recordType.compoundIndexes {
                items.append("INDEX (" + (compound.equalityFields + [compound.sortField]).map(quote).joined(separator: ", ") + ")")
            }
            out += "\n    RECORD TYPE \(quote(recordType.name)) (\n"
            out += items.map { "        " + $0 }.joined(separator: ",\n")
            out += "\n    );\n"
        }
        return out
    }

    /// The type a system field is declared with: TIMESTAMP for the two times, REFERENCE otherwise.
    static func schemaType(of system: SystemFieldName) -> String {
        system.valueType == .timestamp ? "TIMESTAMP" : "REFERENCE"
    }

    static func quote(_ name: String) -> String {
        reserved.contains(name.lowercased()) || name.hasPrefix("_") ? "\"\(name)\"" : name
    }

    /// What a schema file declares.
    public struct Parsed: Sendable {
        public var schema: Schema
        /// `GRANT` items and `CREATE ROLE` statements, as written (not applied yet).
        public var securityStatements: [String]
    }

    public static func parse(_ text: String) throws(CloudKitError) -> Parsed {
        var parser = SchemaParser(tokens: try SchemaTokenizer.tokens(text))
        return try parser.parseSchema()
    }
}

struct SchemaToken: Equatable {
    var text: String
    var quoted: Bool
    var line: Int

    func isKeyword(_ keyword: String) -> Bool { !quoted && text.caseInsensitiveCompare(keyword) == .orderedSame }
}

enum SchemaTokenizer {
    static func tokens(_ text: String) throws(CloudKitError) -> [SchemaToken] {
        var tokens: [SchemaToken] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var line = 1
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" { line += 1; index += 1; continue }
            if scalar.properties.isWhitespace { index += 1; continue }
            let next: Unicode.Scalar? = index + 1 < scalars.count ? scalars[index + 1] : nil
            if (scalar == "/" && next == "/") || (scalar == "-" && next == "-") {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
                continue
            }
            if scalar == "/" && next == "*" {
                index += 2
                while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") {
                    if scalars[index] == "\n" { line += 1 }
                    index += 1
                }
                index += 2
                continue
            }
            if "(),;<>".unicodeScalars.contains(scalar) {
                tokens.append(SchemaToken(text: String(scalar), quoted: false, line: line))
                index += 1
                continue
            }
            if scalar == "\"" {
                var word = ""
                index += 1
                while index < scalars.count, scalars[index] != "\"" { word.unicodeScalars.append(scalars[index]); index += 1 }
                if index >= scalars.count { throw .badRequest("schema line \(line): unterminated quoted name") }
                index += 1
                tokens.append(SchemaToken(text: word, quoted: true, line: line))
                continue
            }
            var word = ""
            while index < scalars.count, scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index]) || scalars[index] == "_" || scalars[index] == "." {
                word.unicodeScalars.append(scalars[index])
                index += 1
            }
            if word.isEmpty { throw .badRequest("schema line \(line): unexpected character '\(scalar)'") }
            tokens.append(SchemaToken(text: word, quoted: false, line: line))
        }
        return tokens
    }
}

struct SchemaParser {
    let tokens: [SchemaToken]
    var position = 0

    init(tokens: [SchemaToken]) { self.tokens = tokens }

    var current: SchemaToken? { position < tokens.count ? tokens[position] : nil }

    func fail(_ problem: String) -> CloudKitError {
        .badRequest("schema line \(current?.line ?? tokens.last?.line ?? 1): \(problem)")
    }

    mutating func expect(_ text: String) throws(CloudKitError) {
        guard let token = current, token.isKeyword(text) || (token.text == text && !token.quoted) else {
            throw fail("expected '\(text)', found '\(current?.text ?? "end of file")'")
        }
        position += 1
    }

    mutating func name(_ what: String) throws(CloudKitError) -> String {
        guard let token = current, token.quoted || !"(),;<>".contains(token.text) else { throw fail("expected \(what)") }
        position += 1
        return token.text
    }

    mutating func parseSchema() throws(CloudKitError) -> SchemaLanguage.Parsed {
        var schema = Schema()
        var security: [String] = []
        try expect("DEFINE")
        try expect("SCHEMA")
        while let token = current {
            if token.isKeyword("CREATE") {
                position += 1
                try expect("ROLE")
                security.append("CREATE ROLE \(try name("a role name"))")
            } else if token.isKeyword("RECORD") {
                position += 1
                try expect("TYPE")
                let typeName = try name("a record type name")
                try NameRules.checkIdentifier(typeName, what: "record type", path: "schema")
                var recordType = schema.recordTypes[typeName] ?? RecordTypeSchema(name: typeName)
                try expect("(")
                while let item = current, item.text != ")" || item.quoted {
                    try parseItem(into: &recordType, security: &security)
                    if current?.text == "," && current?.quoted == false { position += 1 }
                }
                try expect(")")
                schema.recordTypes[typeName] = recordType
            } else {
                throw fail("expected RECORD TYPE or CREATE ROLE, found '\(token.text)'")
            }
            if current?.text == ";" { position += 1 }
        }
        return SchemaLanguage.Parsed(schema: schema, securityStatements: security)
    }

    mutating func parseItem(into recordType: inout RecordTypeSchema, security: inout [String]) throws(CloudKitError) {
        guard let token = current else { throw fail("unexpected end of file") }
        if token.isKeyword("GRANT") {
            position += 1
            var permissions = [try name("a permission (READ, CREATE or WRITE)")]
            while current?.text == ",", current?.quoted == false, let next = tokens.dropFirst(position + 1).first,
                ["READ", "CREATE", "WRITE"].contains(next.text.uppercased())
            {
                position += 1
                permissions.append(try name("a permission"))
            }
            try expect("TO")
            let role = try name("a role name")
            security.append("\(recordType.name): GRANT \(permissions.joined(separator: ", ")) TO \(role)")
            return
        }
        if token.isKeyword("INDEX") {
            position += 1
            try expect("(")
            var fields: [String] = []
            while let field = current, field.text != ")" || field.quoted {
                if field.text == "," && !field.quoted { position += 1; continue }
                let fieldName = try name("a field name")
                if SystemFieldName(schemaName: fieldName) == nil {
                    try NameRules.checkIdentifier(fieldName, what: "index field name", path: "schema \(recordType.name)")
                }
                fields.append(fieldName)
            }
            try expect(")")
            guard fields.count >= 2 else { throw fail("INDEX needs at least two fields: equality fields, then the sort field") }
            let compound = CompoundIndex(equalityFields: Array(fields.dropLast()), sortField: fields.last!)
            if !recordType.compoundIndexes.contains(compound) { recordType.compoundIndexes.append(compound) }
            return
        }
        let fieldName = try name("a field name")
        let typeLine = current?.line ?? 1
        var typeName = try name("a type")
        if typeName.uppercased() == "LIST" {
            try expect("<")
            typeName = "LIST<\(try name("a list element type"))>"
            try expect(">")
        } else if typeName.uppercased() == "NUMBER" {
            typeName = "INT64"
            if current?.isKeyword("PREFERRED") == true {
                position += 1
                try expect("AS")
                typeName = try name("INT64 or DOUBLE")
            }
        } else if typeName.uppercased() == "ENCRYPTED" {
            typeName = try name("a type")
        }
        var flags = IndexFlags()
        while let word = current, !word.quoted {
            if word.isKeyword("QUERYABLE") {
                flags.insert(.queryable)
            } else if word.isKeyword("SORTABLE") {
                flags.insert(.sortable)
            } else if word.isKeyword("SEARCHABLE") {
                flags.insert(.searchable)
            } else {
                break
            }
            position += 1
        }
        if let system = SystemFieldName(schemaName: fieldName) {
            let expected = SchemaLanguage.schemaType(of: system)
            guard typeName.uppercased() == expected else {
                throw CloudKitError.badRequest("schema line \(typeLine): system field '\(fieldName)' is \(expected), not '\(typeName)'")
            }
            // Without index options the line declares nothing; an empty entry would make the
            // schema differ from the same schema exported and imported again.
            if !flags.isEmpty { recordType.systemIndexes[system, default: []].formUnion(flags) }
            return
        }
        try NameRules.checkIdentifier(fieldName, what: "field name", path: "schema \(recordType.name)")
        guard let type = FieldTypeDescriptor(schemaName: typeName) else {
            throw CloudKitError.badRequest("schema line \(typeLine): '\(typeName)' is not a field type; use STRING, INT64, DOUBLE, TIMESTAMP, BYTES, REFERENCE, LOCATION, ASSET or LIST<…>")
        }
        recordType.fields[fieldName] = FieldSchema(name: fieldName, type: type, indexes: flags)
    }
}
