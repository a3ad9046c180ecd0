import StratusModel

/// A record field (`{"value", "type"}` as CKWS sends it) as readable markup: text stays text,
/// references become links inside the console, assets get download and preview links,
/// locations and lists are spelled out. No value ever becomes markup, an attribute other than an
/// escaped one, or a link off the console.
struct FieldValueView {
    /// The console address of a referenced record (zone, record name).
    var recordLink: (_ zone: String, _ recordName: String) -> ConsoleURL
    /// The console address of an asset's bytes (from its download URL), or nil when none.
    var assetLink: (_ downloadURL: String) -> ConsoleURL?
    /// Whether an asset's bytes are an image the console previews.
    var isImage: (_ downloadURL: String) -> Bool = { _ in false }

    func render(_ field: JSONValue) -> HTML {
        let type = field["type"]?.stringValue ?? ""
        guard let value = field["value"] else { return "<span class=\"muted\">none</span>" }
        if type.hasSuffix("_LIST") || value.arrayValue != nil, let items = value.arrayValue {
            let scalar = String(type.dropLast(type.hasSuffix("_LIST") ? 5 : 0))
            let rendered = items.map { render(scalar: scalar, $0) }
            return "<ol class=\"list\">" + HTML.join(rendered.map { "<li>\($0)</li>" }) + "</ol>"
        }
        return render(scalar: type, value)
    }

    func render(scalar type: String, _ value: JSONValue) -> HTML {
        switch type {
        case "TIMESTAMP":
            guard let milliseconds = value.int64Value ?? value.doubleValue.map({ Int64($0) }) else { break }
            return "<time>\(ConsoleFormat.time(milliseconds))</time> <span class=\"muted\">(\(milliseconds))</span>"
        case "REFERENCE":
            guard let name = value["recordName"]?.stringValue else { break }
            let zone = value["zoneID"]?["zoneName"]?.stringValue ?? "_defaultZone"
            let action = value["action"]?.stringValue ?? "NONE"
            return "<a class=\"reference\" href=\"\(recordLink(zone, name))\">\(name)</a> <span class=\"badge\">\(action)</span>"
        case "ASSETID", "ASSET":
            let size = value["size"]?.int64Value.map { "\($0) bytes" } ?? ""
            guard let url = value["downloadURL"]?.stringValue, let link = assetLink(url) else {
                return "<span class=\"muted\">asset \(size)</span>"
            }
            let preview: HTML = isImage(url) ? "<br><img class=\"preview\" src=\"\(link)\" alt=\"image preview\">" : ""
            return "<a class=\"asset\" href=\"\(link)\">Download</a> <span class=\"muted\">\(size)</span>\(preview)"
        case "LOCATION":
            guard let latitude = value["latitude"]?.doubleValue, let longitude = value["longitude"]?.doubleValue else { break }
            return "\(latitude), \(longitude)"
        default:
            break
        }
        return "<span class=\"value\">\(plain(value))</span>"
    }

    /// A scalar as text; anything else as its JSON.
    func plain(_ value: JSONValue) -> String {
        if let text = value.stringValue { return text }
        if let number = value.int64Value { return String(number) }
        if let number = value.doubleValue { return String(number) }
        if let flag = value.boolValue { return String(flag) }
        return value.serializedString
    }
}
