import Foundation
import Hummingbird
import NIOCore
import StratusEngine
import StratusWire
import StratusModel

/// Uploading a file into an asset field from a record's page: the same steps an app takes
/// (`assets/upload` for a slot, the bytes to the blob store, the receipt saved into the field
/// with an `update`), run through the engine.
extension ConsoleScreens {
    func assetUploadForm(
        _ console: ConsoleRequest, hidden: HTML, recordType: String, name: String, changeTag: String,
        assetFields: [String]
    ) -> HTML {
        guard assets != nil else { return "" }
        let suggestions = HTML.join(assetFields.map { "<option value=\"\($0)\">" })
        return """
            <h2>Upload an asset</h2>
            <form method="post" action="/console/record/asset" enctype="multipart/form-data" class="bar" id="asset-form">
            \(console.chrome.csrfField)\(hidden)
            <input type="hidden" name="type" value="\(recordType)"><input type="hidden" name="name" value="\(name)"><input type="hidden" name="tag" value="\(changeTag)">
            <label>Field <input type="text" name="field" list="asset-fields" required placeholder="e.g. image"></label>
            <datalist id="asset-fields">\(suggestions)</datalist>
            <label>File <input type="file" name="file" id="asset-file" required></label>
            <button type="submit" id="upload-asset">Upload</button>
            <span class="muted">Up to \(ConsoleRoutes.maximumUploadBytes / (1024 * 1024)) MB from here; larger files through <code>assets/upload</code>.</span>
            </form>
            """
    }

    func uploadAsset(_ console: ConsoleRequest) async throws -> Response {
        guard let assets else { throw CloudKitError.badRequest("this server was started without an asset store, so it keeps no assets") }
        let location = ConsoleRecordLocation(console)
        let name = console["name"]
        let field = console["field"].trimmingCharacters(in: .whitespaces)
        guard !field.isEmpty else { throw CloudKitError.badRequest("name the field the file goes into") }
        guard let file = console.files["file"], !file.bytes.isEmpty else { throw CloudKitError.badRequest("choose a file to upload (it was empty or missing)") }
        let scope = try await location.scope(console, engine: engine)
        let slots = try await engine.requestAssetUploads(
            scope,
            body: .object([
                "tokens": .array([.object(["recordName": .string(name), "fieldName": .string(field)])]), "zoneID": location.zoneID,
            ]))
        guard let url = slots["tokens"]?[0]?["url"]?.stringValue else { throw CloudKitError(.internalError, "assets/upload answered without a URL") }
        let slot = try engine.openUploadToken(ConsoleURL.decodeLastComponent(url))
        let spooled = try await UploadSpool(folder: assets.spoolFolder).receive(
            RequestBody(buffer: ByteBuffer(bytes: file.bytes)),
            maximumBytes: engine.limits.maximumAssetBytes)
        defer { try? FileManager.default.removeItem(at: spooled.file) }
        guard let receipt = try await assets.store(spooled, for: slot, engine: engine)["singleFile"] else {
            throw CloudKitError(.internalError, "assets/upload answered without a receipt")
        }
        let answer = try await engine.modifyRecords(
            scope,
            body: .object([
                "operations": .array([
                    .object([
                        "operationType": "update",
                        "record": .object([
                            "recordName": .string(name), "recordType": .string(console["type"]), "recordChangeTag": .string(console["tag"]),
                            "fields": .object([field: .object(["value": receipt, "type": "ASSET"])]),
                        ]),
                    ])
                ]),
                "zoneID": location.zoneID,
            ]))
        if let result = answer["records"]?[0], let code = result["serverErrorCode"]?.stringValue {
            if code == ServerErrorCode.conflict.rawValue {
                throw CloudKitError(.conflict, "\(name) changed on the server after this page was opened; reload it and upload again")
            }
            throw CloudKitError(ServerErrorCode(rawValue: code) ?? .badRequest, result["reason"]?.stringValue ?? "the asset was not saved")
        }
        try await audit(
            console, "record.asset.upload",
            "\(location.database.rawValue) database, zone \(location.zone): \(name).\(field) ← \(file.filename) (\(spooled.size) bytes)")
        return ConsoleResponse.redirect(location.recordLink(console, zone: location.zone, name: name))
    }
}
