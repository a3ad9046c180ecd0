// dist/ is what build.mjs makes from src/ now, both files expose the same API, and the
// TypeScript declarations name every member of the CloudKit namespace.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import {readFileSync, statSync} from 'node:fs';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

test('dist/ matches a fresh build of src/', () => {
    const out = execFileSync(process.execPath, [here('../build.mjs'), '--check'], {encoding: 'utf8'});
    assert.match(out, /matches/);
});

test('the ES module and the classic script expose the same CloudKit', async () => {
    const {default: esm, configure, CKError} = await import('../dist/cloudkit.mjs');
    const classic = createRequire(import.meta.url)('../dist/cloudkit.js');
    assert.deepEqual(Object.keys(classic).sort(), Object.keys(esm).sort());
    assert.equal(typeof configure, 'function');
    assert.equal(CKError.NETWORK_ERROR, 'NETWORK_ERROR');
    for (const file of ['cloudkit.mjs', 'cloudkit.js']) console.log(`dist/${file}: ${statSync(here(`../dist/${file}`)).size} bytes`);
});

test('cloudkit.d.ts declares every member of the namespace', async () => {
    const {default: CloudKit} = await import('../dist/cloudkit.mjs');
    const declarations = readFileSync(here('../cloudkit.d.ts'), 'utf8');
    const missing = Object.keys(CloudKit).filter((name) => !new RegExp(`\\b(const|function|class|let) ${name}\\b`).test(declarations));
    assert.deepEqual(missing, []);
    const container = Object.getOwnPropertyNames(CloudKit.Container.prototype).filter((n) => n !== 'constructor' && !['signedIn', 'signedOut', 'renderSignIn', 'openSignIn', 'discoverOne', 'usersResponse', 'shares'].includes(n));
    const database = Object.getOwnPropertyNames(CloudKit.Database.prototype).filter((n) => n !== 'constructor' && !['request', 'modifyRecords', 'modifyZones', 'modifySubscriptions'].includes(n));
    const undeclared = [...container, ...database].filter((name) => !new RegExp(`\\b${name}\\b`).test(declarations));
    assert.deepEqual(undeclared, []);
});
