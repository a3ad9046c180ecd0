// Credentials: rotating web auth tokens followed (a server whose tokens are single-use), signing
// out, server-to-server keys, throttling with a low --rate-limit, and shares between two users.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {writeFileSync} from 'node:fs';
import {webcrypto as crypto} from 'node:crypto';
import {join} from 'node:path';
import {startServer, sdk, tokenStore, CONTAINER, unique} from './server.mjs';

const servers = [];
after(() => Promise.all(servers.map((s) => s.stop())));
const start = async (flags) => { const server = await startServer(flags); servers.push(server); return server; };

async function signUp(server, email) {
    const response = await fetch(`${server.url}/signin`, {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({container: CONTAINER, email, password: 'correct horse battery', action: 'signup'})});
    const json = await response.json();
    assert.ok(json.webAuthToken, JSON.stringify(json));
    return json.webAuthToken;
}

test('a rotating web auth token is followed from response to response', async () => {
    const server = await start(['--web-auth-tokens', 'single-use']);
    const first = await signUp(server, 'rotating@example.com');
    const store = tokenStore(first);
    const CloudKit = await sdk(server, {services: {authTokenStore: store}});
    const container = CloudKit.getDefaultContainer();
    const db = container.privateCloudDatabase;
    const seen = new Set([first]);
    for (let i = 0; i < 4; i++) {
        const saved = await db.saveRecords({recordType: 'Note', fields: {i: {value: i}}});
        assert.equal(saved.hasErrors, false);
        const now = store.tokens.get(CONTAINER);
        assert.ok(!seen.has(now), 'each response carried a new token, which the store now holds');
        seen.add(now);
    }
    // The first token was single-use: it no longer works on its own.
    const stale = await sdk(server, {token: first});
    await assert.rejects(stale.getDefaultContainer().fetchCurrentUserIdentity(), (e) => e.ckErrorCode === 'AUTHENTICATION_REQUIRED');

    // Signing out ends the session; the SDK forgets the token and whenUserSignsOut resolves.
    await container.setUpAuth();
    const signedOut = container.whenUserSignsOut();
    await container.signOut();
    await signedOut;
    assert.equal(store.tokens.get(CONTAINER), undefined);
    await assert.rejects(db.performQuery({recordType: 'Note'}), (e) => e.ckErrorCode === 'AUTHENTICATION_REQUIRED');
});

test('server-to-server keys sign requests (a PKCS #8 key, and a SEC1 key read from a file)', async () => {
    const server = await start();
    const pair = await crypto.subtle.generateKey({name: 'ECDSA', namedCurve: 'P-256'}, true, ['sign', 'verify']);
    const pem = (label, der) => `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').match(/.{1,64}/g).join('\n')}\n-----END ${label}-----\n`;
    const publicFile = join(server.data, '..', 'public.pem');
    writeFileSync(publicFile, pem('PUBLIC KEY', await crypto.subtle.exportKey('spki', pair.publicKey)));
    const keyID = await server.cli('key', 'add', '--container', CONTAINER, '--public-key', publicFile);
    assert.match(keyID, /^[0-9a-f]{64}$/);
    const privatePEM = pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', pair.privateKey));
    const {default: CloudKit} = await import(`../dist/cloudkit.mjs?s2s=${Date.now()}`);
    CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER, environment: 'development',
        serverToServerKeyAuth: {keyID, privateKey: privatePEM}}]});
    const db = CloudKit.getDefaultContainer().publicCloudDatabase;
    const name = unique('s2s');
    const saved = await db.saveRecords({recordType: 'Announcement', recordName: name, fields: {text: {value: 'from a back end'}}});
    assert.equal(saved.hasErrors, false, saved.errors.map(String).join());
    const queried = await db.performQuery({recordType: 'Announcement', filterBy: [{systemFieldName: 'recordName', comparator: 'EQUALS', fieldValue: {value: name}}]});
    assert.equal(queried.records[0].fields.text.value, 'from a back end');
    const privateError = await CloudKit.getDefaultContainer().privateCloudDatabase.performQuery({recordType: 'X'}).catch((e) => e);
    assert.equal(privateError.ckErrorCode, 'ACCESS_DENIED');

    // A key registered with --act-as-users reaches a user's private database (Stratus extension).
    const actingPublic = join(server.data, '..', 'acting.pem');
    const acting = await crypto.subtle.generateKey({name: 'ECDSA', namedCurve: 'P-256'}, true, ['sign', 'verify']);
    writeFileSync(actingPublic, pem('PUBLIC KEY', await crypto.subtle.exportKey('spki', acting.publicKey)));
    const actingKeyID = await server.cli('key', 'add', '--container', CONTAINER, '--public-key', actingPublic, '--act-as-users');
    const user = await server.createUser('Acted For');
    const own = await sdk(server, {token: user.webAuthToken});
    await own.getDefaultContainer().privateCloudDatabase.saveRecords({recordType: 'Diary', recordName: 'entry', fields: {text: {value: 'mine'}}});
    CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER, serverToServerKeyAuth: {keyID: actingKeyID,
        privateKey: pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', acting.privateKey)), actAsUserRecordName: user.userRecordName}}]});
    const diary = await CloudKit.getDefaultContainer().privateCloudDatabase.fetchRecords('entry');
    assert.equal(diary.records[0].fields.text.value, 'mine');

    // A SEC1 "EC PRIVATE KEY" file, as openssl writes it, read through privateKeyFile.
    const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
    const d = Buffer.from(jwk.d, 'base64url');
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')]);
    const sec1 = Buffer.concat([Buffer.from([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20]), d,
        Buffer.from([0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0xa1, 0x44, 0x03, 0x42, 0x00]), point]);
    const keyFile = join(server.data, '..', 'eckey.pem');
    writeFileSync(keyFile, pem('EC PRIVATE KEY', sec1));
    CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER, serverToServerKeyAuth: {keyID, privateKeyFile: keyFile}}]});
    assert.equal((await CloudKit.getDefaultContainer().publicCloudDatabase.fetchRecords(name)).records[0].recordName, name);

    // A wrong key is AUTHENTICATION_FAILED; a missing file and a non-key are configuration errors.
    const other = await crypto.subtle.generateKey({name: 'ECDSA', namedCurve: 'P-256'}, true, ['sign']);
    CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER,
        serverToServerKeyAuth: {keyID, privateKey: pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', other.privateKey))}}]});
    await assert.rejects(CloudKit.getDefaultContainer().publicCloudDatabase.fetchRecords(name), (e) => e.ckErrorCode === 'AUTHENTICATION_FAILED');
    CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER, serverToServerKeyAuth: {keyID, privateKeyFile: '/nonexistent/key.pem'}}]});
    await assert.rejects(CloudKit.getDefaultContainer().publicCloudDatabase.fetchRecords(name), (e) => e.ckErrorCode === 'CONFIGURATION_ERROR' && /cannot read/.test(e.reason));
    CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER, serverToServerKeyAuth: {keyID, privateKey: 'not a key'}}]});
    await assert.rejects(CloudKit.getDefaultContainer().publicCloudDatabase.fetchRecords(name), (e) => /openssl ecparam/.test(e.reason));
});

test('setUpAuth takes a token handed back in the page address (a token with a callback URL)', async () => {
    const server = await start();
    const user = await server.createUser('Called Back');
    const replaced = [];
    globalThis.location = {href: `https://app.example.com/notes?tab=1&ckWebAuthToken=${encodeURIComponent(user.webAuthToken)}`, protocol: 'https:'};
    globalThis.history = {state: null, replaceState: (state, title, url) => replaced.push(url)};
    try {
        const store = tokenStore(null);
        const CloudKit = await sdk(server, {token: null, services: {authTokenStore: store}});
        const identity = await CloudKit.getDefaultContainer().setUpAuth();
        assert.equal(identity.userRecordName, user.userRecordName);
        assert.equal(store.tokens.get(CONTAINER), user.webAuthToken);
        assert.deepEqual(replaced, ['https://app.example.com/notes?tab=1'], 'the token is taken out of the address bar');
    } finally {
        delete globalThis.location;
        delete globalThis.history;
    }
});

test('THROTTLED is retried after retryAfter, and reported once the retries are spent', async () => {
    const server = await start(['--rate-limit', '2', '--rate-burst', '2']);
    const patient = (await sdk(server)).getDefaultContainer().privateCloudDatabase;
    const began = Date.now();
    for (let i = 0; i < 5; i++) {
        const response = await patient.saveRecords({recordType: 'Tick', fields: {i: {value: i}}});
        assert.equal(response.hasErrors, false);
    }
    assert.ok(Date.now() - began >= 500, 'the budget made the SDK wait');
    const impatient = (await sdk(server, {config: {maxRetries: 0}})).getDefaultContainer().privateCloudDatabase;
    let throttled;
    for (let i = 0; i < 10 && !throttled; i++) {
        throttled = await impatient.performQuery({recordType: 'Tick'}).then(() => undefined, (e) => e);
    }
    assert.ok(throttled, 'ten requests at once ran past a budget of two');
    assert.equal(throttled.ckErrorCode, 'THROTTLED');
    assert.ok(throttled.retryAfter > 0);
});

test('shares: the owner shares a record, the invitee looks it up and accepts it', async () => {
    const server = await start();
    const owner = await sdk(server);
    const email = 'invitee@example.com';
    const invitee = await server.createUser('In Vitee', ['--email', email]);
    const guest = await sdk(server, {token: invitee.webAuthToken});
    const db = owner.getDefaultContainer().privateCloudDatabase;
    await db.saveRecordZones('Lists');
    const saved = await db.newRecordsBatch('Lists')
        .forceUpdate({recordName: 'list-1', recordType: 'List', fields: {title: {value: 'Groceries'}}})
        .create({recordName: 'share-1', recordType: 'cloudkit.share', fields: {'cloudkit.title': {value: 'Groceries'}},
            forRecord: {recordName: 'list-1'}, publicPermission: 'NONE',
            participants: [{type: 'USER', permission: 'READ_WRITE', userIdentity: {lookupInfo: {emailAddress: email}}}]})
        .commit();
    assert.equal(saved.hasErrors, false, saved.errors.map(String).join());
    const share = saved.records.find((r) => r.recordType === 'cloudkit.share');
    assert.ok(share.shortGUID);
    const metadata = await guest.getDefaultContainer().fetchShareMetadata(share.shortGUID, {shouldFetchRootRecord: true});
    assert.equal(metadata.hasErrors, false, metadata.errors.map(String).join());
    assert.equal(metadata.results[0].rootRecordName, 'list-1');
    const accepted = await guest.getDefaultContainer().acceptShares([share.url]);
    assert.equal(accepted.hasErrors, false, accepted.errors.map(String).join());
    const zoneID = metadata.results[0].zoneID;
    const shared = await guest.getDefaultContainer().sharedCloudDatabase.fetchRecords({recordName: 'list-1', zoneID});
    assert.equal(shared.records[0].fields.title.value, 'Groceries');
    const again = await guest.getDefaultContainer().acceptShares(share.shortGUID);
    assert.equal(again.errors[0].ckErrorCode, 'BAD_REQUEST');
});
