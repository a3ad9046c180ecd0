// Bad answers from a server become CKErrors, never a crash: a tiny HTTP server of our own answers
// each request as the test tells it (malformed JSON, a closed connection, an HTML error page, …).
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {createServer} from 'node:http';

let server;
let url;
let behave;
let requests = 0;
const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

before(async () => {
    server = createServer((request, response) => {
        requests++;
        request.resume();
        request.on('end', () => behave(request, response));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

async function database(options = {}) {
    const {default: CloudKit} = await import(`../dist/cloudkit.mjs?fake=${Math.random()}`);
    CloudKit.configure({serverURL: url, ...options, containers: [{containerIdentifier: 'iCloud.example.fake', apiTokenAuth: {apiToken: 'token'}}]});
    return CloudKit.getDefaultContainer().publicCloudDatabase;
}

const json = (status, body, headers = {}) => (request, response) => {
    response.writeHead(status, {'Content-Type': 'application/json', ...headers});
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
};

test('a response that is not JSON is UNEXPECTED_SERVER_RESPONSE', async () => {
    const db = await database();
    behave = json(200, '{"records": [');
    await assert.rejects(db.performQuery({recordType: 'Note'}), (e) =>
        e.isCKError && e.ckErrorCode === 'UNEXPECTED_SERVER_RESPONSE' && /not JSON/.test(e.reason) && e.httpStatus === 200);
    behave = (request, response) => { response.writeHead(502, {'Content-Type': 'text/html'}); response.end('<html>Bad gateway</html>'); };
    await assert.rejects(db.fetchRecords('a'), (e) => e.ckErrorCode === 'UNEXPECTED_SERVER_RESPONSE' && /HTTP 502/.test(e.reason));
    behave = json(200, '[1, 2]');
    await assert.rejects(db.fetchRecords('a'), (e) => e.ckErrorCode === 'UNEXPECTED_SERVER_RESPONSE' && /array/.test(e.reason));
    behave = json(500, {error: 'no code'});
    await assert.rejects(db.fetchRecords('a'), (e) => /without a serverErrorCode/.test(e.reason));
});

test('a connection closed before the answer is NETWORK_ERROR', async () => {
    const db = await database();
    behave = (request) => request.socket.destroy();
    await assert.rejects(db.saveRecords({recordType: 'Note', fields: {}}), (e) =>
        e.ckErrorCode === 'NETWORK_ERROR' && e.reason.includes(url) && /server is running/.test(e.reason));
    behave = (request, response) => { response.writeHead(200, {'Content-Type': 'application/json', 'Content-Length': '100'}); response.write('{"rec'); setTimeout(() => request.socket.destroy(), 10); };
    await assert.rejects(db.fetchRecords('a'), (e) => e.ckErrorCode === 'NETWORK_ERROR');
    const {default: CloudKit} = await import(`../dist/cloudkit.mjs?closed=${Math.random()}`);
    CloudKit.configure({serverURL: 'http://127.0.0.1:1', containers: [{containerIdentifier: 'iCloud.x', apiTokenAuth: {apiToken: 't'}}]});
    await assert.rejects(CloudKit.getDefaultContainer().publicCloudDatabase.fetchRecords('a'), (e) => e.ckErrorCode === 'NETWORK_ERROR');
});

test('TRY_AGAIN_LATER is retried after retryAfter; an unknown server code is UNKNOWN_ERROR', async () => {
    const db = await database();
    let calls = 0;
    behave = (request, response) => (++calls < 3
        ? json(503, {serverErrorCode: 'TRY_AGAIN_LATER', reason: 'busy', retryAfter: 0.05})(request, response)
        : json(200, {records: [{recordName: 'a', recordType: 'Note', fields: {when: {value: 0, type: 'TIMESTAMP'}}}]})(request, response));
    const response = await db.fetchRecords('a');
    assert.equal(calls, 3);
    assert.ok(response.records[0].fields.when.value instanceof Date);
    behave = json(418, {serverErrorCode: 'TEAPOT', reason: 'short and stout', uuid: 'u-1'});
    await assert.rejects(db.fetchRecords('a'), (e) => e.ckErrorCode === 'UNKNOWN_ERROR' && e.serverErrorCode === 'TEAPOT' && e.uuid === 'u-1');
    const few = await database({maxRetries: 1});
    calls = 0;
    behave = (request, response) => { calls++; json(429, {serverErrorCode: 'THROTTLED', reason: 'slow down', retryAfter: 0.01})(request, response); };
    await assert.rejects(few.fetchRecords('a'), (e) => e.ckErrorCode === 'THROTTLED' && e.retryAfter === 0.01);
    assert.equal(calls, 2, 'one try and one retry');
});

test('requests carry the API token, and a rotated web auth token is kept', async () => {
    const {default: CloudKit} = await import(`../dist/cloudkit.mjs?rotate=${Math.random()}`);
    const tokens = new Map([['iCloud.example.fake', 'first+/=']]);
    CloudKit.configure({serverURL: `${url}/`, services: {authTokenStore: {getToken: (c) => tokens.get(c), putToken: (c, t) => tokens.set(c, t)}},
        containers: [{containerIdentifier: 'iCloud.example.fake', environment: 'production', apiTokenAuth: {apiToken: 'api token'}}]});
    let seen;
    behave = (request, response) => { seen = request.url; json(200, {records: []}, {'X-Apple-CloudKit-Web-Auth-Token': 'second'})(request, response); };
    await CloudKit.getDefaultContainer().privateCloudDatabase.performQuery({recordType: 'Note'});
    assert.equal(seen, '/database/1/iCloud.example.fake/production/private/records/query?ckAPIToken=api%20token&ckWebAuthToken=first%2B%2F%3D');
    assert.equal(tokens.get('iCloud.example.fake'), 'second');
    assert.equal(unhandled.length, 0, `unhandled rejections: ${unhandled}`);
    assert.ok(requests > 10);
});
