import StratusEngine
import StratusModel

/// What the request targets decode against: a schema with a field of every type and index
/// option, a private store in development, the default limits.
public enum Fixtures {
    public static let schemaText = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Note (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___modTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SEARCHABLE SORTABLE,
                body STRING SEARCHABLE,
                rating NUMBER PREFERRED AS INT64 QUERYABLE SORTABLE,
                score DOUBLE QUERYABLE SORTABLE,
                due TIMESTAMP QUERYABLE SORTABLE,
                place LOCATION QUERYABLE SORTABLE,
                owner REFERENCE QUERYABLE,
                attachment ASSET,
                blob BYTES,
                tags LIST<STRING> QUERYABLE,
                counts LIST<INT64> QUERYABLE,
                INDEX (title, rating),
                GRANT WRITE TO "_creator",
                GRANT CREATE, READ TO "_icloud"
            );
            RECORD TYPE Empty (
                "___recordID" REFERENCE QUERYABLE
            );
        """

    public static let schema: Schema = {
        do { return try SchemaLanguage.parse(schemaText).schema } catch { fatalError("the fixture schema does not parse: \(error)") }
    }()

    public static let store = StoreKey(container: "iCloud.org.example.fuzz", environment: .development, scope: .private, owner: "_fuzzer")
    public static let limits = EngineLimits()

    static func warmUp() {
        _ = (schema, store, limits, note)
    }
}

/// The input as a request body, or `nil` when it is not JSON (the JSON target covers that path).
public func jsonBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> JSONValue? {
    try? JSONValue.parse(inputBytes(data, size))
}
