import {configurationError} from './errors.js';

// Server-to-server key signing (docs/protocol.md §2.3): ECDSA P-256 with SHA-256 over
// `date:bodyHash:path`, through Web Crypto, so it runs in Node 18+ and in browsers alike.

const encoder = new TextEncoder();

// Web Crypto: global in browsers and Node 19+; Node 18 has it as node:crypto's webcrypto.
async function subtle() {
    if (globalThis.crypto?.subtle) return globalThis.crypto.subtle;
    if (typeof process !== 'undefined' && process.versions?.node) return (await import('node:crypto')).webcrypto.subtle;
    throw configurationError('server-to-server keys need Web Crypto (crypto.subtle), which this runtime lacks');
}

function base64ToBytes(text) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
}

const bytesToBase64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

function derLength(length) {
    if (length < 0x80) return [length];
    return length < 0x100 ? [0x81, length] : [0x82, length >> 8, length & 0xff];
}

// SEC1 "EC PRIVATE KEY" (what `openssl ecparam -genkey` writes) wrapped as PKCS #8, the form Web
// Crypto imports: SEQUENCE { INTEGER 0, SEQUENCE { id-ecPublicKey, prime256v1 }, OCTET STRING sec1 }.
function pkcs8FromSEC1(sec1) {
    const algorithm = [0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    const body = [0x02, 0x01, 0x00, ...algorithm, 0x04, ...derLength(sec1.length), ...sec1];
    return new Uint8Array([0x30, ...derLength(body.length), ...body]);
}

export async function importPrivateKey(pem) {
    if (typeof pem !== 'string') throw configurationError('serverToServerKeyAuth.privateKey must be a PEM string');
    const match = /-----BEGIN (EC )?PRIVATE KEY-----([\s\S]*?)-----END (EC )?PRIVATE KEY-----/.exec(pem);
    if (!match) {
        throw configurationError('serverToServerKeyAuth: the private key is not a PEM "PRIVATE KEY" or "EC PRIVATE KEY" ' +
            '(make one with: openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem)');
    }
    let der = base64ToBytes(match[2].replace(/\s+/g, ''));
    if (match[1]) der = pkcs8FromSEC1(der);
    try {
        return await (await subtle()).importKey('pkcs8', der, {name: 'ECDSA', namedCurve: 'P-256'}, false, ['sign']);
    } catch (error) {
        throw configurationError(`serverToServerKeyAuth: the private key is not a P-256 key Web Crypto can use (${error.message})`);
    }
}

// The three headers of a signed request. `pathAndQuery` is the request target as sent.
export async function signatureHeaders(key, keyID, pathAndQuery, bodyText, actAsUser) {
    const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const webCrypto = await subtle();
    const bodyHash = bytesToBase64(await webCrypto.digest('SHA-256', encoder.encode(bodyText || '')));
    let message = `${date}:${bodyHash}:${pathAndQuery}`;
    if (actAsUser) message += `:${actAsUser}`;
    const signature = await webCrypto.sign({name: 'ECDSA', hash: 'SHA-256'}, key, encoder.encode(message));
    const headers = {
        'X-Apple-CloudKit-Request-KeyID': keyID,
        'X-Apple-CloudKit-Request-ISO8601Date': date,
        'X-Apple-CloudKit-Request-SignatureV1': bytesToBase64(signature),
    };
    if (actAsUser) headers['X-Stratus-Act-As-User'] = actAsUser;
    return headers;
}
