import {invalidArguments} from './errors.js';
import {DEFAULT_ZONE} from './constants.js';

// Zone IDs as apps write them: a zone name, {zoneName, ownerRecordName?}, or a zone {zoneID}.
export function zoneIDOf(value, path = 'zoneID') {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return {zoneName: value};
    if (typeof value === 'object') {
        if (value.zoneID) return zoneIDOf(value.zoneID, path);
        if (typeof value.zoneName === 'string') {
            return value.ownerRecordName ? {zoneName: value.zoneName, ownerRecordName: value.ownerRecordName} : {zoneName: value.zoneName};
        }
    }
    throw invalidArguments(`${path} must be a zone name or {zoneName}, not ${JSON.stringify(value)}`);
}

export const zoneKey = (zoneID) => (zoneID ? `${zoneID.zoneName}\u0000${zoneID.ownerRecordName || ''}` : `${DEFAULT_ZONE}\u0000`);

// Splits items by zone, since a CKWS request reads or writes one zone: [{zoneID, entries: [{index, item}]}].
export function groupByZone(items, zoneOfItem, fallback) {
    const groups = new Map();
    items.forEach((item, index) => {
        const zoneID = zoneOfItem(item) || fallback;
        const key = zoneKey(zoneID);
        if (!groups.has(key)) groups.set(key, {zoneID, entries: []});
        groups.get(key).entries.push({index, item});
    });
    return [...groups.values()];
}

// Runs one request per zone group, in parallel, and puts the answers' items back in input order.
export async function perZone(groups, count, send) {
    const out = new Array(count);
    await Promise.all(groups.map(async (group) => {
        const items = await send(group);
        group.entries.forEach((entry, i) => { out[entry.index] = items[i]; });
    }));
    return out;
}
