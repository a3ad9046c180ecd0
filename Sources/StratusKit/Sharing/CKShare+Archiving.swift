import Foundation
import StratusModel

// A share's participants and permissions are part of its system fields: an app that caches a
// share with `encodeSystemFields(with:)` and saves the restored share later must send the same
// participant list, or the save would remove everyone.

extension CKShare {
    static let shareStateArchiveKey = "shareState"

    func encodeShareState(with coder: NSCoder) {
        coder.encode(archivedShareState.serializedData as NSData, forKey: Self.shareStateArchiveKey)
    }

    func decodeShareArchive(from coder: NSCoder) {
        guard let data = coder.decodeIfPresent(NSData.self, forKey: Self.shareStateArchiveKey),
            let state = try? JSONValue.parse(data as Data)
        else { return }
        applyShareState(state)
    }
}
