// Assets: a Buffer, a Blob and a list of files in fields are uploaded on save; fetched records carry
// a downloadURL that gives the same bytes back.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {createHash, randomBytes} from 'node:crypto';
import {startServer, sdk} from './server.mjs';

let server;
let db;
before(async () => {
    server = await startServer();
    db = (await sdk(server)).getDefaultContainer().privateCloudDatabase;
});
after(() => server?.stop());

const download = async (asset) => Buffer.from(await (await fetch(asset.downloadURL.replace('${f}', 'file'))).arrayBuffer());

test('a Buffer, a Blob and an asset list upload on save and download again', async () => {
    const photo = randomBytes(200000);
    const text = 'a blob of text';
    const parts = [randomBytes(10), randomBytes(20)];
    const saved = await db.saveRecords({recordType: 'Attachment', fields: {
        photo: {value: photo},
        note: {value: new Blob([text], {type: 'text/plain'})},
        pages: {value: parts},
        caption: {value: 'with files'},
    }});
    assert.equal(saved.hasErrors, false, saved.errors.map(String).join());
    const record = saved.records[0];
    assert.ok(record.recordName, 'a record without a name gets one for its uploads');
    const [fetched] = (await db.fetchRecords(record.recordName)).records;
    const {photo: p, note, pages} = fetched.fields;
    assert.equal(p.type, 'ASSETID');
    assert.equal(p.value.size, photo.length);
    assert.equal(p.value.fileChecksum, createHash('sha256').update(photo).digest('hex'));
    assert.match(p.value.downloadURL, /^http/);
    assert.ok((await download(p.value)).equals(photo));
    assert.equal((await download(note.value)).toString(), text);
    assert.equal(pages.type, 'ASSETID_LIST');
    const back = await Promise.all(pages.value.map(download));
    assert.ok(back[0].equals(parts[0]) && back[1].equals(parts[1]));

    // Saving the fetched record again, its asset dictionaries included, keeps its files; a new
    // file replaces one.
    const replacement = randomBytes(64);
    const updated = await db.saveRecords({...fetched, fields: {...fetched.fields, photo: {value: replacement}}});
    assert.equal(updated.hasErrors, false, updated.errors.map(String).join());
    const again = (await db.fetchRecords(record.recordName)).records[0];
    assert.ok((await download(again.fields.photo.value)).equals(replacement));
    assert.equal(again.fields.pages.value.length, 2);
    assert.ok((await download(again.fields.note.value)).toString() === text);
});

test('a bad value beside a file fails before anything is uploaded', async () => {
    let requests = 0;
    const counting = (url, init) => { requests++; return fetch(url, init); };
    const counted = (await sdk(server, {services: {fetch: counting}})).getDefaultContainer().privateCloudDatabase;
    await assert.rejects(counted.saveRecords({recordType: 'Attachment', fields: {photo: {value: randomBytes(8)}, when: {value: new Date('no')}}}),
        (e) => e.ckErrorCode === 'INVALID_ARGUMENTS' && /when/.test(e.reason));
    assert.equal(requests, 0);
});

test('a file mixed with other values in a list is refused with a clear reason', async () => {
    await assert.rejects(db.saveRecords({recordType: 'Attachment', fields: {pages: {value: [randomBytes(4), 'text']}}}),
        (e) => e.ckErrorCode === 'INVALID_ARGUMENTS' && /mixes files/.test(e.reason));
});
