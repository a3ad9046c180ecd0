import Foundation
import Crypto
import StratusEngine
import StratusModel

/// Turns a record type's index options into database indexes: one expression index per
/// QUERYABLE/SORTABLE scalar field (the same B-tree serves equality, ranges and order), one per
/// indexed system field, one per composite index. List fields are served by the `list_values`
/// side table, SEARCHABLE fields by the dialect's full-text index.
struct IndexManager {
    let dialect: any SQLDialect
    let sql: any SQLExecutor

    var paths: FieldPaths { FieldPaths(dialect: dialect) }

    func createIndexes(for recordType: RecordTypeSchema) async throws {
        guard NameRules.isIdentifier(recordType.name) else { return }
        for (name, field) in recordType.fields where !field.type.isList && !field.indexes.intersection([.queryable, .sortable]).isEmpty {
            let expression: String
            switch field.type.scalar {
            case .location: expression = paths.latitude(name)
            case .asset, .bytes: continue
            default: expression = paths.expression(.field(name: name, type: field.type))
            }
            try await create(recordType.name, ["single", name], [expression])
        }
        for (system, flags) in recordType.systemIndexes where !flags.intersection([.queryable, .sortable]).isEmpty {
            // records_by_type already orders by record name.
            if system == .recordName || system == .share || system == .parent { continue }
            try await create(recordType.name, ["system", system.rawValue], [paths.expression(.system(system))])
        }
        for compound in recordType.compoundIndexes {
            let expressions = (compound.equalityFields + [compound.sortField]).compactMap { expression(for: $0, in: recordType) }
            guard expressions.count == compound.equalityFields.count + 1 else { continue }
            try await create(recordType.name, ["compound"] + compound.equalityFields + [compound.sortField], expressions)
        }
    }

    func expression(for field: String, in recordType: RecordTypeSchema) -> String? {
        if let system = SystemFieldName(schemaName: field) { return paths.expression(.system(system)) }
        guard let schema = recordType.fields[field], !schema.type.isList, schema.type.scalar.isOrdered else { return nil }
        return paths.expression(.field(name: field, type: schema.type))
    }

    /// Every index leads with the store and zone (queries name a zone unless they are zone-wide)
    /// and ends with the record name, the tie-breaker, so a page of a sorted query is read
    /// straight off the index.
    func create(_ recordType: String, _ nameParts: [String], _ expressions: [String]) async throws {
        // "v2" is the column layout; a layout change gets new index names instead of silently
        // keeping old-layout indexes under `IF NOT EXISTS`.
        let digest = SHA256.hash(data: Array(("v2|" + recordType + "|" + nameParts.joined(separator: "|")).utf8))
            .prefix(6).map { String(format: "%02x", $0) }.joined()
        let readable = (recordType + "_" + nameParts.joined(separator: "_")).prefix(40)
        let name = "rx_\(readable)_\(digest)"
        let columns = ["store_id", "zone_name"] + expressions + ["record_name"]
        try await sql.executeAfterCommit(SQLFragment(text: dialect.createRecordIndex(name: name, expressions: columns, recordType: recordType)))
    }

    func backfillFullText(recordType: String, field: String, slot: Int, isList: Bool, container: String, environment: DatabaseEnvironment) async throws {
        let stores: SQLFragment = "records.store_id IN (SELECT id FROM stores WHERE container = \(bind: container) AND environment = \(bind: environment.rawValue))"
        if let statement = dialect.fullTextBackfill(recordType: recordType, field: field, slot: slot, isList: isList, storeFilter: stores) {
            try await sql.execute(statement)
            return
        }
        // The backend tokenizes in Swift: read each record of the type and index its field.
        let rows = try await sql.query("SELECT records.id, records.fields FROM records WHERE records.record_type = \(bind: recordType) AND \(stores)")
        for row in rows {
            guard let recordID = row[0].integer,
                let text = StoredFields(text: row[1].text ?? "{}").fields[field]?.searchableText
            else { continue }
            for statement in dialect.fullTextUpsert(documentID: recordID * 256 + Int64(slot), text: text) {
                try await sql.execute(statement)
            }
        }
    }
}
