import {invalidArguments} from './errors.js';

// Field values between the JavaScript an app writes and the CKWS wire form.
//
// Saving: a field is {value, type?} (a bare value is wrapped). A Date becomes TIMESTAMP, a
// {latitude, longitude} object LOCATION, a {recordName} object REFERENCE; a Blob, File,
// ArrayBuffer or Uint8Array (a Node Buffer included) is an asset, uploaded before the save
// (assets.js). Strings, numbers and lists of them go without a type, so the server applies the
// schema's type (a DOUBLE field keeps 3 as 3.0). An explicit `type` always wins.
// Reading: TIMESTAMP values become Date objects; everything else is as the server sent it.

const isPlainObject = (value) => value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

export function isAssetSource(value) {
    return (typeof Blob !== 'undefined' && value instanceof Blob) || value instanceof ArrayBuffer || ArrayBuffer.isView(value);
}

function inferType(value) {
    if (value instanceof Date) return 'TIMESTAMP';
    if (isAssetSource(value)) return 'ASSET';
    if (isPlainObject(value)) {
        if (typeof value.latitude === 'number' && typeof value.longitude === 'number') return 'LOCATION';
        if (typeof value.recordName === 'string') return 'REFERENCE';
        if (typeof value.receipt === 'string' || typeof value.fileChecksum === 'string') return 'ASSET';
    }
    return undefined;
}

function bytesToBase64(bytes) {
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(text);
}

function encodeScalar(value, type, path) {
    if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw invalidArguments(`${path} is an invalid Date; give a valid Date or milliseconds since 1970`);
        return value.getTime();
    }
    if (type === 'BYTES' || type === 'BYTES_LIST') {
        if (value instanceof ArrayBuffer) return bytesToBase64(new Uint8Array(value));
        if (ArrayBuffer.isView(value)) return bytesToBase64(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    }
    if (typeof value === 'number' && !Number.isFinite(value)) throw invalidArguments(`${path} is ${value}; CloudKit numbers must be finite`);
    if (typeof value === 'function' || typeof value === 'symbol') throw invalidArguments(`${path} is a ${typeof value}, which no CloudKit field can hold`);
    return value;
}

// One field of a record (or a filter's fieldValue) in its wire form. Assets must have been replaced
// by their upload dictionaries before this is called.
export function encodeField(field, path) {
    const wrapped = isPlainObject(field) && 'value' in field ? field : {value: field};
    const {value} = wrapped;
    let type = wrapped.type;
    if (value === undefined) throw invalidArguments(`${path} has no value; give {value: …}, or {value: null} to clear the field`);
    if (value === null) return type ? {value: null, type} : {value: null};
    if (Array.isArray(value)) {
        if (!type) {
            const element = value.length ? inferType(value[0]) : undefined;
            if (element) type = `${element}_LIST`;
        }
        return withType(value.map((item, index) => encodeScalar(item, type, `${path}[${index}]`)), type);
    }
    type = type || inferType(value);
    return withType(encodeScalar(value, type, path), type);
}

const withType = (value, type) => (type ? {value, type} : {value});

// A file to upload: a Blob/buffer, or a list of them, without a type other than ASSET.
function holdsFiles(field) {
    const wrapped = isPlainObject(field) && 'value' in field;
    const value = wrapped ? field.value : field;
    if (wrapped && field.type && field.type !== 'ASSET' && field.type !== 'ASSET_LIST') return false;
    return Array.isArray(value) ? value.some(isAssetSource) : isAssetSource(value);
}

// `keepFiles`: fields holding files to upload are left as given (assets.js uploads them and puts
// the upload's dictionary in their place).
export function encodeFields(fields, recordPath, keepFiles = false) {
    if (fields === undefined) return undefined;
    if (!isPlainObject(fields)) throw invalidArguments(`${recordPath}.fields must be an object of field name to {value}`);
    const out = {};
    for (const name of Object.keys(fields)) {
        out[name] = keepFiles && holdsFiles(fields[name]) ? fields[name] : encodeField(fields[name], `${recordPath}.fields.${name}`);
    }
    return out;
}

// A record as the server sent it, with TIMESTAMP values as Date objects. Mutates and returns it:
// responses are parsed fresh for every call, so nothing else holds them.
export function decodeRecord(record) {
    const fields = record.fields;
    if (fields) {
        for (const name in fields) {
            const field = fields[name];
            if (field.type === 'TIMESTAMP' && typeof field.value === 'number') field.value = new Date(field.value);
            else if (field.type === 'TIMESTAMP_LIST' && Array.isArray(field.value)) field.value = field.value.map((ms) => new Date(ms));
        }
    }
    return record;
}
