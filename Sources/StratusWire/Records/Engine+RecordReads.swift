import Foundation
import StratusEngine
import StratusModel

/// records/lookup and records/query on the wire: the body decoded, the engine's typed answer
/// rendered as CKWS record dictionaries.
extension Engine {
    public func lookupRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let request = try LookupRequest(json: body, limits: limits)
        let fetched = try await lookup(scope, request.lookup)
        let links = assetLinks(fetched.readScope)
        var records: [JSONValue] = []
        records.reserveCapacity(fetched.results.count)
        for (position, result) in fetched.results.enumerated() {
            switch result {
            case .success(let record):
                let keys = (request.desiredKeysByRecord[position] ?? request.desiredKeys).map(Set.init)
                records.append(
                    RecordRenderer(
                        store: fetched.readScope.store, desiredKeys: keys, numbersAsStrings: request.numbersAsStrings,
                        assetLinks: links, viewer: scope.caller.userRecordName
                    ).render(record))
            case .failure(let error):
                let name = request.lookup.recordNames[position]
                records.append(recordErrorJSON(recordName: name, error, uuid: UUID.random().uuidString))
            }
        }
        return .object(["records": .array(records)])
    }

    public func queryRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let request = try QueryRequest(json: body, limits: limits)
        let page = try await query(scope, request.query)
        let renderer = RecordRenderer(
            store: page.readScope.store, desiredKeys: request.desiredKeys.map(Set.init), numbersAsStrings: request.numbersAsStrings,
            assetLinks: assetLinks(page.readScope), viewer: scope.caller.userRecordName)
        var records: [JSONValue] = []
        page.forEachRecord { records.append(renderer.render($0)) }
        var response: [String: JSONValue] = ["records": .array(records)]
        if let marker = page.continuationMarker { response["continuationMarker"] = .string(marker) }
        return .object(response)
    }
}
