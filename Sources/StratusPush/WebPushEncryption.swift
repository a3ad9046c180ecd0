import Crypto
import Foundation

/// Message encryption for Web Push (RFC 8291 over RFC 8188 `aes128gcm`): a fresh P-256 key pair
/// and salt per message, a key agreed with the browser's `p256dh` key and mixed with its `auth`
/// secret, the plaintext in one AES-128-GCM record.
public enum WebPushEncryption {
    static let recordSize: UInt32 = 4096

    /// The request body: salt ‖ record size ‖ key length ‖ sender public key ‖ ciphertext.
    public static func encrypt(
        _ plaintext: [UInt8], p256dh: Data, auth: Data,
        senderKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
        salt: [UInt8] = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
    ) throws -> [UInt8] {
        let receiverKey = try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        let senderPublic = Array(senderKey.publicKey.x963Representation)
        let (key, nonce) = try contentKeys(
            shared: try senderKey.sharedSecretFromKeyAgreement(with: receiverKey), auth: auth,
            receiverPublic: Array(p256dh), senderPublic: senderPublic, salt: salt)
        // One record, so it is also the last: the 0x02 delimiter ends it, with no padding.
        let sealed = try AES.GCM.seal(plaintext + [2], using: key, nonce: nonce)
        var body = salt
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublic.count))
        body.append(contentsOf: senderPublic)
        body.append(contentsOf: sealed.ciphertext)
        body.append(contentsOf: sealed.tag)
        return body
    }

    /// The content-encryption key and nonce both sides derive (RFC 8291 §3.4, RFC 8188 §2.2).
    public static func contentKeys(
        shared: SharedSecret, auth: Data, receiverPublic: [UInt8], senderPublic: [UInt8],
        salt: [UInt8]
    ) throws -> (SymmetricKey, AES.GCM.Nonce) {
        let info = Array("WebPush: info".utf8) + [0] + receiverPublic + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: info, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0],
            outputByteCount: 16)
        let nonceBytes = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0],
            outputByteCount: 12)
        return (key, try AES.GCM.Nonce(data: nonceBytes.withUnsafeBytes { Data($0) }))
    }
}
