import {invalidArguments} from './errors.js';
import {isAssetSource} from './values.js';

// Assets on save (docs/protocol.md §8): every Blob, File, ArrayBuffer or Uint8Array (a Node Buffer
// included) found in the records' fields is uploaded first — one assets/upload request for upload
// URLs, then the bytes to each URL in parallel — and the field is given the dictionary the upload
// answered, with its receipt, before the records themselves are saved.

const newRecordName = () => (globalThis.crypto?.randomUUID ? crypto.randomUUID() :
    'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => ((Math.random() * 16) | 0).toString(16)));

// `records`: the wire-bound copies (fields not yet encoded), which this fills in place.
export async function uploadAssets(database, records, zoneID) {
    const slots = [];
    for (const record of records) {
        if (!record.fields) continue;
        for (const name of Object.keys(record.fields)) {
            const field = record.fields[name];
            const wrapped = field !== null && typeof field === 'object' && !isAssetSource(field) && 'value' in field;
            const value = wrapped ? field.value : field;
            const type = wrapped ? field.type : undefined;
            if (type && type !== 'ASSET' && type !== 'ASSET_LIST') continue;
            const list = Array.isArray(value);
            const items = list ? value : [value];
            if (!items.length || !items.every(isAssetSource)) {
                if (items.some(isAssetSource)) throw invalidArguments(`field ${name} of ${record.recordName || 'a new record'} mixes files with other values; an asset list holds files only`);
                continue;
            }
            if (!record.recordType) throw invalidArguments(`a record with an asset in field ${name} needs its recordType`);
            if (!record.recordName) record.recordName = newRecordName();
            slots.push({record, name, list, items});
        }
    }
    if (!slots.length) return;
    const tokens = [];
    for (const slot of slots) {
        for (let i = 0; i < slot.items.length; i++) tokens.push({recordType: slot.record.recordType, recordName: slot.record.recordName, fieldName: slot.name});
    }
    const answer = await database.request('assets/upload', {tokens, zoneID});
    const urls = (answer.tokens || []).map((token) => token.url);
    if (urls.length !== tokens.length || urls.some((url) => typeof url !== 'string')) {
        throw invalidArguments(`assets/upload answered ${urls.length} upload URLs for ${tokens.length} files`);
    }
    const transport = database.container.transport;
    let next = 0;
    await Promise.all(slots.map(async (slot) => {
        const start = next;
        next += slot.items.length;
        const uploaded = await Promise.all(slot.items.map(async (item, i) => (await transport.upload(urls[start + i], item)).singleFile));
        slot.record.fields[slot.name] = slot.list ? {value: uploaded, type: 'ASSET_LIST'} : {value: uploaded[0], type: 'ASSET'};
    }));
}
