// Stratus CloudKit JS SDK: a JavaScript client with CloudKit JS's API for a Stratus server.
// Built by Clients/javascript/build.mjs from Clients/javascript/src; do not edit.
const $constants_js = (() => {
const names = (list) => Object.freeze(Object.fromEntries(list.split(' ').map((name) => [name, name])));
const QueryFilterComparator = names(
'EQUALS NOT_EQUALS LESS_THAN LESS_THAN_OR_EQUALS GREATER_THAN GREATER_THAN_OR_EQUALS NEAR ' +
'CONTAINS_ALL_TOKENS CONTAINS_ANY_TOKENS IN NOT_IN BEGINS_WITH NOT_BEGINS_WITH ' +
'LIST_CONTAINS NOT_LIST_CONTAINS LIST_CONTAINS_ANY NOT_LIST_CONTAINS_ANY LIST_CONTAINS_ALL ' +
'NOT_LIST_CONTAINS_ALL LIST_MEMBER_BEGINS_WITH NOT_LIST_MEMBER_BEGINS_WITH');
const ReferenceAction = names('NONE DELETE_SELF VALIDATE');
const DatabaseScope = names('PUBLIC PRIVATE SHARED');
const SubscriptionType = Object.freeze({QUERY: 'query', ZONE: 'zone', DATABASE: 'database'});
const NotificationType = Object.freeze({QUERY: 'query', RECORD_ZONE: 'recordZone', DATABASE: 'database'});
const QueryNotificationReason = names('RECORD_CREATED RECORD_UPDATED RECORD_DELETED');
const ShareParticipantAcceptanceStatus = names('UNKNOWN PENDING ACCEPTED REMOVED');
const ShareParticipantPermission = names('UNKNOWN NONE READ_ONLY READ_WRITE');
const ShareParticipantType = names('OWNER PRIVATE_USER PUBLIC_USER');
const AppleIDButtonTheme = names('BLACK WHITE WHITE_WITH_OUTLINE');
const Environment = Object.freeze({DEVELOPMENT: 'development', PRODUCTION: 'production'});
const ErrorCode = names(
'ACCESS_DENIED ATOMIC_ERROR AUTH_PERSIST_ERROR AUTHENTICATION_FAILED AUTHENTICATION_REQUIRED ' +
'BAD_REQUEST CONFIGURATION_ERROR CONFLICT EXISTS INTERNAL_ERROR INVALID_ARGUMENTS NETWORK_ERROR ' +
'NOT_FOUND NOT_IMPLEMENTED QUOTA_EXCEEDED SHARE_UI_TIMEOUT SIGN_IN_FAILED THROTTLED ' +
'TRY_AGAIN_LATER UNEXPECTED_SERVER_RESPONSE UNIQUE_FIELD_ERROR UNKNOWN_ERROR ' +
'VALIDATING_REFERENCE_ERROR ZONE_NOT_FOUND');
const DEFAULT_ZONE = '_defaultZone';
return {QueryFilterComparator, ReferenceAction, DatabaseScope, SubscriptionType, NotificationType, QueryNotificationReason, ShareParticipantAcceptanceStatus, ShareParticipantPermission, ShareParticipantType, AppleIDButtonTheme, Environment, ErrorCode, DEFAULT_ZONE};
})();
const $errors_js = (() => {
const {ErrorCode} = $constants_js;
class CKError extends Error {
constructor(ckErrorCode, reason, details = {}) {
super(`${ckErrorCode}: ${reason}`);
this.name = 'CKError';
this.ckErrorCode = ckErrorCode;
this.reason = reason;
this.isServerError = false;
this.serverErrorCode = undefined;
Object.assign(this, details);
}
get isError() { return true; }
get isCKError() { return true; }
static fromServer(dictionary, httpStatus) {
const code = dictionary.serverErrorCode;
const error = new CKError(ErrorCode[code] ? code : ErrorCode.UNKNOWN_ERROR,
dictionary.reason || `the server answered ${code} without a reason`);
error.isServerError = true;
error.serverErrorCode = code;
for (const key of ['uuid', 'retryAfter', 'redirectURL', 'recordName', 'zoneID', 'subscriptionID', 'shortGUID']) {
if (dictionary[key] !== undefined) error[key] = dictionary[key];
}
if (httpStatus !== undefined) error.httpStatus = httpStatus;
return error;
}
}
const invalidArguments = (reason) => new CKError(ErrorCode.INVALID_ARGUMENTS, reason);
const configurationError = (reason) => new CKError(ErrorCode.CONFIGURATION_ERROR, reason);
const isErrorDictionary = (item) => item !== null && typeof item === 'object' && typeof item.serverErrorCode === 'string';
return {CKError, invalidArguments, configurationError, isErrorDictionary};
})();
const $signing_js = (() => {
const {configurationError} = $errors_js;
const encoder = new TextEncoder();
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
function pkcs8FromSEC1(sec1) {
const algorithm = [0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const body = [0x02, 0x01, 0x00, ...algorithm, 0x04, ...derLength(sec1.length), ...sec1];
return new Uint8Array([0x30, ...derLength(body.length), ...body]);
}
async function importPrivateKey(pem) {
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
async function signatureHeaders(key, keyID, pathAndQuery, bodyText, actAsUser) {
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
return {importPrivateKey, signatureHeaders};
})();
const $transport_js = (() => {
const {CKError, configurationError, isErrorDictionary} = $errors_js;
const {ErrorCode} = $constants_js;
const {importPrivateKey, signatureHeaders} = $signing_js;
const ROTATED_TOKEN_HEADER = 'X-Apple-CloudKit-Web-Auth-Token';
const RETRYABLE = new Set([ErrorCode.THROTTLED, ErrorCode.TRY_AGAIN_LATER]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
class Transport {
constructor(options) {
Object.assign(this, options);
this.keyPromise = undefined;
this.onAuthenticationRequired = undefined;
}
get webAuthToken() { return this.tokenStore.getToken(this.containerIdentifier) || undefined; }
set webAuthToken(token) { this.tokenStore.putToken(this.containerIdentifier, token || null); }
databaseURL(database, operation) {
return `${this.serverURL}/database/1/${encodeURIComponent(this.containerIdentifier)}/${this.environment}/${database}/${operation}`;
}
functionURL(name) {
return `${this.serverURL}/functions/1/${encodeURIComponent(this.containerIdentifier)}/${this.environment}/${encodeURIComponent(name)}`;
}
request(database, operation, body) {
return this.send(this.databaseURL(database, operation), body, true);
}
async privateKey() {
if (!this.keyPromise) {
const auth = this.keyAuth;
this.keyPromise = (async () => {
let pem = auth.privateKey;
if (pem === undefined && auth.privateKeyFile) {
if (typeof process === 'undefined' || !process.versions?.node) {
throw configurationError('serverToServerKeyAuth.privateKeyFile works in Node only; give privateKey (the PEM text) instead');
}
const fs = await import('node:fs/promises');
try {
pem = await fs.readFile(auth.privateKeyFile, 'utf8');
} catch (error) {
throw configurationError(`cannot read serverToServerKeyAuth.privateKeyFile ${auth.privateKeyFile}: ${error.message}`);
}
}
return importPrivateKey(pem);
})();
this.keyPromise.catch(() => { this.keyPromise = undefined; });
}
return this.keyPromise;
}
async send(url, body, authenticated, {anyJSON = false} = {}) {
const bodyText = body === undefined ? undefined : JSON.stringify(body);
for (let attempt = 0; ; attempt++) {
try {
return await this.sendOnce(url, bodyText, authenticated, anyJSON);
} catch (error) {
if (!(error instanceof CKError) || !RETRYABLE.has(error.ckErrorCode) || attempt >= this.maxRetries) throw error;
const seconds = Math.min(error.retryAfter ?? 2 ** attempt, this.maxRetryDelay);
this.logger?.info?.(`CloudKit: ${error.ckErrorCode}; retrying in ${seconds} s (attempt ${attempt + 1} of ${this.maxRetries})`);
await sleep(seconds * 1000);
}
}
}
async sendOnce(url, bodyText, authenticated, anyJSON = false) {
const headers = {'Content-Type': 'text/plain'};
let target = url;
let usedToken;
if (authenticated) {
if (this.keyAuth && !this.apiToken) {
const key = await this.privateKey();
const parsed = new URL(url);
Object.assign(headers, await signatureHeaders(key, this.keyAuth.keyID, parsed.pathname + parsed.search,
bodyText, this.keyAuth.actAsUserRecordName));
} else {
usedToken = this.webAuthToken;
target += `${url.includes('?') ? '&' : '?'}ckAPIToken=${encodeURIComponent(this.apiToken)}`;
if (usedToken) target += `&ckWebAuthToken=${encodeURIComponent(usedToken)}`;
}
}
const init = bodyText === undefined ? {method: 'GET', headers} : {method: 'POST', headers, body: bodyText};
return this.exchange(target, init, usedToken, anyJSON);
}
upload(url, bytes) {
return this.exchange(url, {method: 'POST', body: bytes});
}
async exchange(target, init, usedToken, anyJSON = false) {
let response;
let text;
try {
response = await this.fetch.call(globalThis, target, init);
text = await response.text();
} catch (error) {
throw new CKError(ErrorCode.NETWORK_ERROR,
`could not reach ${this.serverURL} (${error.cause?.code || error.message}); check the server address and that the server is running`);
}
const rotated = response.headers.get(ROTATED_TOKEN_HEADER);
if (rotated && usedToken !== undefined && this.webAuthToken === usedToken) this.webAuthToken = rotated;
let json;
try {
json = text === '' ? {} : JSON.parse(text);
} catch {
throw unexpected(response.status, `a body that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
}
if (response.ok && anyJSON) return json;
if (json === null || typeof json !== 'object' || Array.isArray(json)) {
throw unexpected(response.status, `${Array.isArray(json) ? 'an array' : String(json)} where a JSON object belongs`);
}
if (response.ok) return json;
if (isErrorDictionary(json)) {
const error = CKError.fromServer(json, response.status);
if (error.ckErrorCode === ErrorCode.AUTHENTICATION_REQUIRED) {
if (usedToken) this.webAuthToken = null;
this.onAuthenticationRequired?.(error, usedToken);
}
throw error;
}
if (response.status === 400 && Array.isArray(json.records)) return json; // a failed atomic batch
throw unexpected(response.status, 'an error without a serverErrorCode');
}
}
function unexpected(status, what) {
return new CKError(ErrorCode.UNEXPECTED_SERVER_RESPONSE,
`the server answered HTTP ${status} with ${what}; is serverURL the address of a Stratus server?`, {httpStatus: status});
}
return {Transport};
})();
const $values_js = (() => {
const {invalidArguments} = $errors_js;
const isPlainObject = (value) => value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
function isAssetSource(value) {
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
function encodeField(field, path) {
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
function holdsFiles(field) {
const wrapped = isPlainObject(field) && 'value' in field;
const value = wrapped ? field.value : field;
if (wrapped && field.type && field.type !== 'ASSET' && field.type !== 'ASSET_LIST') return false;
return Array.isArray(value) ? value.some(isAssetSource) : isAssetSource(value);
}
function encodeFields(fields, recordPath, keepFiles = false) {
if (fields === undefined) return undefined;
if (!isPlainObject(fields)) throw invalidArguments(`${recordPath}.fields must be an object of field name to {value}`);
const out = {};
for (const name of Object.keys(fields)) {
out[name] = keepFiles && holdsFiles(fields[name]) ? fields[name] : encodeField(fields[name], `${recordPath}.fields.${name}`);
}
return out;
}
function decodeRecord(record) {
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
return {isAssetSource, encodeField, encodeFields, decodeRecord};
})();
const $assets_js = (() => {
const {invalidArguments} = $errors_js;
const {isAssetSource} = $values_js;
const newRecordName = () => (globalThis.crypto?.randomUUID ? crypto.randomUUID() :
'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => ((Math.random() * 16) | 0).toString(16)));
async function uploadAssets(database, records, zoneID) {
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
return {uploadAssets};
})();
const $zones_js = (() => {
const {invalidArguments} = $errors_js;
const {DEFAULT_ZONE} = $constants_js;
function zoneIDOf(value, path = 'zoneID') {
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
const zoneKey = (zoneID) => (zoneID ? `${zoneID.zoneName}\u0000${zoneID.ownerRecordName || ''}` : `${DEFAULT_ZONE}\u0000`);
function groupByZone(items, zoneOfItem, fallback) {
const groups = new Map();
items.forEach((item, index) => {
const zoneID = zoneOfItem(item) || fallback;
const key = zoneKey(zoneID);
if (!groups.has(key)) groups.set(key, {zoneID, entries: []});
groups.get(key).entries.push({index, item});
});
return [...groups.values()];
}
async function perZone(groups, count, send) {
const out = new Array(count);
await Promise.all(groups.map(async (group) => {
const items = await send(group);
group.entries.forEach((entry, i) => { out[entry.index] = items[i]; });
}));
return out;
}
return {zoneIDOf, zoneKey, groupByZone, perZone};
})();
const $responses_js = (() => {
const {CKError, isErrorDictionary} = $errors_js;
const {decodeRecord} = $values_js;
class Response {
constructor(database) {
this.containerIdentifier = database?.containerIdentifier;
this.databaseScope = database?.databaseScope;
this.errors = [];
}
get hasErrors() { return this.errors.length > 0; }
addError(item) {
const error = CKError.fromServer(item);
if (item.serverRecord) error.serverRecord = decodeRecord(item.serverRecord);
this.errors.push(error);
return error;
}
}
class RecordsResponse extends Response {
constructor(database, items = []) {
super(database);
this.records = [];
for (const item of items) {
if (isErrorDictionary(item)) this.addError(item);
else this.records.push(decodeRecord(item));
}
}
}
class QueryResponse extends RecordsResponse {
constructor(database, json, query, options) {
super(database, json.records);
this.query = query;
this.options = options;
this.continuationMarker = json.continuationMarker;
this.moreComing = Boolean(json.continuationMarker);
}
}
class ListResponse extends Response {
constructor(database, key, items = []) {
super(database);
this[key] = [];
for (const item of items) {
if (isErrorDictionary(item)) this.addError(item);
else this[key].push(item);
}
}
}
class RecordZoneChangesResponse extends Response {
constructor(database, zones = []) {
super(database);
this.zones = [];
for (const zone of zones) {
if (isErrorDictionary(zone)) { this.addError(zone); continue; }
this.zones.push({...zone, records: (zone.records || []).map(decodeRecord)});
}
}
}
class DatabaseChangesResponse extends ListResponse {
constructor(database, json) {
super(database, 'zones', json.zones);
this.syncToken = json.syncToken;
this.moreComing = Boolean(json.moreComing);
}
}
return {Response, RecordsResponse, QueryResponse, ListResponse, RecordZoneChangesResponse, DatabaseChangesResponse};
})();
const $batch_js = (() => {
const OPERATIONS = ['create', 'update', 'forceUpdate', 'replace', 'forceReplace', 'delete', 'forceDelete'];
class RecordsBatchBuilder {
constructor(database, zoneID) {
this.database = database;
this.zoneID = zoneID;
this.operations = [];
}
async commit(options = {}) {
return this.database.modifyRecords(this.operations, {zoneID: this.zoneID, ...options});
}
}
for (const operationType of OPERATIONS) {
RecordsBatchBuilder.prototype[operationType] = function add(records) {
for (const record of Array.isArray(records) ? records : [records]) {
this.operations.push({operationType, record: typeof record === 'string' ? {recordName: record} : record});
}
return this;
};
}
return {RecordsBatchBuilder};
})();
const $database_js = (() => {
const {invalidArguments} = $errors_js;
const {encodeField, encodeFields} = $values_js;
const {uploadAssets} = $assets_js;
const {groupByZone, perZone, zoneIDOf} = $zones_js;
const {DatabaseChangesResponse, ListResponse, QueryResponse, RecordsResponse, RecordZoneChangesResponse} = $responses_js;
const {RecordsBatchBuilder} = $batch_js;
const SERVER_KEYS = new Set(['zoneID', 'created', 'modified', 'deleted', 'pluginFields', 'shortGUID', 'url', 'owner', 'currentUserParticipant']);
const asList = (value, what) => {
if (value === undefined || value === null) throw invalidArguments(`give ${what} (one, or an array)`);
return Array.isArray(value) ? value : [value];
};
const GROUP_KEYS = ['anyOf', 'allOf', 'not'];
function encodeFilter(filter, path) {
if (!filter || typeof filter !== 'object') throw invalidArguments(`${path} must be an object`);
const groupKey = filter.comparator ? undefined : GROUP_KEYS.find((key) => filter[key] !== undefined);
if (groupKey === 'not') return {not: encodeFilter(filter.not, `${path}.not`)};
if (groupKey) {
return {[groupKey]: asList(filter[groupKey], `${path}.${groupKey}`).map((member, i) => encodeFilter(member, `${path}.${groupKey}[${i}]`))};
}
if (!filter.comparator) throw invalidArguments(`${path} has no comparator; use a CloudKit.QueryFilterComparator, or a Stratus group {anyOf}, {allOf} or {not}`);
if (!filter.fieldName && !filter.systemFieldName) throw invalidArguments(`${path} names no fieldName or systemFieldName`);
const out = {...filter};
if (filter.fieldValue !== undefined) out.fieldValue = encodeField(filter.fieldValue, `${path}.fieldValue`);
return out;
}
function encodeQuery(query) {
if (!query || typeof query !== 'object') throw invalidArguments('performQuery needs a query {recordType, filterBy?, sortBy?}');
if (typeof query.recordType !== 'string' || !query.recordType) throw invalidArguments('the query has no recordType');
const out = {recordType: query.recordType};
if (query.filterBy) out.filterBy = asList(query.filterBy, 'filterBy').map((filter, i) => encodeFilter(filter, `query.filterBy[${i}]`));
if (query.sortBy) out.sortBy = asList(query.sortBy, 'sortBy');
return out;
}
function recordRef(value, what) {
if (typeof value === 'string') return {recordName: value};
if (value && typeof value === 'object' && typeof value.recordName === 'string') return value;
throw invalidArguments(`${what} must be a record name or a record with recordName, not ${JSON.stringify(value)}`);
}
function commonOptions(options, body) {
for (const key of ['desiredKeys', 'numbersAsStrings', 'resultsLimit', 'zoneWide', 'atomic']) {
if (options[key] !== undefined) body[key] = options[key];
}
return body;
}
class Database {
constructor(container, databaseScope) {
this.container = container;
this.databaseScope = databaseScope;
this.name = databaseScope.toLowerCase();
}
get containerIdentifier() { return this.container.containerIdentifier; }
request(operation, body) { return this.container.transport.request(this.name, operation, body); }
async performQuery(query, options = {}) {
if (query instanceof QueryResponse) {
if (!query.continuationMarker) throw invalidArguments('this QueryResponse has no more records (moreComing is false)');
options = {...query.options, ...options, continuationMarker: query.continuationMarker};
query = query.query;
}
const body = commonOptions(options, {query: encodeQuery(query)});
const zoneID = zoneIDOf(options.zoneID, 'options.zoneID');
if (zoneID) body.zoneID = zoneID;
if (options.continuationMarker) body.continuationMarker = options.continuationMarker;
const json = await this.request('records/query', body);
const {continuationMarker, ...kept} = options;
return new QueryResponse(this, json, query, kept);
}
async countRecords(query, options = {}) {
const body = {query: encodeQuery(query)};
const zoneID = zoneIDOf(options.zoneID, 'options.zoneID');
if (zoneID) body.zoneID = zoneID;
if (options.zoneWide !== undefined) body.zoneWide = options.zoneWide;
const json = await this.request('records/count', body);
return json.count;
}
async fetchRecords(records, options = {}) {
const refs = asList(records, 'the records to fetch').map((item, i) => recordRef(item, `records[${i}]`));
const fallback = zoneIDOf(options.zoneID, 'options.zoneID');
const groups = groupByZone(refs, (ref) => zoneIDOf(ref.zoneID), fallback);
const items = await perZone(groups, refs.length, async ({zoneID, entries}) => {
const body = commonOptions(options, {
records: entries.map(({item}) => (item.desiredKeys ? {recordName: item.recordName, desiredKeys: item.desiredKeys} : {recordName: item.recordName})),
});
if (zoneID) body.zoneID = zoneID;
return (await this.request('records/lookup', body)).records || [];
});
return new RecordsResponse(this, items);
}
async saveRecords(records, options = {}) {
const operations = asList(records, 'the records to save').map((record) => ({
operationType: record && record.recordChangeTag ? 'update' : 'create', record}));
return this.modifyRecords(operations, options);
}
async deleteRecords(records, options = {}) {
const operations = asList(records, 'the records to delete').map((record, i) => {
const ref = recordRef(record, `records[${i}]`);
return {operationType: ref.recordChangeTag ? 'delete' : 'forceDelete', record: ref};
});
return this.modifyRecords(operations, options);
}
newRecordsBatch(zoneID) { return new RecordsBatchBuilder(this, zoneIDOf(zoneID)); }
async modifyRecords(operations, options = {}) {
const wire = operations.map(({operationType, record}, i) => {
if (!record || typeof record !== 'object') throw invalidArguments(`operation ${i} (${operationType}) has no record`);
const copy = {};
for (const key of Object.keys(record)) {
if (!SERVER_KEYS.has(key) && record[key] !== undefined) copy[key] = record[key];
}
if (record.fields) copy.fields = encodeFields(record.fields, `records[${i}]`, true);
if (operationType === 'create' && !copy.recordType) throw invalidArguments(`operation ${i}: a record to create needs a recordType`);
if (operationType !== 'create' && !copy.recordName) throw invalidArguments(`operation ${i}: ${operationType} needs the record's recordName`);
return {operationType, record: copy, zoneID: zoneIDOf(record.zoneID, `records[${i}].zoneID`)};
});
const fallback = zoneIDOf(options.zoneID, 'options.zoneID');
const groups = groupByZone(wire, (op) => op.zoneID, fallback);
const items = await perZone(groups, wire.length, async ({zoneID, entries}) => {
const records = entries.map(({item}) => item.record);
await uploadAssets(this, records, zoneID);
const body = commonOptions(options, {
operations: entries.map(({item}) => ({operationType: item.operationType, record: item.record})),
});
if (zoneID) body.zoneID = zoneID;
return (await this.request('records/modify', body)).records || [];
});
return new RecordsResponse(this, items);
}
async fetchAllRecordZones() {
return new ListResponse(this, 'zones', (await this.request('zones/list')).zones);
}
async fetchRecordZones(zoneIDs) {
const zones = asList(zoneIDs, 'the zone IDs to fetch').map((zone, i) => zoneIDOf(zone, `zoneIDs[${i}]`));
return new ListResponse(this, 'zones', (await this.request('zones/lookup', {zones})).zones);
}
async saveRecordZones(zones) { return this.modifyZones('create', zones); }
async deleteRecordZones(zoneIDs) { return this.modifyZones('delete', zoneIDs); }
async modifyZones(operationType, zones) {
const operations = asList(zones, 'the zones').map((zone, i) => ({operationType, zone: {zoneID: zoneIDOf(zone, `zones[${i}]`)}}));
return new ListResponse(this, 'zones', (await this.request('zones/modify', {operations})).zones);
}
async fetchDatabaseChanges(options = {}) {
if (typeof options === 'string') options = {syncToken: options};
const body = {};
if (options.syncToken) body.syncToken = options.syncToken;
if (options.resultsLimit) body.resultsLimit = options.resultsLimit;
return new DatabaseChangesResponse(this, await this.request('changes/database', body));
}
async fetchRecordZoneChanges(options) {
const zones = asList(options, 'the zones to fetch changes of (RecordZoneChangesOptions)').map((entry, i) => {
const zone = {zoneID: zoneIDOf(entry.zoneID ?? entry, `options[${i}].zoneID`)};
for (const key of ['syncToken', 'resultsLimit', 'desiredKeys', 'desiredRecordTypes']) {
if (entry[key] !== undefined && entry[key] !== null) zone[key] = entry[key];
}
return zone;
});
return new RecordZoneChangesResponse(this, (await this.request('changes/zone', {zones})).zones);
}
async fetchAllSubscriptions() {
return new ListResponse(this, 'subscriptions', (await this.request('subscriptions/list')).subscriptions);
}
async fetchSubscriptions(subscriptionIDs) {
const subscriptions = asList(subscriptionIDs, 'the subscription IDs').map((id) => ({subscriptionID: typeof id === 'string' ? id : id.subscriptionID}));
return new ListResponse(this, 'subscriptions', (await this.request('subscriptions/lookup', {subscriptions})).subscriptions);
}
async saveSubscriptions(subscriptions) {
return this.modifySubscriptions(asList(subscriptions, 'the subscriptions to save').map((subscription, i) => {
if (!subscription || !subscription.subscriptionType) throw invalidArguments(`subscriptions[${i}] has no subscriptionType; use a CloudKit.SubscriptionType`);
const wire = {...subscription};
if (subscription.query) wire.query = encodeQuery(subscription.query);
if (subscription.zoneID) wire.zoneID = zoneIDOf(subscription.zoneID, `subscriptions[${i}].zoneID`);
return {operationType: 'create', subscription: wire};
}));
}
async deleteSubscriptions(subscriptionIDs) {
return this.modifySubscriptions(asList(subscriptionIDs, 'the subscription IDs').map((id) => ({
operationType: 'delete', subscription: {subscriptionID: typeof id === 'string' ? id : id.subscriptionID}})));
}
async modifySubscriptions(operations) {
return new ListResponse(this, 'subscriptions', (await this.request('subscriptions/modify', {operations})).subscriptions);
}
}
return {encodeQuery, Database};
})();
const $notifications_js = (() => {
const {ErrorCode} = $constants_js;
const {CKError} = $errors_js;
const SCOPES = {1: 'PUBLIC', 2: 'PRIVATE', 3: 'SHARED'};
const REASONS = {1: 'RECORD_CREATED', 2: 'RECORD_UPDATED', 3: 'RECORD_DELETED'};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
class CKNotification {
constructor(frame) {
const ck = frame.ck || {};
const aps = frame.aps || {};
const alert = typeof aps.alert === 'string' ? {body: aps.alert} : aps.alert || {};
const part = ck.qry || ck.fet || ck.met || {};
this.notificationID = ck.nid;
this.notificationType = ck.qry ? 'query' : ck.fet ? 'recordZone' : ck.met ? 'database' : undefined;
this.containerIdentifier = ck.cid;
this.subscriptionID = part.sid;
this.isPruned = false;
this.alertBody = alert.body;
this.alertLocalizationKey = alert['loc-key'];
this.alertLocalizationArgs = alert['loc-args'];
this.alertActionLocalizationKey = alert['action-loc-key'];
this.alertLaunchImage = alert['launch-image'];
this.title = alert.title;
this.subtitle = alert.subtitle;
this.badge = aps.badge;
this.soundName = aps.sound;
this.category = aps.category;
this.databaseScope = SCOPES[part.dbs];
if (part.zid) this.zoneID = {zoneName: part.zid, ownerRecordName: part.zoid};
if (ck.qry) {
this.recordName = part.rid;
this.queryNotificationReason = REASONS[part.fo];
this.recordFields = part.af || {};
this.isPublicDatabase = part.dbs === 1;
}
this.payload = frame;
}
}
class NotificationChannel {
constructor(transport, deliver, useEventSource) {
this.transport = transport;
this.deliver = deliver;
this.useEventSource = useEventSource ?? typeof EventSource === 'function';
this.running = false;
}
async start(apnsEnvironment) {
const created = await this.transport.request('public', 'tokens/create', {apnsEnvironment});
if (!created.webcourierURL || !created.apnsToken) {
throw new CKError(ErrorCode.UNEXPECTED_SERVER_RESPONSE, 'tokens/create answered without webcourierURL and apnsToken');
}
await this.transport.request('public', 'tokens/register', {apnsToken: created.apnsToken, apnsEnvironment});
this.url = created.webcourierURL;
this.running = true;
if (this.useEventSource) this.listen();
else this.poll();
}
stop() {
this.running = false;
this.source?.close();
this.abort?.abort();
}
frame(text) {
if (!text || !text.trim()) return;
let frame;
try { frame = JSON.parse(text); } catch {
this.transport.logger?.warn?.(`CloudKit: the web courier sent a frame that is not JSON: ${text.slice(0, 80)}`);
return;
}
this.deliver(new CKNotification(frame));
}
listen() {
this.source = new EventSource(`${this.url}/events`);
this.source.onmessage = (event) => this.frame(event.data);
this.source.onerror = () => {
if (this.running && this.source.readyState === 2) { this.useEventSource = false; this.poll(); }
};
}
async poll() {
let failures = 0;
while (this.running) {
this.abort = new AbortController();
try {
const response = await this.transport.fetch.call(globalThis, this.url, {signal: this.abort.signal});
const text = await response.text();
if (response.status === 404) {
this.running = false;
this.transport.logger?.warn?.('CloudKit: the web courier no longer knows this token; call registerForNotifications() again');
return;
}
if (!response.ok) throw new Error(`HTTP ${response.status}`);
failures = 0;
this.frame(text);
} catch (error) {
if (!this.running) return;
failures++;
this.transport.logger?.warn?.(`CloudKit: web courier poll failed (${error.message}); retrying`);
await sleep(Math.min(30000, 500 * 2 ** failures));
}
}
}
}
return {CKNotification, NotificationChannel};
})();
const $auth_js = (() => {
function memoryTokenStore() {
const tokens = new Map();
return {
getToken: (containerIdentifier) => tokens.get(containerIdentifier) ?? null,
putToken: (containerIdentifier, token) => { if (token) tokens.set(containerIdentifier, token); else tokens.delete(containerIdentifier); },
};
}
function localStorageTokenStore(storage) {
const key = (containerIdentifier) => `stratus.ckWebAuthToken.${containerIdentifier}`;
return {
getToken: (containerIdentifier) => storage.getItem(key(containerIdentifier)),
putToken: (containerIdentifier, token) => { if (token) storage.setItem(key(containerIdentifier), token); else storage.removeItem(key(containerIdentifier)); },
};
}
const hasDocument = () => typeof document !== 'undefined' && typeof document.getElementById === 'function';
function renderButton(spec, label, onClick) {
if (!hasDocument() || !spec) return;
const host = document.getElementById(spec.id);
if (!host) return;
host.textContent = '';
if (!label) return;
const button = document.createElement('button');
button.type = 'button';
button.textContent = label;
button.className = `stratus-auth-button stratus-button-${String(spec.theme || 'black').toLowerCase()}`;
button.addEventListener('click', onClick);
host.appendChild(button);
}
function openSignInWindow(url, serverOrigin, onToken) {
if (typeof window === 'undefined') return false;
const popup = window.open(url, 'stratus-sign-in', 'width=480,height=640');
const listener = (event) => {
if (event.origin !== serverOrigin || !event.data || typeof event.data.ckWebAuthToken !== 'string') return;
window.removeEventListener('message', listener);
onToken(event.data.ckWebAuthToken);
};
window.addEventListener('message', listener);
return Boolean(popup);
}
function takeTokenFromLocation() {
if (typeof location === 'undefined' || typeof URL === 'undefined' || !location.href) return undefined;
const url = new URL(location.href);
const token = url.searchParams.get('ckWebAuthToken');
if (!token) return undefined;
url.searchParams.delete('ckWebAuthToken');
if (typeof history !== 'undefined') history.replaceState(history.state, '', url.toString());
return token;
}
return {memoryTokenStore, localStorageTokenStore, renderButton, openSignInWindow, takeTokenFromLocation};
})();
const $container_js = (() => {
const {DatabaseScope, ErrorCode} = $constants_js;
const {CKError, invalidArguments} = $errors_js;
const {Database} = $database_js;
const {ListResponse, Response} = $responses_js;
const {NotificationChannel} = $notifications_js;
const {openSignInWindow, renderButton, takeTokenFromLocation} = $auth_js;
function identityOf(user) {
if (!user || !user.userRecordName) return undefined;
const identity = {userRecordName: user.userRecordName, nameComponents: user.nameComponents || {}};
if (user.lookupInfo) identity.lookupInfo = user.lookupInfo;
else if (user.emailAddress) identity.lookupInfo = {emailAddress: user.emailAddress};
if (user.emailAddress) identity.emailAddress = user.emailAddress;
if (user.isDiscoverable !== undefined) identity.isDiscoverable = user.isDiscoverable;
return identity;
}
class Container {
constructor(settings, transport) {
this.containerIdentifier = settings.containerIdentifier;
this.environment = settings.environment;
this.apnsEnvironment = settings.apnsEnvironment;
this.settings = settings;
this.transport = transport;
this.publicCloudDatabase = new Database(this, DatabaseScope.PUBLIC);
this.privateCloudDatabase = new Database(this, DatabaseScope.PRIVATE);
this.sharedCloudDatabase = new Database(this, DatabaseScope.SHARED);
this.userIdentity = undefined;
this.signInWaiters = [];
this.signOutWaiters = [];
this.listeners = [];
this.channel = undefined;
transport.onAuthenticationRequired = (error, usedToken) => {
this.redirectURL = error.redirectURL || this.redirectURL;
if (usedToken && this.userIdentity) this.signedOut();
else this.renderSignIn();
};
}
getDatabaseWithDatabaseScope(scope) {
const database = {PUBLIC: this.publicCloudDatabase, PRIVATE: this.privateCloudDatabase, SHARED: this.sharedCloudDatabase}[String(scope).toUpperCase()];
if (!database) throw invalidArguments(`unknown database scope ${scope}; use CloudKit.DatabaseScope.PUBLIC, PRIVATE or SHARED`);
return database;
}
async setUpAuth() {
if (!this.settings.apiToken) return null;
const handedOver = takeTokenFromLocation();
if (handedOver) this.transport.webAuthToken = handedOver;
try {
const identity = await this.fetchCurrentUserIdentity();
this.signedIn(identity);
return identity;
} catch (error) {
if (error.ckErrorCode === ErrorCode.AUTHENTICATION_REQUIRED) return null;
throw error;
}
}
whenUserSignsIn() { return new Promise((resolve, reject) => this.signInWaiters.push({resolve, reject})); }
whenUserSignsOut() { return new Promise((resolve) => this.signOutWaiters.push(resolve)); }
signedIn(identity) {
this.userIdentity = identity;
renderButton(this.settings.signInButton, null);
renderButton(this.settings.signOutButton, 'Sign out', () => this.signOut());
for (const waiter of this.signInWaiters.splice(0)) waiter.resolve(identity);
}
signedOut() {
this.userIdentity = null;
this.transport.webAuthToken = null;
renderButton(this.settings.signOutButton, null);
this.renderSignIn();
for (const resolve of this.signOutWaiters.splice(0)) resolve();
}
renderSignIn() {
if (this.redirectURL) renderButton(this.settings.signInButton, 'Sign in', () => this.openSignIn());
}
openSignIn() {
openSignInWindow(this.redirectURL, new URL(this.transport.serverURL).origin, async (token) => {
this.transport.webAuthToken = token;
try {
this.signedIn(await this.fetchCurrentUserIdentity());
} catch (error) {
const failure = new CKError(ErrorCode.SIGN_IN_FAILED, `signed in, but the token did not work: ${error.reason || error.message}`);
for (const waiter of this.signInWaiters.splice(0)) waiter.reject(failure);
}
});
}
async signOut() {
const token = this.transport.webAuthToken;
if (token) {
const url = `${this.transport.serverURL}/signout?container=${encodeURIComponent(this.containerIdentifier)}&ckWebAuthToken=${encodeURIComponent(token)}`;
try { await this.transport.send(url, {}, false); } catch (error) {
if (error.ckErrorCode !== ErrorCode.AUTHENTICATION_REQUIRED) throw error;
}
}
this.signedOut();
this.fetchCurrentUserIdentity().catch(() => {});
}
async callFunction(name, input = {}) {
if (typeof name !== 'string' || name === '') throw invalidArguments('callFunction needs the function\'s name');
return this.transport.send(this.transport.functionURL(name), input, true, {anyJSON: true});
}
async fetchCurrentUserIdentity() {
const json = await this.transport.request('public', 'users/caller');
const identity = identityOf(json) || identityOf(json.users && json.users[0]);
if (!identity) throw new CKError(ErrorCode.UNEXPECTED_SERVER_RESPONSE, 'users/caller answered without a userRecordName');
return identity;
}
async discoverAllUserIdentities() {
return this.usersResponse(await this.transport.request('public', 'users/discover'));
}
async discoverUserIdentities(lookupInfos) {
const list = Array.isArray(lookupInfos) ? lookupInfos : [lookupInfos];
if (!list.length) throw invalidArguments('discoverUserIdentities needs lookup infos ({emailAddress}, {phoneNumber} or {userRecordName})');
return this.usersResponse(await this.transport.request('public', 'users/discover', {lookupInfos: list}));
}
discoverUserIdentityWithEmailAddress(emailAddress) { return this.discoverOne({emailAddress}); }
discoverUserIdentityWithPhoneNumber(phoneNumber) { return this.discoverOne({phoneNumber}); }
discoverUserIdentityWithUserRecordName(userRecordName) { return this.discoverOne({userRecordName}); }
async discoverOne(lookupInfo) {
const response = await this.discoverUserIdentities([lookupInfo]);
if (response.hasErrors) throw response.errors[0];
return response.users[0] || null;
}
usersResponse(json) {
const response = new ListResponse(undefined, 'users', json.users);
response.containerIdentifier = this.containerIdentifier;
response.users = response.users.map((user) => identityOf(user) || {lookupInfo: user.lookupInfo}).filter((user) => user.userRecordName);
return response;
}
get isRegisteredForNotifications() { return Boolean(this.channel && this.channel.running); }
async registerForNotifications() {
if (this.isRegisteredForNotifications) return this;
const channel = new NotificationChannel(this.transport, (notification) => {
for (const listener of this.listeners.slice()) {
try { listener(notification); } catch (error) { this.transport.logger?.error?.(error); }
}
}, this.settings.notificationTransport === undefined ? undefined : this.settings.notificationTransport === 'sse');
await channel.start(this.apnsEnvironment);
this.channel = channel;
return this;
}
unregisterForNotifications() {
this.channel?.stop();
this.channel = undefined;
return Promise.resolve(this);
}
addNotificationListener(listener) {
if (typeof listener !== 'function') throw invalidArguments('addNotificationListener needs a function');
this.listeners.push(listener);
}
removeNotificationListener(listener) {
this.listeners = this.listeners.filter((each) => each !== listener);
}
acceptShares(shortGUIDs) { return this.shares('records/accept', shortGUIDs); }
fetchShareMetadata(shortGUIDs, options = {}) { return this.shares('records/resolve', shortGUIDs, options); }
async shares(operation, shortGUIDs, options = {}) {
const list = (Array.isArray(shortGUIDs) ? shortGUIDs : [shortGUIDs]).map((guid) => {
const entry = typeof guid === 'string' ? {value: guid} : {...guid};
if (options.shouldFetchRootRecord) entry.shouldFetchRootRecord = true;
if (options.rootRecordDesiredKeys) entry.rootRecordDesiredKeys = options.rootRecordDesiredKeys;
if (typeof entry.value !== 'string') throw invalidArguments('give each share as its short GUID or URL');
return entry;
});
const json = await this.transport.request('public', operation, {shortGUIDs: list});
const response = new Response(undefined);
response.containerIdentifier = this.containerIdentifier;
response.results = [];
for (const item of json.results || []) {
if (item.serverErrorCode) response.addError(item); else response.results.push(item);
}
return response;
}
}
return {Container};
})();
const $index_js = (() => {
const constants = $constants_js;
const {CKError, configurationError} = $errors_js;
const {Transport} = $transport_js;
const {Container} = $container_js;
const {Database} = $database_js;
const {RecordsBatchBuilder} = $batch_js;
const {CKNotification} = $notifications_js;
const {localStorageTokenStore, memoryTokenStore} = $auth_js;
const {DatabaseChangesResponse, QueryResponse, RecordsResponse, RecordZoneChangesResponse, Response} = $responses_js;
const VERSION = '1.0.0';
let containers = [];
const ENVIRONMENTS = ['development', 'production'];
function serverURLOf(value) {
const url = value ?? (typeof location !== 'undefined' && /^https?:$/.test(location.protocol) ? location.origin : undefined);
if (!url) throw configurationError('give serverURL, the Stratus server\'s address (e.g. serverURL: "https://cloud.example.com") in CloudKit.configure');
if (!/^https?:\/\/[^/]+/.test(url)) throw configurationError(`serverURL ${JSON.stringify(url)} is not an http:// or https:// address`);
return url.replace(/\/+$/, '');
}
function browserStorage(logger) {
try {
return typeof localStorage !== 'undefined' && localStorage !== null;
} catch (error) {
logger?.warn?.(`CloudKit: persist is on, but this page cannot use localStorage (${error.message}); the session ends with the page`);
return false;
}
}
function containerOf(entry, index, config, services) {
const path = `containers[${index}]`;
if (!entry || typeof entry.containerIdentifier !== 'string' || !entry.containerIdentifier) {
throw configurationError(`${path} has no containerIdentifier`);
}
const environment = entry.environment ?? 'development';
if (!ENVIRONMENTS.includes(environment)) throw configurationError(`${path}.environment is ${JSON.stringify(environment)}; use 'development' or 'production'`);
const tokenAuth = entry.apiTokenAuth || {};
const legacyAuth = entry.auth || {};
const apiToken = tokenAuth.apiToken ?? entry.apiToken;
const keyAuth = entry.serverToServerKeyAuth;
if (keyAuth && (!keyAuth.keyID || (keyAuth.privateKey === undefined && !keyAuth.privateKeyFile))) {
throw configurationError(`${path}.serverToServerKeyAuth needs keyID and privateKey or privateKeyFile`);
}
if (!apiToken && !keyAuth) throw configurationError(`${path} needs apiTokenAuth.apiToken or serverToServerKeyAuth`);
const persist = tokenAuth.persist ?? legacyAuth.persist ?? false;
let tokenStore = services.authTokenStore;
if (!tokenStore) {
tokenStore = persist && browserStorage(services.logger) ? localStorageTokenStore(localStorage) : memoryTokenStore();
} else if (typeof tokenStore.getToken !== 'function' || typeof tokenStore.putToken !== 'function') {
throw configurationError('services.authTokenStore needs getToken(containerIdentifier) and putToken(containerIdentifier, token)');
}
const fetchFunction = services.fetch ?? globalThis.fetch;
if (typeof fetchFunction !== 'function') throw configurationError('no fetch: give services.fetch, or use Node 18+ or a current browser');
const button = (spec, id) => (spec === undefined ? {id} : spec === null ? undefined : {id, ...spec});
const settings = {
containerIdentifier: entry.containerIdentifier,
environment,
apnsEnvironment: entry.apnsEnvironment ?? environment,
apiToken,
signInButton: button(tokenAuth.signInButton ?? legacyAuth.signInButton, 'apple-sign-in-button'),
signOutButton: button(tokenAuth.signOutButton ?? legacyAuth.signOutButton, 'apple-sign-out-button'),
notificationTransport: entry.notificationTransport ?? config.notificationTransport,
};
const transport = new Transport({
serverURL: serverURLOf(entry.serverURL ?? config.serverURL),
containerIdentifier: entry.containerIdentifier,
environment,
apiToken,
keyAuth: apiToken ? undefined : keyAuth,
fetch: fetchFunction,
logger: services.logger,
tokenStore,
maxRetries: entry.maxRetries ?? config.maxRetries ?? 3,
maxRetryDelay: entry.maxRetryDelay ?? config.maxRetryDelay ?? 60,
});
return new Container(settings, transport);
}
function configure(config) {
if (!config || !Array.isArray(config.containers) || !config.containers.length) {
throw configurationError('CloudKit.configure needs {containers: [{containerIdentifier, apiTokenAuth: {apiToken}, environment}]}');
}
const services = config.services || {};
containers = config.containers.map((entry, index) => containerOf(entry, index, config, services));
return CloudKit;
}
function getDefaultContainer() {
if (!containers.length) throw configurationError('call CloudKit.configure before getDefaultContainer');
return containers[0];
}
function getContainer(containerIdentifier) {
const container = containers.find((each) => each.containerIdentifier === containerIdentifier);
if (!container) throw configurationError(`container ${containerIdentifier} is not configured; add it to CloudKit.configure's containers`);
return container;
}
function getAllContainers() { return containers.slice(); }
const {QueryFilterComparator, ReferenceAction, DatabaseScope, SubscriptionType, NotificationType,
QueryNotificationReason, ShareParticipantAcceptanceStatus, ShareParticipantPermission, ShareParticipantType,
AppleIDButtonTheme} = constants;
Object.assign(CKError, constants.ErrorCode);
const CloudKit = {
VERSION, configure, getDefaultContainer, getContainer, getAllContainers,
QueryFilterComparator, ReferenceAction, DatabaseScope, SubscriptionType, NotificationType, QueryNotificationReason,
ShareParticipantAcceptanceStatus, ShareParticipantPermission, ShareParticipantType, AppleIDButtonTheme,
CKError, Container, Database, RecordsBatchBuilder, Notification: CKNotification,
Response, RecordsResponse, QueryResponse, RecordZoneChangesResponse, DatabaseChangesResponse,
};
return {default: CloudKit, CKError, Container, Database, RecordsBatchBuilder, Notification: CKNotification, Response, RecordsResponse, QueryResponse, RecordZoneChangesResponse, DatabaseChangesResponse, QueryFilterComparator, ReferenceAction, DatabaseScope, SubscriptionType, NotificationType, QueryNotificationReason, ShareParticipantAcceptanceStatus, ShareParticipantPermission, ShareParticipantType, AppleIDButtonTheme, VERSION, configure, getDefaultContainer, getContainer, getAllContainers, CloudKit};
})();
export default $index_js.default;
export const {CKError, Container, Database, RecordsBatchBuilder, Notification, Response, RecordsResponse, QueryResponse, RecordZoneChangesResponse, DatabaseChangesResponse, QueryFilterComparator, ReferenceAction, DatabaseScope, SubscriptionType, NotificationType, QueryNotificationReason, ShareParticipantAcceptanceStatus, ShareParticipantPermission, ShareParticipantType, AppleIDButtonTheme, VERSION, configure, getDefaultContainer, getContainer, getAllContainers, CloudKit} = $index_js;
