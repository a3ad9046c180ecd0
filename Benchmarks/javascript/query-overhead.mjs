#!/usr/bin/env node
// The JavaScript SDK's cost over the protocol: a records/query of 50 records through
// database.performQuery against a bare fetch of the same CKWS request (the same URL and body,
// parsing the JSON and nothing more), alternating the two, against a live `stratus serve` with
// rate limits off. Prints each side's median and the ratio (target: at most 1.3).
//   node Benchmarks/javascript/query-overhead.mjs PATH_TO_STRATUS_BINARY [--runs 1000]
import {startServer, CONTAINER} from '../../Clients/javascript/test/server.mjs';

const binary = process.argv[2];
if (!binary) {
    console.error('usage: node Benchmarks/javascript/query-overhead.mjs PATH_TO_STRATUS_BINARY [--runs N]');
    process.exit(2);
}
process.env.STRATUS_BINARY = binary;
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 1000;

const server = await startServer(['--rate-limit', '0']);
try {
    const {default: CloudKit} = await import('../../Clients/javascript/dist/cloudkit.mjs');
    CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER, apiTokenAuth: {apiToken: server.apiToken}}]});
    const db = CloudKit.getDefaultContainer().publicCloudDatabase;
    const writer = (await import(`../../Clients/javascript/dist/cloudkit.mjs?writer`)).default;
    writer.configure({serverURL: server.url, containers: [{containerIdentifier: CONTAINER, apiTokenAuth: {apiToken: server.apiToken}}],
        services: {authTokenStore: {getToken: () => server.developerToken, putToken: () => {}}}});
    const records = Array.from({length: 50}, (_, i) => ({recordType: 'Bench', fields: {
        group: {value: 'g'}, rank: {value: i}, title: {value: `record number ${i}`}, score: {value: i / 3, type: 'DOUBLE'},
        when: {value: new Date(Date.UTC(2026, 0, 1, 0, i))}, tags: {value: ['a', 'b', 'c']},
        place: {value: {latitude: 47 + i / 100, longitude: 8}}}}));
    const saved = await writer.getDefaultContainer().publicCloudDatabase.saveRecords(records);
    if (saved.hasErrors) throw saved.errors[0];

    const query = {recordType: 'Bench', filterBy: [{fieldName: 'group', comparator: 'EQUALS', fieldValue: {value: 'g'}}], sortBy: [{fieldName: 'rank'}]};
    const url = `${server.url}/database/1/${CONTAINER}/development/public/records/query?ckAPIToken=${encodeURIComponent(server.apiToken)}`;
    const body = JSON.stringify({query, resultsLimit: 50});
    const sdk = async () => {
        const response = await db.performQuery(query, {resultsLimit: 50});
        if (response.records.length !== 50) throw new Error(`the SDK saw ${response.records.length} records`);
    };
    const bare = async () => {
        const json = await (await fetch(url, {method: 'POST', headers: {'Content-Type': 'text/plain'}, body})).json();
        if (json.records.length !== 50) throw new Error(`fetch saw ${json.records.length} records`);
    };
    const time = async (run) => { const start = process.hrtime.bigint(); await run(); return Number(process.hrtime.bigint() - start) / 1e6; };
    for (let i = 0; i < 100; i++) { await sdk(); await bare(); }
    const sdkTimes = [];
    const bareTimes = [];
    for (let i = 0; i < runs; i++) {
        // Alternate which goes first, so neither always runs on a warmer connection.
        if (i % 2) { sdkTimes.push(await time(sdk)); bareTimes.push(await time(bare)); } else { bareTimes.push(await time(bare)); sdkTimes.push(await time(sdk)); }
    }
    const median = (list) => { const sorted = list.slice().sort((a, b) => a - b); return sorted[Math.floor(sorted.length / 2)]; };
    const s = median(sdkTimes);
    const b = median(bareTimes);
    console.log(`performQuery of 50 records, median of ${runs}: SDK ${s.toFixed(3)} ms, bare fetch ${b.toFixed(3)} ms, ratio ${(s / b).toFixed(3)}x (target <= 1.3x)`);
} finally {
    await server.stop();
}
